"""The `normgrad` command: info, check (correctness against float64 goldens), bench (modeled speed),
npu (the CANN custom operator package: npu_cli.py) and cpudebug cc (a CANN CPU-debug program for
front end B).

docs/cli.md defines every column. Exit status: 0 success, 1 a failure (self-check, a case, the
library), 2 a usage error (unknown --op, --soc or an unavailable --plot), 141 stdout closed before
the output ended (`normgrad info | head -1`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import normgrad
from normgrad import _native, cases, cpp_package, cpudebug, npu_cli, plot
from normgrad._native import front_end
from normgrad.bench import BenchRow, add_official, pct_of_ceiling, run_bench_what_if, skip_reason, write_csv
from normgrad.check import CaseResult, run_case, select
from normgrad.closed_stdout import run_until_stdout_closes
from normgrad.errors import FrontEndError, LibraryNotFoundError, SocError
from normgrad.progress import Progress
from normgrad.report import fixed, sci, table

DTYPES = ("float32", "float16", "bfloat16")
OP_HELP = f"only this operator's cases: {', '.join(cases.OPERATOR_MODULES)}"  # a case module per operator
FRONTEND_HELP = ("where the kernels run: sim, the simulator's Ascend C API (the default, or "
                 "$NORMGRAD_FRONTEND), or cann, CANN's Ascend C implementation on the instruction-level "
                 "model (front end B, built by ./build.sh --cann-cpu; docs/sim.md)")
RULE = ("rule: an element passes when |got - want| <= atol + rtol * |want| (want: the float64 golden); "
        "'worst' is the largest |got - want| / (atol + rtol * |want|) over the elements, <= 1 passes")


class UsageError(Exception):
    """A bad option value found after parsing (exit status 2)."""


def _yes(value: object) -> str:
    return "yes" if value else "no"


def _soc_table(profiles: Sequence[dict]) -> str:
    # A family's row models its default chip (the "chip" column); a chip's row names its family.
    headers = ["name", "family", "chip", "cores", "UB KiB", "GHz", "L2 MiB", "HBM TB/s", "peak TB/s",
               "DataCopyPad", "bf16", "SyncAll"]
    rows = [[p["name"], p["family"], p["socVersion"], p["aivCores"], int(p["ubBytes"]) // 1024,
             f"{p['clockGHz']:.2f}", int(p["l2Bytes"]) // 2**20, f"{p['hbmSustainedTBs']:.2f}",
             f"{p['hbmPeakTBs']:.2f}", _yes(p["hasDataCopyPad"]), _yes(p["hasBf16"]),
             "hard" if p["hasHardSyncAll"] else "soft"] for p in profiles]
    return table(headers, rows, right=range(3, 9))


def _case_summary() -> str:
    check, bench = cases.check_cases(), cases.bench_cases()
    ops = sorted({c.op for c in check} | {c.op for c in bench})
    if not ops:
        return "cases: none registered"
    parts = [f"{op} {sum(c.op == op for c in check)} check ({sum(c.op == op and c.quick for c in check)} "
             f"quick), {sum(c.op == op for c in bench)} bench" for op in ops]
    return "cases: " + "; ".join(parts)


def cmd_info(args: argparse.Namespace) -> int:
    print(f"normgrad {normgrad.__version__}")
    print(f"library: {_native.library_path()}")
    _native.load()
    print(f"current SoC: {_native.get_soc()}")
    print()
    print(_soc_table(_native.socs()))
    print()
    status = 0
    try:
        print(_case_summary())
    except Exception as err:  # noqa: BLE001 - a broken case module is reported, not a crash
        print(f"cases: cannot load the case modules: {type(err).__name__}: {err}")
        status = 1
    passed, message = _native.self_check()
    print(f"self-check: {'passed' if passed else 'FAILED'}{': ' + message if message else ''}")
    return status if passed else 1


def _validate_op(op: str | None, registered: Sequence[cases.Case], command: str) -> None:
    ops = sorted({c.op for c in registered})
    if op is not None and op not in ops:
        raise UsageError(f"normgrad {command}: --op {op} has no cases; registered operators: "
                         f"{', '.join(ops)}")


def _validate_socs(names: Sequence[str], command: str) -> list[dict]:
    """The profiles of names (a family or a chip each); none given: one per family."""
    profiles = {p["name"]: p for p in _native.socs()}
    for name in names:
        if name not in profiles:
            raise UsageError(f"normgrad {command}: --soc {name} is not a SoC profile; "
                             f"expected one of {', '.join(profiles)}")
    if names:
        return [profiles[n] for n in names]
    return [p for p in profiles.values() if p["name"] == p["family"]]


def _front_end(args: argparse.Namespace, command: str, socs: Sequence[str]) -> tuple[str, dict[str, str]]:
    """The run's front end (--frontend, else NORMGRAD_FRONTEND, else sim) and, on front end B, the SoCs
    among socs it has no build for, each with the reason. FrontEndError when front end B is not built
    (the message names the runner, where it was looked for and how to build it)."""
    if args.frontend is not None:
        name = args.frontend
    else:
        try:
            name = _native.selected_front_end()
        except ValueError as err:
            raise UsageError(f"normgrad {command}: {err}") from err
    unsupported: dict[str, str] = {}
    if name == "cann":
        for soc in socs:
            status, text = _native.cann_readiness(soc)
            if status == front_end.CANN_NO_BUILD_FOR_SOC:
                unsupported[soc] = text
            elif status != front_end.CANN_READY:
                raise FrontEndError(text)
    return name, unsupported


def _front_end_label(name: str) -> str:
    return "front end B (CANN's Ascend C)" if name == "cann" else "the simulator's Ascend C API"


def _no_cases(command: str) -> int:
    """A package without case modules has nothing to check or bench: a failure, said as such."""
    modules = ", ".join(f"normgrad.cases.{m}" for m in cases.OPERATOR_MODULES)
    print(f"normgrad {command}: no cases are registered (none of {modules} exists)", file=sys.stderr)
    return 1


def _check_rows(results: Sequence[CaseResult]) -> list[list[str]]:
    rows = []
    for r in results:
        c = r.case
        head = [c.op, c.name, c.dtype, c.shape]
        if r.error:
            tol = [f"{c.tolerance.atol:g}", f"{c.tolerance.rtol:g}"]
            rows.append(head + ["-", "-", "-", *tol, "-", "ERROR"])
        for cmp in r.comparisons:
            rows.append(head + [cmp.output, sci(cmp.max_abs), sci(cmp.max_rel), f"{c.tolerance.atol:g}",
                                f"{c.tolerance.rtol:g}", f"{cmp.worst:.2f}", "ok" if cmp.ok else "FAIL"])
    return rows


def cmd_check(args: argparse.Namespace) -> int:
    registered = cases.check_cases()
    if not registered:
        return _no_cases("check")
    _validate_op(args.op, registered, "check")
    chosen = select([c for c in registered if args.op is None or c.op == args.op], args.dtype, args.full)
    if not chosen:
        raise UsageError(f"normgrad check: no case matches --op {args.op} --dtype {args.dtype}"
                         f"{' --full' if args.full else ''}")
    soc = args.soc or _native.get_soc()
    profile = _validate_socs([soc], "check")[0]
    # A case the chip cannot run at all (an operator that does not serve the SoC, bf16 on a SoC
    # without bf16) is skipped, as in bench.
    reasons: dict[str, int] = {}
    for c in chosen:
        reason = skip_reason(c, profile)
        if reason:
            reasons[reason] = reasons.get(reason, 0) + 1
    runnable = [c for c in chosen if not skip_reason(c, profile)]
    if not runnable:  # "0 of 0 cases passed" would pass a check that checked nothing
        why = "; ".join(f"{reason} ({count} case{'s' if count > 1 else ''})"
                        for reason, count in reasons.items())
        raise UsageError(f"normgrad check: none of the {len(chosen)} cases selected runs on {soc}: {why}")
    chosen = runnable
    front, unsupported = _front_end(args, "check", [soc])
    if unsupported:
        raise FrontEndError(unsupported[soc])
    print(f"normgrad check: {len(chosen)} cases on {soc}, seed {args.seed}, on {_front_end_label(front)}")
    for reason, count in reasons.items():
        print(f"skipped {count} case{'s' if count > 1 else ''}: {reason}")
    print(RULE)
    progress = Progress(len(chosen))
    results = []
    with _native.soc(soc), _native.use_front_end(front):
        for case in chosen:
            progress.step(f"{case.op}/{case.name} {case.dtype}")
            results.append(run_case(case, args.seed))
    progress.close()
    headers = ["op", "case", "dtype", "shape", "output", "max abs err", "max rel err", "atol", "rtol",
               "worst", "result"]
    print(table(headers, _check_rows(results), right=[5, 6, 7, 8, 9]))
    failed = [r for r in results if not r.ok]
    for r in failed:
        c = r.case
        details = [r.error] if r.error else [cmp.detail for cmp in r.comparisons if not cmp.ok]
        for detail in details:
            print(f"FAIL {c.op}/{c.name} {c.dtype} {c.shape}: {detail}")
    print(f"{len(results) - len(failed)} of {len(results)} cases passed")
    return 1 if failed else 0


def _bench_table(rows: Sequence[BenchRow], what_if: bool = False) -> str:
    headers = ["op", "case", "dtype", "shape", "soc", "time µs", "SyncAll µs", "% roofline", "ceiling %",
               "traffic", "balance", "blockDim", "status"]
    body = [[r.op, r.case, r.dtype, r.shape, r.soc, fixed(r.modeled_us, 1), fixed(r.sync_us, 0),
             fixed(r.roofline_pct, 1), fixed(r.ceiling_pct, 1), fixed(r.traffic_ratio, 2),
             fixed(r.load_balance, 2), r.block_dim or "-", r.status] for r in rows]
    if what_if:
        headers.append("constants")
        for line, r in zip(body, rows, strict=True):
            line.append(r.what_if or "SoC's own")
    return table(headers, body, right=[5, 6, 7, 8, 9, 10, 11])


def _what_if_summary(rows: Sequence[BenchRow], specs: Sequence[str]) -> list[str]:
    """Per constant set and SoC: the suite's % of ceiling (median, min, max over the cases that ran)."""
    lines = []
    for spec in specs:
        for soc in dict.fromkeys(r.soc for r in rows):
            values = sorted(v for r in rows if r.what_if == spec and r.soc == soc
                            if (v := pct_of_ceiling(r)) is not None)
            if not values:
                continue
            median = statistics.median(values)
            lines.append(f"{spec or 'SoC constants'} on {soc}: % of ceiling median {median:.1f}, "
                         f"min {values[0]:.1f}, max {values[-1]:.1f} over {len(values)} cases")
    return lines


