#!/usr/bin/env python3
"""Peak host memory of one normgrad call per operator, each case in its own subprocess.

Per case: the process imports normgrad and warms the library up with a tiny call, records its RSS
(the baseline: interpreter, library, simulator), makes the inputs, resets the peak (Linux
/proc/self/clear_refs, 5) and runs the call. Reported: the peak RSS above the baseline in MiB, the
call's own addition (peak minus the RSS just before the call) and the ratio
(peak - baseline) / (inputs + outputs at their stored sizes): what the call holds at its worst per
byte the caller's arrays need. A broadcast input (np.broadcast_to) counts its stored bytes only.

    NORMGRAD_LIBRARY=$PWD/build/dev/libnormgrad.so PYTHONPATH=$PWD/python \\
        python3 benchmarks/peak_memory.py [--log2 26] [--case bn bn-bcast gn ln]

Run one at a time on a shared machine: a 2^28-element fp16 case needs about 2.5 GB.
The table before -> after is in docs/memory.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASES = ("bn", "bn-bcast", "gn", "gn-bcast", "ln", "ln-bcast")

_CHILD = r'''
import json, sys
import numpy as np
import normgrad

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024

case, log2 = sys.argv[1], int(sys.argv[2])
op, bcast = case.split("-")[0], case.endswith("-bcast")
n = 1 << log2
C, D = 64, 1024                      # channels; trailing size (HxW, LayerNorm row)
N = n // C // D
shape = (N, C, D)
half = np.float16
rng = np.random.default_rng(0)

def warm():
    tiny = np.ones((2, 4, 8), half)
    s = np.ones(4, np.float32)
    normgrad.batch_norm_elemt_backward(tiny, tiny, s, s, s, s, s, np.array([16], np.int32))
    normgrad.group_norm_backward(tiny, tiny, np.ones((2, 2), half), np.ones((2, 2), half), None, 2, 4, 8, 2)
    normgrad.layer_norm_backward(tiny, tiny, [8], np.ones((2, 4, 1), half), np.ones((2, 4, 1), half))

warm()
baseline = status("VmRSS")
x = np.empty(shape, half)
for i in range(N):                   # filled in slices: no full-size float32 temporary
    x[i] = rng.standard_normal((C, D), dtype=np.float32)
dy = np.broadcast_to(half(0.5), shape) if bcast else x[::-1].copy()
stored_in = x.nbytes + (0 if bcast else dy.nbytes)
if op == "bn":
    st = [np.full(C, v, np.float32) for v in (0.1, 1.5, 1.0, 0.2, 0.3)]
    args = (dy, x, *st, np.array([N * D], np.int32))
    call = normgrad.batch_norm_elemt_backward
elif op == "gn":
    g = 8
    m, r = np.zeros((N, g), half), np.ones((N, g), half)
    args = (dy, x, m, r, np.ones(C, half), N, C, D, g)
    call = normgrad.group_norm_backward
else:
    m, r = np.zeros((N, C, 1), half), np.ones((N, C, 1), half)
    args = (dy, x, [D], m, r, np.ones(D, half), None)
    call = normgrad.layer_norm_backward
stored_in += sum(a.nbytes for a in args[2:] if isinstance(a, np.ndarray))
before = status("VmRSS")
open("/proc/self/clear_refs", "w").write("5")   # VmHWM := VmRSS
out = call(*args)
peak = status("VmHWM")
outs = out if isinstance(out, tuple) else (out,)
stored_out = sum(o.nbytes for o in outs if o is not None)
print(json.dumps({"case": case, "elements": n, "in": stored_in, "out": stored_out,
                  "peak_above_baseline": peak - baseline, "call_added": peak - before,
                  "ratio": (peak - baseline) / (stored_in + stored_out)}))
'''


def run(case: str, log2: int) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, case, str(log2)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        return {"case": case, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=26, help="elements of x = 2**LOG2 (default 26)")
    parser.add_argument("--case", nargs="*", choices=CASES, default=list(CASES))
    a = parser.parse_args()
    mib = 1 << 20
    print("| case | elements | inputs MiB | outputs MiB | peak above baseline MiB | added by the call MiB "
          "| ratio |")
    print("|---|---|---|---|---|---|---|")
    for case in a.case:
        r = run(case, a.log2)
        if "error" in r:
            print(f"| {case} | 2^{a.log2} | | | | | failed: {r['error']} |")
            continue
        print(f"| {case} | 2^{a.log2} | {r['in'] / mib:.0f} | {r['out'] / mib:.0f} | "
              f"{r['peak_above_baseline'] / mib:.0f} | {r['call_added'] / mib:.0f} | {r['ratio']:.2f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
