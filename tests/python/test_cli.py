"""The normgrad command line: info, and the check/bench machinery driven by an injected fake case module.

The fake operator "fake_op" copies its input through a device tensor (so check really goes through
the library), and bench reads a launch report the test writes (so every figure is known by hand).
"""

from __future__ import annotations

import csv
import io
import re
import sys
import types

import ml_dtypes
import numpy as np
import pytest

import normgrad
from normgrad import _native, cases, cli, plot
from normgrad.bench import BenchRow, ceiling_pct, run_bench, run_bench_what_if, skip_reason
from normgrad.cases import batch_norm_elemt_grad
from normgrad.cases.base import Case, Tolerance
from normgrad.check import case_rng, run_case
from normgrad.errors import AclnnError
from normgrad.progress import Progress
from normgrad.report import table

EXACT = Tolerance(0.0, 0.0, "a device copy changes no bit")
MB18 = 18_000_000  # 10 us at 1.8 TB/s (ascend910b peak), 15 us at 1.2 TB/s (ascend910 peak)


def _inputs(dtype):
    return lambda rng: {"x": rng.standard_normal((3, 4)).astype(dtype)}


def _copy(inputs):
    with _native.tensor(inputs["x"]) as t:
        return [t.numpy()]


def _golden(inputs):
    return [inputs["x"].astype(np.float64)]


def _raise(status):
    def run(inputs):
        raise AclnnError("aclnnFakeGetWorkspaceSize", status, "aclnnFake: x has 2 dims, expected 4")
    return run


def fake_case(name, dtype="float32", run=_copy, quick=True):
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    return Case(op="fake_op", name=name, dtype=dtype, shape="[3, 4]", make_inputs=_inputs(np_dtype), run=run,
                golden=_golden, tolerance=EXACT, min_bytes=MB18, output_names=("dx",), quick=quick)


CHECK_CASES = [
    fake_case("copy"),
    fake_case("off_by_one", "float16", run=lambda inputs: [inputs["x"] + np.float16(1)]),
    fake_case("rejected", "bfloat16", run=_raise(161002)),
    fake_case("slow_copy", quick=False),
]
BENCH_CASES = [
    fake_case("copy"),
    fake_case("copy", "bfloat16"),
    fake_case("rejected", run=_raise(161002)),
    fake_case("faulty", run=_raise(561000)),
]
# Two launches: 15 + 5 us (4 of them in SyncAll), 3.0e7 DMA bytes of which 3e6 re-reads the L2
# serves, so 2.7e7 HBM bytes; load balance weighted (0.8 * 15 + 1.0 * 5) / 20 = 0.85.
LAUNCHES = [
    {"kernel": "fake_main", "blockDim": 48, "ok": True, "error": "", "totalUs": 15.0, "syncUs": 2.0,
     "bytesIn": 21_000_000, "l2HitBytes": 3_000_000, "bytesOut": 8_000_000, "loadBalance": 0.8},
    {"kernel": "fake_final", "blockDim": 1, "ok": True, "error": "", "totalUs": 5.0, "syncUs": 2.0,
     "bytesIn": 500_000, "bytesOut": 500_000, "loadBalance": 1.0},
]


@pytest.fixture
def fake_op(monkeypatch):
    module = types.ModuleType("normgrad.cases.fake_op")
    module.check_cases = lambda: list(CHECK_CASES)
    module.bench_cases = lambda: list(BENCH_CASES)
    monkeypatch.setitem(sys.modules, "normgrad.cases.fake_op", module)
    monkeypatch.setattr(cases, "OPERATOR_MODULES", ("fake_op",))
    monkeypatch.setattr(_native, "last_run", lambda: [dict(launch) for launch in LAUNCHES])
    return module


# ---- info ---------------------------------------------------------------------------------------

