"""`normgrad cpudebug cc`: compiles an Ascend C CPU-debug program (kernels plus a `main` that uses CANN's
GmAlloc / ICPU_RUN_KF / GmFree, as CANN's CPU-debug guide writes one) into an executable that runs on
front end B: CANN's Ascend C implementation and its open CPU-debug framework, with the instruction-level
model (sim/isa) in place of CANN's closed libraries. The executable exits non-zero when a launch breaks a
rule (the model's, or CANN's own api_check) or a core traps or crashes.

Everything it compiles and links with comes from front end B's build: normgrad_cpudebug_<soc>.json, which
CMake writes beside the runners (sim/cann_cpu/CMakeLists.txt, normgrad_cann_cpudebug_config), found where
the library finds the runners (NORMGRAD_CANN_RUNNER_DIR, else beside libnormgrad.so).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from normgrad import _native
from normgrad._native import front_end
from normgrad.errors import FrontEndError

SOCS = ("ascend910b", "ascend910")  # front end B's builds: dav-c220 (Atlas A2/A3), dav-c100 (training)
USAGE = ("usage: normgrad cpudebug cc [--soc ascend910b|ascend910] [-I DIR] [-D NAME[=VALUE]] [-O LEVEL] "
         "[-std=STD] [-v] SRC... -o EXE")
# A macro a program must not set: it switches off the launch hooks (kern_fwk.h) that report a core's
# failure, and the executable could no longer fail on a broken rule. Nor may it redefine the macros front end
# B's configuration sets (ASCENDC_DEBUG=1 compiles CANN's api_check in).
NPUCHK_OFF = "ASCENDC_NPUCHK_OFF"


class CpuDebugUsageError(ValueError):
    """A bad command line of `normgrad cpudebug cc` (exit status 2)."""


@dataclass
class CcArgs:
    soc: str = "ascend910b"
    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    optimize: str = "-O2"
    std: str = "-std=c++17"
    sources: list[str] = field(default_factory=list)
    output: str = ""
    verbose: bool = False


def _value(argv: Sequence[str], i: int, flag: str) -> tuple[str, int]:
    """The value of flag at argv[i]: glued (-Idir) or the next word (-I dir)."""
    word = argv[i]
    if len(word) > len(flag):
        return word[len(flag):].removeprefix("="), i + 1
    if i + 1 >= len(argv):
        raise CpuDebugUsageError(f"normgrad cpudebug cc: {flag} needs a value\n{USAGE}")
    return argv[i + 1], i + 2


def parse_cc_args(argv: Sequence[str]) -> CcArgs:
    """The compiler-style command line of `cpudebug cc` (argparse cannot take -std=c++17 or -DX=1)."""
    args = CcArgs()
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in ("-h", "--help"):
            raise CpuDebugUsageError(USAGE)
        if word.startswith("--soc"):
            args.soc, i = _value(argv, i, "--soc")
        elif word.startswith("-I"):
            value, i = _value(argv, i, "-I")
            args.include_dirs.append(value)
        elif word.startswith("-D"):
            value, i = _value(argv, i, "-D")
            args.defines.append(value)
        elif word.startswith("-O"):
            args.optimize, i = word, i + 1
        elif word.startswith("-std="):
            args.std, i = word, i + 1
        elif word.startswith("-o"):
            args.output, i = _value(argv, i, "-o")
        elif word == "-v":
            args.verbose, i = True, i + 1
        elif word.startswith("-"):
            raise CpuDebugUsageError(f"normgrad cpudebug cc: unknown option {word} (it takes -I, -D, -O, "
                                     f"-std=, --soc, -o, -v)\n{USAGE}")
        else:
            args.sources.append(word)
            i += 1
    if args.soc not in SOCS:
        raise CpuDebugUsageError(f"normgrad cpudebug cc: --soc {args.soc}: front end B builds "
                                 f"{' and '.join(SOCS)} (dav-c220 and dav-c100)")
    if not args.sources:
        raise CpuDebugUsageError(f"normgrad cpudebug cc: no source file\n{USAGE}")
    if not args.output:
        raise CpuDebugUsageError(f"normgrad cpudebug cc: no -o EXE\n{USAGE}")
    missing = [s for s in args.sources if not Path(s).is_file()]
    if missing:
        raise CpuDebugUsageError(f"normgrad cpudebug cc: no such source file: {', '.join(missing)}")
    return args


def load_config(soc: str) -> dict[str, Any]:
    """Front end B's compile and link configuration for soc (normgrad_cpudebug_<soc>.json beside its
    runner); FrontEndError naming what is missing and how to build it."""
    status, text = _native.cann_readiness(soc)
    if status != front_end.CANN_READY:
        raise FrontEndError(text)
    path = Path(text).parent / f"normgrad_cpudebug_{soc}.json"
    if not path.is_file():
        raise FrontEndError(f"front end B's build in {path.parent} has no {path.name} (a build older than "
                            f"`normgrad cpudebug`); rebuild it with ./build.sh --cann-cpu")
    config = json.loads(path.read_text())
    absent = [p for p in [config["force_include"], *config["whole_archives"], *config["archives"]]
              if not Path(p).is_file()]
    if absent:
        raise FrontEndError(f"{path} names files that do not exist: {', '.join(absent)}; rebuild front end B "
                            f"with ./build.sh --cann-cpu")
    return config


def check_defines(args: CcArgs, config: dict[str, Any]) -> None:
    """Refuses a -D that would hide a failed launch or change front end B's own configuration."""
    own = {d.split("=", 1)[0] for d in config["defines"]}
    for define in args.defines:
        name = define.split("=", 1)[0]
        if name == NPUCHK_OFF:
            raise CpuDebugUsageError(f"normgrad cpudebug cc: -D{define} switches off the launch hooks that "
                                     f"report a failed core: the program could not fail on a broken rule")
        if name in own:
            raise CpuDebugUsageError(f"normgrad cpudebug cc: -D{define}: front end B sets {name} itself "
                                     f"({', '.join(sorted(own))})")


def command(args: CcArgs, config: dict[str, Any]) -> list[str]:
    """The compiler command: the user's flags and sources, front end B's configuration (its include
    directories as system ones, after the user's), the model's prelude force-included, the libraries."""
    return [
        config["cxx"], args.std, args.optimize, *config["options"],
        *(f"-I{d}" for d in args.include_dirs), *(f"-D{d}" for d in args.defines),
        *(f"-isystem{d}" for d in config["include_dirs"]), *(f"-D{d}" for d in config["defines"]),
        "-include", config["force_include"],
        *args.sources, "-o", args.output,
        "-Wl,--whole-archive", *config["whole_archives"], "-Wl,--no-whole-archive",
        "-Wl,--start-group", *config["archives"], "-Wl,--end-group", *config["system_libs"],
    ]


def cmd_cc(argv: Sequence[str]) -> int:
    """Runs `normgrad cpudebug cc`; returns the compiler's exit status."""
    args = parse_cc_args(argv)
    config = load_config(args.soc)
    check_defines(args, config)
    cmd = command(args, config)
    if args.verbose:
        print(shlex.join(cmd), file=sys.stderr)
    return subprocess.run(cmd, check=False).returncode