def _compare_table(rows: Sequence[BenchRow], what_if: bool = False) -> str:
    from normgrad import opsnn  # here, not at the top: keeps this module's import block as it was
    headers = ["op", "case", "dtype", "shape", "soc", "ours µs", "official µs", "speed-up",
               "official launches", "official time", "status"]
    body = [[r.op, r.case, r.dtype, r.shape, r.soc, fixed(r.modeled_us, 1), fixed(r.official_us, 1),
             fixed(r.speedup, 2), "-" if r.official_launches is None else str(r.official_launches),
             opsnn.official_source_label(r.official_source), r.status]
            for r in rows]
    if what_if:
        headers.append("constants")
        for line, r in zip(body, rows, strict=True):
            line.append(r.what_if or "SoC's own")
    return table(headers, body, right=[5, 6, 7, 8])


def _official_notes(rows: Sequence[BenchRow], listed: int = 3) -> list[str]:
    """Why the hand-written model stands in for Huawei's kernel: one line per distinct reason."""
    from normgrad import opsnn  # as in _compare_table
    groups: dict[str, list[str]] = {}
    for r in rows:
        if r.official_source and r.official_source != opsnn.MARK:
            reason = r.official_source.split(": ", 1)[-1]
            groups.setdefault(reason, []).append(f"{r.op}/{r.case} {r.dtype} on {r.soc}")
    return [f"  hand-written model ({len(runs)} rows, e.g. {'; '.join(runs[:listed])}): {reason}"
            for reason, runs in groups.items()]


