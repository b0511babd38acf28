"""Huawei's own kernels (ops-nn v9.0.0, compiled unchanged) on front end B, for `normgrad bench --compare`
and tests/cann_cpu/test_opsnn.py.

`./build.sh --cann-cpu` with an ops-nn source tree (NORMGRAD_OPSNN_ROOT or NORMGRAD_OPSNN_GIT_DIR;
sim/cann_cpu/README.md) builds `normgrad_opsnn_run_<soc>`: ops-nn's kernel and its own op_host tiling, run by
CANN's CPU-debug framework on the instruction-level model. `run_case` hands it one case (the inputs as
regions, the shapes and attributes ops-nn's tiling reads, the SoC profile's core count and UB size) and reads
the outputs back, so they can be checked against the case's float64 golden like ours.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from normgrad._native import library, soc_choice
from normgrad._native.library import library_path
from normgrad._native.soc_choice import socs
from normgrad.cases.base import Arrays, Case

MARK = "measured (ops-nn v9.0.0 on front end B)"
MODELED_MARK = "modeled (hand-written official algorithm)"

# CANN's A2 reservation of system workspace (asc-devkit kernel_utils_constants.h, RESERVED_WORKSPACE for
# __NPU_ARCH__ 2201), what PlatformAscendC::GetLibApiWorkSpaceSize reports on Atlas A2/A3; the tiling adds it
# to the workspace it asks for. NpuArch 2201: dav-c220.
DTYPES = {"float32": np.dtype(np.float32), "float16": np.dtype(np.float16),
          "bfloat16": np.dtype(ml_dtypes.bfloat16)}
A2_LIB_WORKSPACE = 16 * 1024 * 1024
A2_NPU_ARCH = 2201
# The SoC families whose ops-nn kernels the runner holds (the A2/A3 vector core, dav-c220).
RUNNER_SOC = {"ascend910b": "ascend910b", "ascend910_93": "ascend910b"}


@dataclass(frozen=True)
class Tensor:
    name: str                    # an input's key in the case's arrays; an output's OpDef name
    dims: tuple[int, ...]
    dtype: str | None = None     # an output's dtype; None: the case's dtype (inputs: their array's)


@dataclass(frozen=True)
class OpsNnOp:
    """How one of our operators maps onto an ops-nn operator: its OpDef's inputs, outputs and attributes."""

    op_type: str                     # IMPL_OP_OPTILING name
    kernel: str                      # the extern "C" kernel entry
    inputs: Callable[[Mapping[str, int]], list[Tensor]]
    outputs: Callable[[Mapping[str, int]], list[Tensor]]
    attrs: Callable[[Mapping[str, int]], list[str]]   # "int 32", "str NCHW", "bool 1", in OpDef order


def _gn_inputs(p: Mapping[str, int]) -> list[Tensor]:
    n, c, hw, g = p["n"], p["c"], p["hw"], p["g"]
    return [Tensor("dy", (n, c, hw)), Tensor("mean", (n, g)), Tensor("rstd", (n, g)), Tensor("x", (n, c, hw)),
            Tensor("gamma", (c,))]


def _gn_outputs(p: Mapping[str, int]) -> list[Tensor]:
    n, c, hw = p["n"], p["c"], p["hw"]
    return [Tensor("dx", (n, c, hw)), Tensor("dgamma", (c,)), Tensor("dbeta", (c,))]


def _ln_inputs(p: Mapping[str, int]) -> list[Tensor]:
    rows, cols = p["rows"], p["cols"]
    return [Tensor("dy", (rows, cols)), Tensor("x", (rows, cols)), Tensor("rstd", (rows, 1)),
            Tensor("mean", (rows, 1)), Tensor("weight", (cols,))]


def _ln_outputs(p: Mapping[str, int]) -> list[Tensor]:
    rows, cols = p["rows"], p["cols"]
    return [Tensor("pd_x", (rows, cols)), Tensor("pd_gamma", (cols,), "float32"),
            Tensor("pd_beta", (cols,), "float32")]


OPS: dict[str, OpsNnOp] = {
    # ops-nn norm/group_norm_grad (OpDef: dy, mean, rstd, x, gamma -> dx, dgamma, dbeta; num_groups,
    # data_format, dx/dgamma/dbeta_is_require), mean and rstd in the inputs' dtype as ours.
    "group_norm_grad": OpsNnOp("GroupNormGrad", "group_norm_grad", _gn_inputs, _gn_outputs,
                               lambda p: [f"int {p['g']}", "str NCHW", "bool 1", "bool 1", "bool 1"]),
    # ops-nn norm/layer_norm_grad_v3 (OpDef: dy, x, rstd, mean, gamma -> pd_x, pd_gamma, pd_beta;
    # output_mask), the rows flattened as the aclnn layer does; float32 statistics, gamma and its grads.
    "layer_norm_grad": OpsNnOp("LayerNormGradV3", "layer_norm_grad_v3", _ln_inputs, _ln_outputs,
                               lambda p: ["listbool 1,1,1"]),
}


