"""`normgrad npu build | env | test`: the CANN custom operator package from the command line (docs/npu.md).

Part of the `normgrad` command (cli.py adds it) and runnable alone, with the standard library only:
`./build.sh --npu` runs `python3 -m normgrad.npu_cli build ...`. Exit status: 0 success, 1 something
missing or failed, 2 a usage error, 141 stdout closed (closed_stdout.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from normgrad import npu_package
from normgrad.closed_stdout import run_until_stdout_closes
from normgrad.npu_package import NpuError

SOURCE_HELP = ("normgrad's source tree, which the package is built from (default: the tree this normgrad "
               "runs from, else the current directory or a parent)")


def cmd_build(args: argparse.Namespace) -> int:
    npu_package.build(args.soc, args.install, args.install_path, args.source, os.environ)
    return 0


def cmd_env(args: argparse.Namespace) -> int:
    for line in npu_package.env_lines(npu_package.vendor_dir(args.dir)):
        print(line)
    return 0


def cmd_test(args: argparse.Namespace) -> int:
    return npu_package.run_device_tests(args.source, args.pytest_args, os.environ)


Command = Callable[[argparse.Namespace], int]


def _reporting(name: str, command: Command) -> Command:
    """command, with a missing piece or a failure said on stderr as `normgrad npu NAME: ...`."""
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except NpuError as err:
            print(f"normgrad npu {name}: {err}", file=sys.stderr)
            return err.status
    return run


def add_commands(parser: argparse.ArgumentParser) -> None:
    """The build, env and test subcommands, under parser (`normgrad npu`)."""
    commands = parser.add_subparsers(dest="npu_command", required=True, metavar="{build,env,test}")

    build = commands.add_parser(
        "build", help="build the CANN custom operator package (needs CANN: ASCEND_HOME_PATH)",
        description="Builds build/npu/custom_opp_<os>_<arch>.run (vendor normgrad) in the source tree for "
                    "one SoC family with CANN's operator-project build, after checking, all at once, that "
                    "CANN, the tools and the sources are there.")
    build.add_argument("--soc", required=True,
                       help="the SoC family, one that an operator's definition lists (ascend910b, ...; "
                            "another is refused, naming them)")
    where = build.add_mutually_exclusive_group()
    where.add_argument("--install", action="store_true",
                       help="then install it where CANN's installer puts it by default: the directory "
                            "ASCEND_CUSTOM_OPP_PATH names, else the CANN tree ($ASCEND_OPP_PATH)")
    where.add_argument("--install-path", type=Path, metavar="DIR",
                       help="then install it into DIR/vendors/normgrad (no root needed)")
    build.add_argument("--source", type=Path, metavar="DIR", help=SOURCE_HELP)
    build.set_defaults(func=_reporting("build", cmd_build))

    env = commands.add_parser(
        "env", help="print the shell lines that make programs use an installed package",
        description='Prints the export lines for ASCEND_CUSTOM_OPP_PATH and LD_LIBRARY_PATH; use them with '
                    'eval "$(normgrad npu env DIR)".')
    env.add_argument("dir", type=Path, metavar="DIR",
                     help="where the package is installed: the --install-path directory, $ASCEND_OPP_PATH "
                          "after --install, or the vendors/normgrad directory itself")
    env.set_defaults(func=_reporting("env", cmd_env))

    test = commands.add_parser(
        "test", help="run the device tests (pytest -m npu tests/npu) on an Ascend NPU",
        description="Runs pytest -m npu on the source tree's tests/npu with this Python, after checking that "
                    "CANN, an NPU, torch_npu, the installed package's environment and pytest are there.")
    test.add_argument("--source", type=Path, metavar="DIR", help=SOURCE_HELP)
    test.add_argument("pytest_args", nargs="*", metavar="PYTEST_ARG",
                      help="more pytest arguments, after --: normgrad npu test -- -k group_norm -x")
    test.set_defaults(func=_reporting("test", cmd_test))


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`normgrad npu`, as a command of the normgrad command line."""
    npu = sub.add_parser("npu", help="build, install and test the CANN custom operator package (Atlas)",
                         description="The CANN custom operator package: build, env, test (docs/npu.md).")
    add_commands(npu)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m normgrad.npu_cli COMMAND ...`: what ./build.sh --npu runs."""
    parser = argparse.ArgumentParser(prog="normgrad npu", description=__doc__.splitlines()[0])
    add_commands(parser)

    def run() -> int:
        args = parser.parse_args(argv)
        return int(args.func(args))

    return run_until_stdout_closes(run)


if __name__ == "__main__":
    sys.exit(main())
