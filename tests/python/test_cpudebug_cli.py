"""`normgrad cpudebug cc`'s command line, without front end B: usage errors (exit 2) and, where B is not
built, one error naming the runner it looked for and how to build it (exit 1). Compiling and running programs
on B: tests/cann_cpu/test_cpudebug_cc.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from normgrad import cli, cpudebug

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [str(ROOT / "examples/cpudebug/scale_add.cpp"), str(ROOT / "examples/cpudebug/scale_add_main.cpp")]


def test_compiler_style_options_parse_glued_and_separate():
    args = cpudebug.parse_cc_args(["--soc", "ascend910", "-Iinc", "-I", "inc2", "-DA=1", "-D", "B", "-O3",
                                   "-std=c++20", *SOURCES, "-o", "exe"])
    assert (args.soc, args.include_dirs, args.defines, args.optimize, args.std, args.output) == \
        ("ascend910", ["inc", "inc2"], ["A=1", "B"], "-O3", "-std=c++20", "exe")
    assert args.sources == SOURCES


@pytest.mark.parametrize(("argv", "message"), [
    (["-o", "exe"], "no source file"),
    ([*SOURCES], "no -o EXE"),
    (["-c", *SOURCES, "-o", "exe"], "unknown option -c"),
    (["--soc", "ascend310p", *SOURCES, "-o", "exe"], "front end B builds ascend910b and ascend910"),
    (["missing.cpp", "-o", "exe"], "no such source file: missing.cpp"),
    (["-I"], "-I needs a value"),
])
def test_usage_errors_exit_2_naming_the_problem(argv, message, capsys):
    assert cli.main(["cpudebug", "cc", *argv]) == 2
    assert message in capsys.readouterr().err


def test_without_front_end_b_one_error_names_the_runner_and_the_build(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("NORMGRAD_CANN_RUNNER_DIR", str(tmp_path))
    assert cli.main(["cpudebug", "cc", *SOURCES, "-o", str(tmp_path / "exe")]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith("normgrad cpudebug cc: front end B is not built: no runner ")
    assert str(tmp_path / "normgrad_cann_run_ascend910b") in err and "./build.sh --cann-cpu" in err
    assert not (tmp_path / "exe").exists()


def test_a_define_that_would_hide_failures_or_change_b_is_refused():
    config = {"defines": ["ASCENDC_CPU_DEBUG=1", "ASCENDC_DEBUG=1", "__NPU_ARCH__=2201"]}
    for define, message in (("ASCENDC_NPUCHK_OFF", "switches off the launch hooks"),
                            ("ASCENDC_DEBUG=0", "front end B sets ASCENDC_DEBUG itself")):
        args = cpudebug.parse_cc_args([f"-D{define}", *SOURCES, "-o", "exe"])
        with pytest.raises(cpudebug.CpuDebugUsageError, match=message):
            cpudebug.check_defines(args, config)


def test_help_lists_cpudebug(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "cpudebug" in capsys.readouterr().out
