#!/usr/bin/env python3
"""Every CCE intrinsic our kernels link is defined by the model or is one of front end B's.

Usage: check_intrinsic_coverage.py <stub_fun.h> <libnormgrad_isa_<arch>.a> <kernel.o>...

The intrinsic names are those cann-check's stub_fun.h declares (CANN_CHECK_INTRINSIC /
CANN_CHECK_VEC_INTRINSIC); an undefined symbol of a kernel object whose name is one of them must
be a defined symbol of the library (same instantiation), unless front end B provides it.
"""
import re
import subprocess
import sys

# Front end B's: the launcher, block-index and hard cross-core synchronisation intrinsics, the
# devkit's CPU-debug hooks (AscendC*: buffer and queue notifications) and the soft-SyncAll hook.
FRONT_END = {"ffts_cross_core_sync", "wait_flag_dev", "get_block_num", "get_block_idx", "get_subblockid",
             "set_block_dim", "set_core_type", "set_ffts_base_addr", "get_process_num", "__sync_all_stub"}
FRONT_END_PREFIX = "AscendC"


def symbols(path: str, defined: bool) -> set[str]:
    flag = "--defined-only" if defined else "--undefined-only"
    out = subprocess.run(["nm", "-C", flag, path], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split(None, 2) if defined else line.split(None, 1)
        if defined and len(parts) == 3 and parts[1] in "TWtw":
            names.add(parts[2])
        elif not defined and len(parts) == 2:
            names.add(parts[1])
    return names


def intrinsic_of(symbol: str, names: set[str]) -> str | None:
    m = re.match(r"^(?:[\w:]+ )?(\w+)<", symbol)  # "<ret> name<...>(...)" of an instantiation
    return m.group(1) if m and m.group(1) in names else None


def main() -> int:
    stub, lib, objs = sys.argv[1], sys.argv[2], sys.argv[3:]
    text = open(stub, encoding="utf-8").read()
    names = set(re.findall(r"^CANN_CHECK_INTRINSIC\(\s*[\w:]+\s*,\s*(\w+)\s*\)", text, re.MULTILINE))
    names |= set(re.findall(r"^CANN_CHECK_VEC_INTRINSIC\(\s*(\w+)\s*,", text, re.MULTILINE))
    defined = symbols(lib, True)
    missing, linked = [], set()
    for obj in objs:
        for sym in sorted(symbols(obj, False)):
            name = intrinsic_of(sym, names)
            if name is None or name in FRONT_END or name.startswith(FRONT_END_PREFIX):
                continue
            linked.add(name)
            if sym not in defined:
                missing.append(f"{obj}: {sym}")
    for m in missing:
        print("not defined by the model:", m)
    print(f"{len(linked)} intrinsic names linked by {len(objs)} kernel objects; "
          f"{len(missing)} instantiations missing")
    return 1 if missing or not linked else 0


if __name__ == "__main__":
    sys.exit(main())