@dataclass
class OpsNnRun:
    outputs: list[np.ndarray]
    tiling: dict[str, int] = field(default_factory=dict)   # tiling_key, block_dim, workspace, ...
    # The launch's report as front end A's launches have it (sim::RunLog: totalUs, bytesIn, ...), priced
    # with the current SoC profile and what-if constants; None until front end B models time (below).
    report: dict[str, Any] | None = None


class OpsNnError(RuntimeError):
    """The ops-nn runner failed (its message says why)."""


def runner_dir() -> Path:
    """Where the runners are: NORMGRAD_CANN_RUNNER_DIR, else beside libnormgrad.so."""
    env = os.environ.get("NORMGRAD_CANN_RUNNER_DIR")
    return Path(env) if env else library_path().parent


def runner(soc: str) -> Path | None:
    """The ops-nn runner serving SoC profile `soc`, or None when it is not built (or the SoC has none)."""
    arch = RUNNER_SOC.get(soc)
    if arch is None:
        return None
    path = runner_dir() / f"normgrad_opsnn_run_{arch}"
    return path if path.exists() else None


def serves(case: Case, soc: str) -> str | None:
    """None when ops-nn's kernel can run `case` on `soc` here, else why not."""
    if case.op not in OPS:
        return f"no ops-nn kernel of {case.op} is built into the runner"
    if soc not in RUNNER_SOC:
        return f"ops-nn's {OPS[case.op].op_type} kernel is run for Atlas A2/A3 only"
    if runner(soc) is None:
        return ("the ops-nn runner is not built (./build.sh --cann-cpu with NORMGRAD_OPSNN_ROOT or "
                "NORMGRAD_OPSNN_GIT_DIR)")
    return None


def _l2_bytes(soc: str) -> int:
    """The chip's L2 (what-if applied), which front end B's cost report models re-reads with."""
    return int(next(p for p in socs() if p["name"] == soc)["l2Bytes"])


def _platform(soc: str) -> str:
    profile = next(p for p in socs() if p["name"] == soc)
    return f"platform {profile['aivCores']} {profile['ubBytes']} {A2_LIB_WORKSPACE} {A2_NPU_ARCH}"


def launch_key(soc: str) -> tuple[str, int]:
    """What an ops-nn run on `soc` depends on besides the case and its inputs, under the current what-if
    constants: the platform its tiling sees (cores, UB) and the L2 size the cores' cost reports model
    re-reads with. Every other constant only prices the reports, so runs of equal keys price alike."""
    return _platform(soc), _l2_bytes(soc)