def _compare_summary(rows: Sequence[BenchRow], specs: Sequence[str]) -> list[str]:
    """Per constant set and SoC: in how many cases ours is faster than the official model, and the
    smallest speed-up with its case, so a reader sees whether the ranking holds across the constants."""
    lines = []
    for spec in specs:
        for soc in dict.fromkeys(r.soc for r in rows):
            runs = [r for r in rows if r.what_if == spec and r.soc == soc and r.speedup is not None]
            if not runs:
                continue
            worst = min(runs, key=lambda r: r.speedup or 0.0)
            faster = sum(1 for r in runs if (r.speedup or 0.0) > 1.0)
            median = statistics.median(r.speedup or 0.0 for r in runs)
            label = spec or "SoC constants"
            lines.append(f"compare {label} on {soc}: ours faster in {faster} of {len(runs)} "
                         f"cases, speed-up median {median:.2f}, min {worst.speedup:.2f} "
                         f"({worst.op}/{worst.case} {worst.dtype})")
    return lines


def _bench_notes(rows: Sequence[BenchRow], listed: int = 3) -> list[str]:
    """One line per distinct (status, reason): a profile that cannot run a whole operator says so
    once, naming the first few cases, instead of once per case (the CSV keeps every row)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        if r.note:
            groups.setdefault((r.status, r.note), []).append(f"{r.op}/{r.case} {r.dtype} on {r.soc}")
    lines = []
    for (status, note), names in groups.items():
        if len(names) == 1:
            lines.append(f"{status} {names[0]}: {note}")
            continue
        more = f", and {len(names) - listed} more" if len(names) > listed else ""
        lines.append(f"{status} {len(names)} runs ({', '.join(names[:listed])}{more}): {note}")
    return lines


def cmd_bench(args: argparse.Namespace) -> int:
    if args.plot is not None:  # before the run, which takes minutes
        problem = plot.check_path(args.plot)
        if problem:
            raise UsageError(f"normgrad bench --plot: {problem}")
    registered = cases.bench_cases()
    if not registered:
        return _no_cases("bench")
    _validate_op(args.op, registered, "bench")
    profiles = _validate_socs(args.soc or [], "bench")
    chosen = [c for c in registered if args.op is None or c.op == args.op]
    specs = [""] + list(args.what_if or [])
    for spec in specs[1:]:
        try:
            _native.set_what_if(spec)
        except ValueError as err:
            raise UsageError(f"normgrad bench --what-if: {err}") from err
        finally:
            _native.set_what_if("")
    front, unsupported = _front_end(args, "bench", [p["name"] for p in profiles])
    print(f"normgrad bench: {len(chosen)} cases on {', '.join(p['name'] for p in profiles)} (modeled times"
          + (f"; {len(specs)} constant sets" if len(specs) > 1 else "") + f"), on {_front_end_label(front)}")
    progress = Progress(len(chosen) * len(profiles))
    rows_by_spec: dict[str, list[BenchRow]] = {spec: [] for spec in specs}
    for case in chosen:
        for profile in profiles:
            progress.step(f"{case.op}/{case.name} {case.dtype} on {profile['name']}")
            if profile["name"] in unsupported:
                for spec in specs:
                    rows_by_spec[spec].append(BenchRow(case.op, case.name, case.dtype, case.shape,
                                                       profile["name"], "skipped",
                                                       note=unsupported[profile["name"]], what_if=spec))
                continue
            with _native.use_front_end(front):
                bench_rows = run_bench_what_if(case, profile["name"], args.seed, specs)
            if args.compare:
                add_official(bench_rows, case, args.seed)
            for row in bench_rows:
                rows_by_spec[row.what_if].append(row)
    progress.close()
    rows = [row for spec in specs for row in rows_by_spec[spec]]
    print(_bench_table(rows, what_if=len(specs) > 1))
    for line in _bench_notes(rows):
        print(line)
    if len(specs) > 1:
        for line in _what_if_summary(rows, specs):
            print(line)
    if args.compare:
        print()
        print("official kernels' algorithm, modeled with the same constants (docs/cli.md, --compare):")
        print(_compare_table(rows, what_if=len(specs) > 1))
        for line in _official_notes(rows):
            print(line)
        for line in _compare_summary(rows, specs):
            print(line)
    if args.csv is not None:
        write_csv(rows, args.csv, compare=args.compare)
        print(f"wrote {args.csv}")
    if args.plot is not None:
        for written in plot.plot_bench(rows, args.plot):
            print(f"wrote {written}")
    return 1 if any(r.status == "failed" for r in rows) else 0


class _PrintDir(argparse.Action):
    """--include-dir / --cmake-dir: prints a directory of the installed C/C++ package and exits, as
    --version does (no command needed); exit 1 with the reason where this normgrad has none."""

    def __init__(self, option_strings: Sequence[str], dest: str, locate: Callable[[], Path], **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.locate = locate

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        try:
            path = self.locate()
        except cpp_package.CppPackageNotFoundError as err:
            parser.exit(1, f"normgrad {option_string}: {err}\n")
        print(path)
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="normgrad", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"normgrad {normgrad.__version__}")
    parser.add_argument("--include-dir", action=_PrintDir, locate=cpp_package.include_dir,
                        help="print the directory of the C/C++ headers (acl/, aclnn/, aclnnop/) and exit")
    parser.add_argument("--cmake-dir", action=_PrintDir, locate=cpp_package.cmake_dir,
                        help="print the directory of normgradConfig.cmake, for -Dnormgrad_DIR, and exit")
    sub = parser.add_subparsers(dest="command", required=True)

    info = sub.add_parser("info", help="version, library, SoC profiles and the simulator self-check")
    info.set_defaults(func=cmd_info)

    check = sub.add_parser("check", help="run the operators' cases and compare with float64 goldens")
    check.add_argument("--op", metavar="NAME", help=OP_HELP)
    check.add_argument("--dtype", choices=DTYPES, help="only cases of this dtype")
    check.add_argument("--full", action="store_true", help="also the slow cases (default: quick ones)")
    check.add_argument("--soc", help="SoC profile to run on: a family (ascend910b) or a chip (Ascend910B3); "
                                     "default: the current one")
    check.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    check.add_argument("--frontend", choices=_native.FRONT_ENDS, help=FRONTEND_HELP)
    check.set_defaults(func=cmd_check)

    bench = sub.add_parser("bench", help="modeled time, %% of HBM roofline and traffic per case and SoC")
    bench.add_argument("--op", metavar="NAME", help=OP_HELP)
    bench.add_argument("--soc", action="append",
                       help="a SoC profile, family or chip (repeatable; default: every family)")
    bench.add_argument("--csv", type=Path, help="also write the rows to this CSV file")
    bench.add_argument("--plot", type=Path, help="also draw a chart to this file (needs matplotlib)")
    bench.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    bench.add_argument("--what-if", action="append", metavar="KEY=V,...",
                       help="also model every case with these constants, e.g. launch_us=3,sync_us=1 "
                            "(repeatable; keys in docs/sim.md)")
    bench.add_argument("--compare", action="store_true",
                       help="also model the official kernels' algorithm per case under the same constants")
    bench.add_argument("--frontend", choices=_native.FRONT_ENDS, help=FRONTEND_HELP)
    bench.set_defaults(func=cmd_bench)

    npu_cli.add_parser(sub)
    # Compiler-style options (-DX=1, -std=c++17): main() hands `cpudebug cc ...` to normgrad.cpudebug.
    debug = sub.add_parser("cpudebug", help="CANN CPU-debug programs on front end B (docs/sim.md)")
    debug_sub = debug.add_subparsers(dest="cpudebug_command", required=True)
    debug_sub.add_parser("cc", help="compile an Ascend C CPU-debug program (kernels + a main using "
                                    "ICPU_RUN_KF) to run on CANN's Ascend C and the instruction-level model",
                         usage=cpudebug.USAGE.removeprefix("usage: "))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_until_stdout_closes(lambda: _run(argv))


def _run(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["cpudebug", "cc"] and not {"-h", "--help"} & set(argv[2:]):
        return _cpudebug_cc(argv[2:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as err:
        print(err, file=sys.stderr)
        return 2
    except LibraryNotFoundError as err:
        print(f"normgrad {args.command}: {err}", file=sys.stderr)
        return 1
    except SocError as err:  # NORMGRAD_SOC names no profile: a usage error of the environment
        print(f"normgrad {args.command}: {err}", file=sys.stderr)
        return 2
    except FrontEndError as err:  # front end B asked for, not built (or not for that SoC)
        print(f"normgrad {args.command} --frontend cann: {err}", file=sys.stderr)
        return 1


def _cpudebug_cc(argv: Sequence[str]) -> int:
    try:
        return cpudebug.cmd_cc(argv)
    except cpudebug.CpuDebugUsageError as err:
        print(err, file=sys.stderr)
        return 2
    except (FrontEndError, LibraryNotFoundError) as err:
        print(f"normgrad cpudebug cc: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