def test_info_shows_version_library_profiles_and_self_check(capsys):
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"normgrad {normgrad.__version__}\n")
    assert f"library: {_native.library_path()}" in out
    for name in ("ascend910b", "ascend910_93", "ascend910", "ascend950"):
        assert f"\n{name} " in out
    # Each chip with its family and its own figures (docs/soc-profiles.md).
    assert re.search(r"\nascend910b +ascend910b +Ascend910B1 +48 +192 +1\.85 +192 ", out)
    assert re.search(r"\nAscend910B4 +ascend910b +Ascend910B4 +40 +192 +1\.50 +96 ", out)
    assert re.search(r"\nAscend910B +ascend910 +Ascend910B +30 +256 +0\.90 +32 ", out)
    assert re.search(r"\nascend950 +ascend950 +Ascend950PR_9599 +72 +248 +1\.80 +128 +1\.33 +1\.60 ", out)
    assert re.search(r"\nAscend950DT_9581 +ascend950 +Ascend950DT_9581 +64 +248 +1\.65 +128 +3\.33 +4\.00 ",
                     out)
    assert "self-check: passed" in out


def test_info_without_library_fails_with_the_build_hint(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(_native.library, "_lib", None)
    monkeypatch.setenv("NORMGRAD_LIBRARY", str(tmp_path / "missing.so"))
    assert cli.main(["info"]) == 1
    assert "build.sh" in capsys.readouterr().err


def test_info_fails_when_the_self_check_fails(monkeypatch, capsys):
    monkeypatch.setattr(_native, "self_check", lambda: (False, "ReduceSum: core 3 got 7, want 8"))
    assert cli.main(["info"]) == 1
    assert "self-check: FAILED: ReduceSum: core 3 got 7, want 8" in capsys.readouterr().out


# ---- check --------------------------------------------------------------------------------------

def test_check_and_bench_without_case_modules_fail_saying_none_are_registered(monkeypatch, capsys):
    monkeypatch.setattr(cases, "OPERATOR_MODULES", ("no_such_operator_module",))
    for command in ("check", "bench"):
        assert cli.main([command]) == 1  # nothing was checked: not a success
        assert f"normgrad {command}: no cases are registered" in capsys.readouterr().err


def test_check_whose_every_selected_case_is_skipped_fails_with_the_reason(fake_op, capsys):
    # before: "0 of 0 cases passed", exit 0
    assert cli.main(["check", "--soc", "ascend910", "--dtype", "bfloat16"]) == 2
    captured = capsys.readouterr()
    assert "normgrad check: none of the 1 cases selected runs on ascend910: ascend910 has no bfloat16 " \
        "(1 case)" in captured.err
    assert "cases passed" not in captured.out


def test_op_help_lists_the_operators(capsys):
    for command in ("check", "bench"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
        assert "group_norm_grad, layer_norm_grad, batch_norm_elemt_grad" in help_text


def test_check_reports_each_output_and_fails_on_any_failure(fake_op, capsys):
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    lines = {line.split()[1]: line for line in out.splitlines() if line.startswith("fake_op")}
    assert lines["copy"].split()[-1] == "ok" and "slow_copy" not in lines
    assert lines["off_by_one"].split()[-1] == "FAIL"
    assert lines["rejected"].split()[-1] == "ERROR"
    assert "FAIL fake_op/off_by_one float16 [3, 4]: 12 of 12 elements out of tolerance" in out
    assert "FAIL fake_op/rejected bfloat16 [3, 4]: AclnnError: aclnnFakeGetWorkspaceSize returned 161002" \
        in out
    assert out.rstrip().endswith("1 of 3 cases passed")


def test_check_copy_has_zero_error(fake_op, capsys):
    assert cli.main(["check", "--dtype", "float32"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("fake_op"))
    assert row.split()[-7:] == ["dx", "0", "0", "0", "0", "0.00", "ok"]


def test_check_full_adds_the_slow_cases(fake_op, capsys):
    assert cli.main(["check", "--full", "--dtype", "float32"]) == 0
    assert "2 of 2 cases passed" in capsys.readouterr().out


def test_check_unknown_op_is_a_usage_error_listing_the_operators(fake_op, capsys):
    assert cli.main(["check", "--op", "group_norm"]) == 2
    assert "--op group_norm has no cases; registered operators: fake_op" in capsys.readouterr().err


def test_check_on_another_soc_restores_the_current_one(fake_op, capsys):
    before = _native.get_soc()
    other = next(name for name in _native.soc_names() if name != before)
    assert cli.main(["check", "--dtype", "float32", "--soc", other]) == 0
    assert f"on {other}" in capsys.readouterr().out
    assert _native.get_soc() == before


def test_check_runs_on_a_chip_by_name(fake_op, capsys):
    assert cli.main(["check", "--dtype", "float32", "--soc", "Ascend910ProB"]) == 0
    assert "cases on Ascend910ProB" in capsys.readouterr().out


def test_check_skips_bfloat16_cases_on_a_soc_without_bfloat16(fake_op, capsys):
    assert cli.main(["check", "--soc", "ascend910"]) == 1  # off_by_one still fails there
    out = capsys.readouterr().out
    assert "skipped 1 case: ascend910 has no bfloat16" in out
    assert not any(line.startswith("fake_op") and "bfloat16" in line for line in out.splitlines())
    assert out.rstrip().endswith("1 of 2 cases passed")


def test_case_inputs_depend_only_on_the_case_and_seed():
    a, b = fake_case("a"), fake_case("b")
    first = a.make_inputs(case_rng(a, 0))["x"]
    b.make_inputs(case_rng(b, 0))
    assert np.array_equal(a.make_inputs(case_rng(a, 0))["x"], first)
    assert not np.array_equal(a.make_inputs(case_rng(a, 1))["x"], first)


def test_case_with_wrong_output_count_is_an_error():
    case = fake_case("two_outputs", run=lambda inputs: [inputs["x"], inputs["x"]])
    result = run_case(case)
    assert not result.ok and "1 output names ['dx'] but run returned 2 outputs and golden 1" in result.error


# ---- bench --------------------------------------------------------------------------------------

def _profile(name):
    return next(p for p in _native.socs() if p["name"] == name)


def _bench_rows(path):
    with open(path, newline="") as f:
        return {(r["case"], r["dtype"], r["soc"]): r for r in csv.DictReader(f)}


def test_bench_figures_from_the_launch_report(fake_op, tmp_path, capsys):
    path = tmp_path / "bench.csv"
    assert cli.main(["bench", "--soc", "ascend910b", "--soc", "ascend910", "--csv", str(path)]) == 1
    rows = _bench_rows(path)
    b = rows[("copy", "float32", "ascend910b")]
    assert b["status"] == "ok" and float(b["modeled_us"]) == 20.0
    assert float(b["roofline_pct"]) == pytest.approx(50.0)  # 10 us roofline / 20 us
    assert float(b["traffic_ratio"]) == pytest.approx(1.5)  # 2.7e7 HBM bytes / 1.8e7
    assert float(b["load_balance"]) == pytest.approx(0.85)
    assert float(b["sync_us"]) == pytest.approx(4.0)
    assert (b["block_dim"], b["launches"], b["bytes_moved"]) == ("48+1", "2", "27000000")
    assert float(rows[("copy", "float32", "ascend910")]["roofline_pct"]) == pytest.approx(75.0)
    out = capsys.readouterr().out
    assert "fake_op  copy      float32" in out and "50.0" in out


def test_bench_ceiling_is_a_perfect_stream_under_the_profile_constants(fake_op, tmp_path, capsys):
    path = tmp_path / "bench.csv"
    cli.main(["bench", "--soc", "ascend910b", "--soc", "ascend910", "--csv", str(path)])
    rows = _bench_rows(path)
    for soc in ("ascend910b", "ascend910"):
        p = _profile(soc)
        # One launch moving exactly min_bytes at sustained bandwidth, against min_bytes at peak.
        roofline_us = MB18 / (p["hbmPeakTBs"] * 1e6)
        best_us = p["launchUs"] + MB18 / (p["hbmSustainedTBs"] * 1e6)
        ceiling = float(rows[("copy", "float32", soc)]["ceiling_pct"])
        assert ceiling == pytest.approx(100 * roofline_us / best_us)
    # By hand on ascend910b (5 us launch, 1.5 TB/s sustained, 1.8 TB/s peak): 10 us / (5 + 12) us.
    assert float(rows[("copy", "float32", "ascend910b")]["ceiling_pct"]) == pytest.approx(100 * 10 / 17)
    assert rows[("copy", "bfloat16", "ascend910")]["ceiling_pct"] == ""  # skipped: did not run
    out = capsys.readouterr().out
    assert "% roofline  ceiling %  traffic" in out
    # time, SyncAll, % roofline, ceiling, traffic
    assert re.search(r"ascend910b +20\.0 +4 +50\.0 +58\.8 +1\.50 ", out)


def test_bench_ceiling_stays_below_sustained_over_peak():
    for p in _native.socs():
        limit = 100 * p["hbmSustainedTBs"] / p["hbmPeakTBs"]  # 83.3 % on ascend910b
        assert ceiling_pct(10**6, p) < ceiling_pct(10**9, p) < ceiling_pct(10**13, p) < limit < 100
        assert ceiling_pct(10**13, p) == pytest.approx(limit, abs=0.1)


def test_bench_ceiling_bounds_a_batch_norm_elemt_stream():
    case = next(c for c in batch_norm_elemt_grad.bench_cases()
                if c.name == "resnet-50 stage 1 N=4" and c.dtype == "float32")
    p = _profile("ascend910b")
    row = run_bench(case, p)
    assert row.status == "ok" and row.roofline_pct is not None
    assert row.ceiling_pct == pytest.approx(ceiling_pct(case.min_bytes, p)) and row.ceiling_pct < 100
    # Every byte is charged now, the scalar reads of the per-channel statistics included (through
    # the DCache model, docs/sim.md): the kernel moves at least min_bytes, so no kernel beats a
    # perfect stream of them.
    assert row.bytes_moved >= case.min_bytes
    assert row.roofline_pct <= row.ceiling_pct


def test_bench_skips_what_a_profile_cannot_run_and_fails_on_faults(fake_op, tmp_path, capsys):
    path = tmp_path / "bench.csv"
    assert cli.main(["bench", "--soc", "ascend910b", "--soc", "ascend910", "--csv", str(path)]) == 1
    rows = _bench_rows(path)
    skipped = rows[("copy", "bfloat16", "ascend910")]
    assert skipped["status"] == "skipped" and skipped["note"] == "ascend910 has no bfloat16"
    assert rows[("copy", "bfloat16", "ascend910b")]["status"] == "ok"
    assert rows[("rejected", "float32", "ascend910b")]["status"] == "skipped"
    assert "x has 2 dims, expected 4" in rows[("rejected", "float32", "ascend910b")]["note"]
    assert rows[("faulty", "float32", "ascend910")]["status"] == "failed"
    out = capsys.readouterr().out
    assert "skipped fake_op/copy bfloat16 on ascend910: ascend910 has no bfloat16" in out
    assert ("failed 2 runs (fake_op/faulty float32 on ascend910b, fake_op/faulty float32 on ascend910): "
            "aclnnFakeGetWorkspaceSize returned 561000") in out


def test_bench_refuses_a_launch_report_from_another_soc(fake_op, monkeypatch, tmp_path):
    monkeypatch.setattr(_native, "last_run", lambda: [dict(LAUNCHES[0], soc="ascend910_93")])
    path = tmp_path / "bench.csv"
    cli.main(["bench", "--soc", "ascend910b", "--csv", str(path)])
    row = _bench_rows(path)[("copy", "float32", "ascend910b")]
    assert row["status"] == "failed" and row["modeled_us"] == ""
    assert row["note"] == "the call launched no kernel (the launch report is from ascend910_93)"


def test_bench_defaults_to_every_family(fake_op, tmp_path):
    path = tmp_path / "bench.csv"
    cli.main(["bench", "--csv", str(path)])
    families = {p["family"] for p in _native.socs()}
    assert {"ascend910b", "ascend910_93", "ascend910", "ascend310p", "ascend950"} <= families
    assert {soc for _, _, soc in _bench_rows(path)} == families


def test_bench_runs_a_chip_by_name(fake_op, tmp_path):
    path = tmp_path / "bench.csv"
    cli.main(["bench", "--soc", "Ascend910B3", "--csv", str(path)])
    assert {soc for _, _, soc in _bench_rows(path)} == {"Ascend910B3"}


def test_an_operator_serves_every_chip_of_the_families_it_lists():
    case = next(c for c in batch_norm_elemt_grad.bench_cases() if c.dtype == "float32")
    assert skip_reason(case, _profile("Ascend910B3")) is None
    assert skip_reason(case, _profile("Ascend910_9362")) is None
    assert skip_reason(case, _profile("Ascend950DT_9581")) is None
    served = "ascend910b, ascend910_93, ascend950"
    assert skip_reason(case, _profile("Ascend910ProA")) == \
        f"BatchNormElemtGrad does not serve Ascend910ProA (ascend910) (it runs on {served})"


def test_every_case_marked_rejected_on_a_family_is_rejected_there_and_skipped():
    """Case.rejected_on is a claim about the family's kernel: it must still reject the call (161002), so
    a mark cannot outlive the limit it names and hide a case the SoC has learnt to run."""
    marked = [(c, family) for c in cases.check_cases() + cases.bench_cases() for family in c.rejected_on]
    assert marked, "no case is marked (the LayerNorm 1e6-element float32 row on ascend910 should be)"
    for case, family in marked:
        assert skip_reason(case, _profile(family)).startswith(f"{family} rejects it: ")
        with normgrad.soc(family), pytest.raises(AclnnError) as err:
            case.run(case.make_inputs(case_rng(case, 0)))
        assert err.value.status == 161002, f"{case.op}/{case.name} {case.dtype} on {family}: {err.value}"


def test_bench_what_if_core_cap_runs_the_case_again_on_fewer_cores():
    case = next(c for c in batch_norm_elemt_grad.bench_cases()
                if c.name == "resnet-50 stage 1 N=4" and c.dtype == "float32")
    base, capped = run_bench_what_if(case, "ascend910b", 0, ["", "aiv_cores=7"])
    assert base.block_dim == "48" and capped.block_dim == "7"
    # 7 cores' GM ports (7 x 59 GB/s) stream less than a third of the 1.5 TB/s the 48 cores reach.
    assert capped.modeled_us > 2 * base.modeled_us
    assert _native.socs()[0]["aivCores"] == 48  # the cap is lifted after the run


def test_bench_unknown_soc_is_a_usage_error(fake_op, capsys):
    assert cli.main(["bench", "--soc", "ascend310"]) == 2
    assert "--soc ascend310 is not a SoC profile" in capsys.readouterr().err


def test_bench_plot_without_matplotlib_says_how_to_install(fake_op, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(plot, "available", lambda: False)
    assert cli.main(["bench", "--plot", str(tmp_path / "b.png")]) == 2
    assert "pip install 'normgrad[plot]'" in capsys.readouterr().err


def test_bench_plot_writes_a_png(fake_op, tmp_path):
    pytest.importorskip("matplotlib", reason="--plot needs the optional extra: pip install 'normgrad[plot]'")
    path = tmp_path / "bench.png"
    cli.main(["bench", "--soc", "ascend910b", "--plot", str(path)])
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_bench_plot_of_many_cases_stays_readable_on_pages(tmp_path):
    # LayerNorm's bench on every SoC: 64 cases x 3 SoCs drew one 1300x3697 px figure
    pytest.importorskip("matplotlib", reason="--plot needs the optional extra: pip install 'normgrad[plot]'")
    socs = ("ascend910b", "ascend910_93", "ascend910")
    rows = [BenchRow("layer_norm_grad", f"ln {i}", "float32", "[1]", soc, "ok", roofline_pct=50.0,
                     traffic_ratio=1.02) for i in range(64) for soc in socs]
    written = plot.plot_bench(rows, tmp_path / "bench.png")
    assert written == [tmp_path / f"bench-{k}.png" for k in range(1, len(written) + 1)] and len(written) > 1
    max_px = plot.MAX_FIGURE_INCHES * plot.DPI
    assert all(_png_size(p)[1] <= max_px for p in written), [_png_size(p) for p in written]
    on_pages = [c for page in plot.pages([f"ln {i} float32" for i in range(64)], len(socs)) for c in page]
    assert on_pages == [f"ln {i} float32" for i in range(64)]  # each case once, in order


def test_bench_plot_labels_skipped_runs_and_starts_the_traffic_axis_near_the_data():
    pytest.importorskip("matplotlib", reason="--plot needs the optional extra: pip install 'normgrad[plot]'")
    plt = plot._pyplot()
    rows = [BenchRow("op", "a", "bfloat16", "[1]", "ascend910b", "ok", roofline_pct=60.0, traffic_ratio=1.04),
            BenchRow("op", "a", "bfloat16", "[1]", "ascend910", "skipped", note="ascend910 has no bfloat16"),
            BenchRow("op", "b", "float32", "[1]", "ascend910b", "ok", roofline_pct=70.0, traffic_ratio=1.01),
            BenchRow("op", "b", "float32", "[1]", "ascend910", "failed", note="561000")]
    fig = plot.figure(plt, "t", rows, ["ascend910b", "ascend910"], plot.panel_limits(rows))
    try:
        roofline, traffic = fig.axes
        for ax in (roofline, traffic):
            assert sorted(t.get_text() for t in ax.texts) == ["ascend910: failed", "ascend910: skipped"]
        assert roofline.get_xlim()[0] == 0.0
        low, high = traffic.get_xlim()
        assert 0.9 < low < 1.0 and 1.04 < high < 1.1  # near the data (1.01 - 1.04), not from 0
    finally:
        plt.close(fig)


# ---- output helpers -----------------------------------------------------------------------------

def test_bench_notes_name_the_first_runs_of_a_shared_reason():
    rows = [BenchRow("op", f"c{i}", "float32", "[1]", "ascend910", "skipped", note="no DataCopyPad")
            for i in range(5)]
    assert cli._bench_notes(rows) == [
        "skipped 5 runs (op/c0 float32 on ascend910, op/c1 float32 on ascend910, op/c2 float32 on ascend910, "
        "and 2 more): no DataCopyPad"]


def test_table_pads_columns_and_right_aligns_numbers():
    assert table(["soc", "cores"], [["ascend910b", 48], ["ascend910", 32]], right=[1]) == (
        "soc         cores\n"
        "----------  -----\n"
        "ascend910b     48\n"
        "ascend910      32")


def test_progress_is_plain_lines_when_not_a_terminal_and_nothing_when_disabled():
    stream = io.StringIO()  # not a terminal, like a pipe or a CI log
    bar = Progress(2, stream)
    bar.step("a")
    bar.step("b")
    bar.close()
    assert stream.getvalue() == "[1/2] a\n[2/2] b\n"
    quiet = io.StringIO()
    Progress(2, quiet, enabled=False).step("a")
    assert quiet.getvalue() == ""


def test_progress_on_a_terminal_is_a_rich_bar_that_erases_itself():
    pytest.importorskip("rich")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    bar = Progress(3, stream)
    assert bar.mode == "bar"
    for label in ("a", "b", "c"):
        bar.step(label)
    bar.close()
    text = stream.getvalue()
    assert "\x1b[" in text and "3/3" in text  # drawn with terminal control codes, up to 3 of 3
    assert "[1/3] a\n" not in text  # not the plain lines


def test_bench_what_if_models_every_case_again_under_other_constants(fake_op, tmp_path, capsys):
    path = tmp_path / "bench.csv"
    cli.main(["bench", "--soc", "ascend910b", "--csv", str(path), "--what-if", "launch_us=3,sync_us=1"])
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["what_if"] for r in rows} == {"", "launch_us=3,sync_us=1"}
    copy = {r["what_if"]: r for r in rows if r["case"] == "copy" and r["dtype"] == "float32"}
    # The ceiling under the what-if constants: 10 us roofline against a 3 us launch + 12 us stream.
    assert float(copy["launch_us=3,sync_us=1"]["ceiling_pct"]) == pytest.approx(100 * 10 / 15)
    assert float(copy[""]["ceiling_pct"]) == pytest.approx(100 * 10 / 17)
    out = capsys.readouterr().out
    assert "constants" in out and "SoC's own" in out
    assert re.search(r"launch_us=3,sync_us=1 on ascend910b: % of ceiling median [0-9.]+, min", out)
    assert _native.socs()[0]["launchUs"] == 5.0  # restored


def test_bench_what_if_with_an_unknown_key_is_a_usage_error(fake_op, capsys):
    assert cli.main(["bench", "--what-if", "launch=3"]) == 2
    assert "--what-if" in capsys.readouterr().err


def test_bench_compare_prices_the_official_model_under_the_same_constants(fake_op, tmp_path, capsys):
    from dataclasses import replace

    from normgrad import official_model

    # A fake BatchNorm elemt case (its launch report is the fake's: 20 us) with a real shape's params.
    case = replace(fake_case("bn"), op="batch_norm_elemt_grad", params={"numel": 2560, "c": 128})
    fake_op.bench_cases = lambda: [case]
    path = tmp_path / "bench.csv"
    assert cli.main(["bench", "--soc", "ascend910b", "--soc", "ascend910", "--compare", "--csv", str(path),
                     "--what-if", "launch_us=3"]) == 0
    with open(path, newline="") as f:
        rows = {(r["soc"], r["what_if"]): r for r in csv.DictReader(f)}
    own = rows[("ascend910b", "")]
    official = official_model.batch_norm_elemt(2560, 128, 4, _profile("ascend910b")).us
    assert float(own["official_us"]) == pytest.approx(official)
    assert float(own["speedup"]) == pytest.approx(official / 20.0)
    assert own["official_launches"] == "10"
    # Under launch_us=3 each of the ten launches costs 2 us less; the fake's report is re-priced
    # by the simulator, which the fake replaces, so only the official side is checked here.
    assert float(rows[("ascend910b", "launch_us=3")]["official_us"]) == pytest.approx(official - 20)
    assert rows[("ascend910", "")]["official_us"] == ""  # no model of the training series' path
    # No ops-nn kernel of this operator runs here: the row says the hand-written model stands in, and why.
    assert own["official_source"] == ("modeled (hand-written official algorithm): no ops-nn kernel of "
                                      "batch_norm_elemt_grad is built into the runner")
    out = capsys.readouterr().out
    assert "official µs" in out and "speed-up" in out and "modeled (hand-written)" in out
    assert re.search(r"compare SoC constants on ascend910b: ours faster in 1 of 1 cases", out)


def test_bench_csv_has_the_comparison_columns_only_with_compare(fake_op, tmp_path):
    path = tmp_path / "bench.csv"
    cli.main(["bench", "--soc", "ascend910b", "--csv", str(path)])
    with open(path, newline="") as f:
        header = next(csv.reader(f))
    assert header[-1] == "what_if" and "official_us" not in header
    cli.main(["bench", "--soc", "ascend910b", "--csv", str(path), "--compare"])
    with open(path, newline="") as f:
        header = next(csv.reader(f))
    assert header[-4:] == ["official_us", "speedup", "official_launches", "official_source"]