def run_case(case: Case, inputs: Arrays, soc: str, keep_costs: Path | None = None) -> OpsNnRun:
    """Runs `case` with `inputs` on ops-nn's kernel for `soc`; raises OpsNnError when the runner fails.
    With keep_costs, the launch's cost reports (core<i>.txt) are copied there, to be priced again under
    other constants (price())."""
    why = serves(case, soc)
    if why is not None:
        raise OpsNnError(why)
    op = OPS[case.op]
    ins, outs = op.inputs(case.params), op.outputs(case.params)
    with tempfile.TemporaryDirectory(prefix="normgrad-opsnn-") as tmp:
        d = Path(tmp)
        lines = [f"op {op.op_type}", f"kernel {op.kernel}", _platform(soc), f"l2bytes {_l2_bytes(soc)}"]
        for i, t in enumerate(ins):
            a = np.ascontiguousarray(inputs[t.name])
            if a.size != int(np.prod(t.dims)):
                raise OpsNnError(f"{case.op}: input {t.name} has {a.size} elements, "
                                 f"ops-nn's OpDef wants {t.dims}")
            a.tofile(d / f"region{i}.bin")
            lines.append(f"input {a.dtype} {'x'.join(map(str, t.dims))}")
        lines += [f"output {t.dtype or case.dtype} {'x'.join(map(str, t.dims))}" for t in outs]
        lines += [f"attr {a}" for a in op.attrs(case.params)]
        (d / "opsnn.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        path = runner(soc)
        assert path is not None
        proc = subprocess.run([str(path), str(d)], capture_output=True, text=True, check=False)
        result = (d / "result.txt").read_text(encoding="utf-8").strip() if (d / "result.txt").exists() else ""
        if proc.returncode != 0 or result != "ok":
            # A core stopped by CANN's own checks logs why ([ERROR]...; CANN's KERNEL_LOG writes to stdout),
            # one stopped by the model says "normgrad-isa: ..." (a violation or an intrinsic it traps).
            logs = (proc.stdout + proc.stderr).splitlines()
            logged = next((line for line in logs if "[ERROR]" in line or "normgrad-isa:" in line), "")
            detail = logged.rsplit("]", 1)[-1].strip()
            raise OpsNnError(f"{op.op_type} on front end B: {result or proc.stderr.strip()[-500:]}"
                             + (f" ({detail})" if detail else ""))
        tiling = {}
        for line in (d / "tiling.txt").read_text(encoding="utf-8").splitlines():
            key, value = line.split()
            tiling[key] = int(value)
        outputs = [np.fromfile(d / f"region{len(ins) + j}.bin", dtype=DTYPES[t.dtype or case.dtype])
                   .reshape(t.dims) for j, t in enumerate(outs)]
        report = launch_report(d, soc)
        if keep_costs is not None:
            keep_costs.mkdir(parents=True, exist_ok=True)
            for core in d.glob("core*.txt"):
                shutil.copy(core, keep_costs / core.name)
    return OpsNnRun(outputs=outputs, tiling=tiling, report=report)


# The libnormgrad entry that prices a finished front end B launch directory with the current SoC profile
# and what-if constants, returning its launch report as JSON (the same fields as a front end A launch in
# normgradSimLastRunJson). Front end B's time model (issue 20 item 5) provides it; without it no ops-nn
# launch has a modeled time and `bench --compare` keeps the hand-written model of the official algorithm.
REPORT_ENTRY = "normgradCannLaunchReportJson"


def launch_report(launch_dir: Path, soc: str) -> dict[str, Any] | None:
    """The launch in launch_dir (its cores' cost reports, core<i>.txt) priced with SoC profile `soc` and the
    current what-if constants; None when libnormgrad has no REPORT_ENTRY, OpsNnError when it cannot read
    them."""
    with soc_choice.soc(soc):
        lib = soc_choice.apply_soc()  # the entry prices with the calling thread's SoC, as last_run() reads
        entry = getattr(lib, REPORT_ENTRY, None)
        if entry is None:
            return None
        entry.restype = ctypes.c_char_p
        entry.argtypes = [ctypes.c_char_p]
        data = library.parse_json(entry(str(launch_dir).encode()), REPORT_ENTRY)
    if not isinstance(data, dict):
        raise OpsNnError(f"{REPORT_ENTRY} cannot read the launch's cost reports (core<i>.txt) in "
                         f"{launch_dir}")
    return dict(data)


@dataclass(frozen=True)
class Measured:
    """ops-nn's kernel on one case: its modeled time (None where it cannot be had) and why not."""

    us: float | None
    launches: int
    why_not: str | None
    costs: Path | None = None   # where measure(keep_costs=...) kept the launch's cost reports, for price()


def measure(case: Case, seed: int, soc: str, keep_costs: Path | None = None) -> Measured:
    """Runs ops-nn's kernel on `case` (inputs of `seed`, as normgrad check and bench make them), checks its
    outputs against the case's float64 golden and returns its modeled time (the launch report's totalUs)
    when both succeed; otherwise None and the reason, so that the caller can say why the hand-written
    model is used instead. With keep_costs (a directory the caller owns), the launch's cost reports are
    kept there, so that price() can price the same run under other constants of equal launch_key()."""
    from normgrad.check import case_rng
    from normgrad.compare import compare

    why = serves(case, soc)
    if why is not None:
        return Measured(None, 0, why)
    inputs = case.make_inputs(case_rng(case, seed))
    try:
        run = run_case(case, inputs, soc, keep_costs)
    except OpsNnError as err:
        # Which core stops first varies from run to run; the reason (a CSV cell, grouped in notes) must not.
        return Measured(None, 0, re.sub(r"\b(error )?core \d+: ", "a core: ", str(err)))
    for name, got, want in zip(case.output_names, run.outputs, case.golden(inputs), strict=True):
        result = compare(name, got.reshape(np.shape(want)), want, case.tolerance)
        if result is not None and not result.ok:
            return Measured(None, 1, f"ops-nn's {name} fails the float64 golden: {result.detail}")
    if run.report is None:
        return Measured(None, 1, f"ops-nn ran and passed the golden, but front end B reports no time "
                                 f"({REPORT_ENTRY} is not in libnormgrad yet)")
    return Measured(float(run.report["totalUs"]), 1, None, keep_costs)


def price(measured: Measured, soc: str) -> Measured:
    """`measured` (a run on `soc`) priced again under the current what-if constants, from the cost reports
    measure(keep_costs=...) kept (the caller makes sure the run's launch_key() is the current one); as it is
    where there is no time to price."""
    if measured.us is None or measured.costs is None:
        return measured
    report = launch_report(measured.costs, soc)
    assert report is not None  # measure() had one from the same library
    return Measured(float(report["totalUs"]), measured.launches, None, measured.costs)


def official_source_label(source: str | None) -> str:
    """The short form of a BenchRow.official_source for tables: "measured" or "modeled" ("-": none)."""
    if source is None:
        return "-"
    return "measured (ops-nn on B)" if source == MARK else "modeled (hand-written)"
