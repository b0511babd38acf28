"""Regression tests for what a new user and a hostile caller found, one test per fault:
each asserts the documented error (naming the argument) or the documented behaviour."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import normgrad
from normgrad import _native, cli
from normgrad.errors import AclnnError, SocError

ROOT = Path(__file__).resolve().parents[2]
MiB = 1 << 20


def _load_setup_py():
    spec = importlib.util.spec_from_file_location("normgrad_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # runs no setup(): that is under __name__ == "__main__"
    return module


def _write_cache(build_dir: Path, generator: str, make_program: str) -> None:
    build_dir.mkdir(parents=True, exist_ok=True)
    (build_dir / "CMakeCache.txt").write_text(
        f"CMAKE_MAKE_PROGRAM:FILEPATH={make_program}\nCMAKE_GENERATOR:INTERNAL={generator}\n")


def test_pip_reinstall_keeps_a_cache_that_names_a_deleted_build_envs_ninja(tmp_path):
    # The configure step passes this build's ninja, so the cache of the last pip build (whose
    # isolated environment is gone) is reused; only another generator forces a fresh start.
    setup = _load_setup_py()
    ninja = tmp_path / "bin" / "ninja"
    ninja.parent.mkdir()
    ninja.write_text("")
    gone = "/tmp/pip-build-env-deleted/overlay/bin/ninja"
    _write_cache(tmp_path / "a", "Ninja", gone)
    assert setup.stale_cache_reason(tmp_path / "a", "Ninja", str(ninja)) == ""
    assert "no longer exists" in setup.stale_cache_reason(tmp_path / "a", None, None)
    _write_cache(tmp_path / "b", "Unix Makefiles", "/usr/bin/make")
    assert "generator" in setup.stale_cache_reason(tmp_path / "b", "Ninja", str(ninja))
    _write_cache(tmp_path / "c", "Ninja", str(ninja))
    assert setup.stale_cache_reason(tmp_path / "c", "Ninja", str(ninja)) == ""
    assert setup.stale_cache_reason(tmp_path / "none", "Ninja", str(ninja)) == ""


@pytest.fixture
def malloc_sizes(monkeypatch):
    """Every aclrtMalloc size the Python layer asks for during the test."""
    sizes: list[int] = []
    real = _native.library.malloc

    def record(nbytes: int) -> int:
        sizes.append(nbytes)
        return real(nbytes)

    monkeypatch.setattr(_native.library, "malloc", record)
    return sizes


@pytest.mark.parametrize("length", [2**28, 2**31])
def test_layer_norm_wrong_normalized_shape_is_rejected_before_any_large_allocation(malloc_sizes, length):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 16)).astype(np.float32)
    stats = np.zeros((4, 1), np.float32)
    with pytest.raises(AclnnError) as info:
        normgrad.layer_norm_backward(x, x, [length], stats, stats)
    assert info.value.status == 161002 and "normalizedShape" in info.value.message
    assert max(malloc_sizes) < MiB  # only the inputs (256 bytes each) were copied


def test_group_norm_wrong_c_without_gamma_is_rejected_before_any_large_allocation(malloc_sizes):
    x = np.zeros((2, 4, 3), np.float32)
    stats = np.zeros((2, 2), np.float32)
    with pytest.raises(AclnnError) as info:
        normgrad.group_norm_backward(x, x, stats, stats, None, 2, 2**30, 3, 2)
    assert info.value.status == 161002
    assert max(malloc_sizes) < MiB


def test_check_on_ascend910_of_batch_norm_elemt_alone_runs_nothing_and_says_why(capsys):
    # every case is skipped there: a usage error naming the reason, not "0 of 0 cases passed"
    assert cli.main(["check", "--soc", "ascend910", "--op", "batch_norm_elemt_grad"]) == 2
    captured = capsys.readouterr()
    served = "ascend910b, ascend910_93, ascend950"
    assert f"BatchNormElemtGrad does not serve ascend910 (it runs on {served})" in captured.err
    assert "ERROR" not in captured.out and "cases passed" not in captured.out


def _group_norm_inputs(seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 8, 16)).astype(np.float32)
    mean = x.reshape(2, 4, -1).mean(-1).astype(np.float32)
    rstd = (1 / np.sqrt(x.reshape(2, 4, -1).var(-1) + 1e-5)).astype(np.float32)
    return x, mean, rstd


def test_threads_in_their_own_soc_blocks_run_on_their_own_soc():
    socs = ["ascend910b", "ascend910"]
    start = threading.Barrier(len(socs))
    seen: dict[str, list[set[str]]] = {s: [] for s in socs}
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            x, mean, rstd = _group_norm_inputs(0)
            with normgrad.soc(name):
                start.wait()
                for _ in range(6):
                    normgrad.group_norm_backward(x, x, mean, rstd, None, 2, 8, 16, 4)
                    seen[name].append({launch["soc"] for launch in _native.last_run()})
                    assert _native.get_soc() == name
        except BaseException as err:  # noqa: BLE001 - re-raised in the main thread
            errors.append(err)

    threads = [threading.Thread(target=work, args=(name,)) for name in socs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for name in socs:
        assert seen[name] == [{name}] * 6  # every call of the thread, and only its own launches
    assert _native.get_soc() not in ("",)  # the main thread still has its profile


def test_soc_block_in_one_thread_leaves_the_process_default_alone():
    before = _native.get_soc()
    other = next(n for n in _native.soc_names() if n != before)
    inside: list[str] = []

    def work() -> None:
        with normgrad.soc(other):
            inside.append(_native.get_soc())

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert inside == [other] and _native.get_soc() == before


def test_group_norm_size_products_past_int64_name_the_arguments():
    x, mean, rstd = _group_norm_inputs(0)
    with pytest.raises(AclnnError) as info:
        normgrad.group_norm_backward(x, x, mean, rstd, None, 2**40, 2**20, 2**10, 4)
    assert info.value.status == 161002
    assert "N * C * HxW overflows int64 (N = 1099511627776, C = 1048576, HxW = 1024)" in info.value.message
    with pytest.raises(OverflowError, match="N = 18446744073709551616 does not fit in int64"):
        normgrad.group_norm_backward(x, x, mean, rstd, None, 2**64, 8, 16, 4)


def _broadcast(numel: int, dtype=np.float32) -> _native.DeviceTensor:
    """A [1, 1, numel] view of a single element (stride 0), as a hostile C caller can make."""
    one = np.zeros(1, dtype)
    return _native.DeviceTensor((1, 1, numel), dtype, (0, 0, 0), 0, (1,), host_storage=one)


def test_group_norm_huge_hxw_of_a_zero_stride_view_is_a_size_error_not_the_tiling():
    hw = 9 + 2**60
    with _broadcast(hw) as dy, _broadcast(hw) as x, _native.tensor(np.zeros((1, 1), np.float32)) as mean, \
            _native.tensor(np.ones((1, 1), np.float32)) as rstd, _native.empty((1, 1, 1), np.float32) as dx, \
            _native.bool_array([True, False, False]) as mask:
        args = (dy, x, mean, rstd, None, 1, 1, hw, 1, mask, dx, None, None)
        with pytest.raises(AclnnError) as info:
            _native.call_aclnn("aclnnGroupNormBackward", *args)
    assert info.value.status == 161002
    assert "gradOut [1, 1, 1152921504606846985] has 1152921504606846985 elements" in info.value.message
    assert "internal" not in info.value.message


def test_group_norm_too_long_rows_name_hxw_not_an_internal_error():
    hw = 2**30  # 4 GiB per row in float32: past what the tiling can cut on this SoC
    with _broadcast(hw) as dy, _broadcast(hw) as x, _native.tensor(np.zeros((1, 1), np.float32)) as mean, \
            _native.tensor(np.ones((1, 1), np.float32)) as rstd, \
            _native.tensor(np.ones(1, np.float32)) as g, _native.empty((1,), np.float32) as dg, \
            _native.bool_array([False, True, False]) as mask:
        args = (dy, x, mean, rstd, g, 1, 1, hw, 1, mask, None, dg, None)
        with pytest.raises(AclnnError) as info:
            _native.call_aclnn("aclnnGroupNormBackward", *args)
    assert info.value.status == 161002
    assert "HxW = 1073741824" in info.value.message and "HxW is too large for this SoC" in info.value.message
    assert "internal" not in info.value.message


def _batch_norm_args(counter: np.ndarray):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 8)).astype(np.float32)
    c = np.ones(3, np.float32)
    return (x, x, c * 0, c, c, c, c, counter)


def test_batch_norm_elemt_on_ascend910_says_the_soc_is_not_served():
    with normgrad.soc("ascend910"), pytest.raises(AclnnError) as info:
        normgrad.batch_norm_elemt_backward(*_batch_norm_args(np.array([32], np.int32)))
    assert info.value.status == 161002
    assert "SoC ascend910 is not served" in info.value.message and "DataCopyPad" in info.value.message


def test_batch_norm_elemt_serves_every_chip_of_a_served_family_and_no_chip_of_another():
    with normgrad.soc("Ascend910_9362"):  # an A3 chip of 40 cores
        dx = normgrad.batch_norm_elemt_backward(*_batch_norm_args(np.array([32], np.int32)))
    assert dx.shape == (4, 3, 8)
    with normgrad.soc("Ascend910ProA"), pytest.raises(AclnnError) as info:
        normgrad.batch_norm_elemt_backward(*_batch_norm_args(np.array([32], np.int32)))
    assert "SoC Ascend910ProA (ascend910) is not served" in info.value.message
    assert "runs on ascend910b, ascend910_93, ascend950 " in info.value.message
    with normgrad.soc("Ascend950DT_9581"):  # a 950DT chip of 64 cores
        dx = normgrad.batch_norm_elemt_backward(*_batch_norm_args(np.array([32], np.int32)))
    assert dx.shape == (4, 3, 8)


def test_group_norm_on_the_inference_series_says_the_soc_is_not_served():
    # aclnnGroupNormBackward's page lists no Atlas inference series: its OpDef leaves ascend310p out.
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 6)).astype(np.float32)
    stats = np.zeros((2, 2), np.float32)
    for soc, label in (("ascend310p", "SoC ascend310p is"),
                       ("Ascend310P1", "SoC Ascend310P1 (ascend310p) is")):
        with normgrad.soc(soc), pytest.raises(AclnnError) as info:
            normgrad.group_norm_backward(x, x, stats, stats + 1, np.ones(4, np.float32), 2, 4, 6, 2)
        assert info.value.status == 161002
        assert f"{label} not served: this operator runs on ascend910b" in info.value.message


def test_layer_norm_serves_every_chip_of_the_inference_series():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 40)).astype(np.float16)
    stats = np.zeros((5, 1), np.float32)
    for soc in ("ascend310p", "Ascend310P1", "Ascend310P5", "Ascend310P7"):
        with normgrad.soc(soc):
            dx, _, _ = normgrad.layer_norm_backward(x, x, [40], stats, stats + 1, np.ones(40, np.float16))
        assert dx.shape == (5, 40)


@pytest.mark.parametrize(("counter", "why"), [
    (np.array([5, -3], np.int32), "counter[1] is -3; counts must be finite and >= 0"),
    (np.array([np.nan], np.float32), "counter[0] is nan"),
    (np.array([0, 0], np.int32), "counter [2] sums to 0"),
    (np.zeros(0, np.int32), "counter [0] sums to 0"),
])
def test_batch_norm_elemt_bad_counts_are_errors_naming_counter(counter, why):
    with pytest.raises(AclnnError) as info:
        normgrad.batch_norm_elemt_backward(*_batch_norm_args(counter))
    assert info.value.status == 161002 and why in info.value.message


def test_batch_norm_elemt_zero_count_on_one_rank_is_fine():
    dx = normgrad.batch_norm_elemt_backward(*_batch_norm_args(np.array([0, 32], np.int32)))
    assert np.isfinite(dx).all()


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "normgrad", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def test_unknown_normgrad_soc_is_a_usage_error_naming_the_profiles():
    done = _cli("info", env={"NORMGRAD_SOC": "bogus"})
    assert done.returncode == 2
    assert "NORMGRAD_SOC=bogus is not a SoC profile; expected one of ascend910b, ascend910_93, ascend910" \
        in done.stderr


def test_unknown_normgrad_soc_raises_soc_error_in_python(monkeypatch):
    monkeypatch.setenv("NORMGRAD_SOC", "bogus")
    with pytest.raises(SocError, match="NORMGRAD_SOC=bogus"):
        _native.library._check_soc_env(_native.load())


def test_bench_plot_with_an_unknown_suffix_is_a_usage_error_before_running(monkeypatch, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="--plot needs the optional extra: pip install 'normgrad[plot]'")
    from normgrad import bench

    def refuse(*args, **kwargs):
        raise AssertionError("the bench ran before --plot was validated")

    # every name the bench runs through, as cli imports it (a name it no longer has fails here)
    monkeypatch.setattr(bench, "run_bench", refuse)
    monkeypatch.setattr(cli, "run_bench_what_if", refuse)
    assert cli.main(["bench", "--plot", str(tmp_path / "x.foo")]) == 2
    assert "'.foo' is not one matplotlib writes" in capsys.readouterr().err
    assert cli.main(["bench", "--plot", str(tmp_path / "missing" / "x.png")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_int_array_and_call_arguments_refuse_values_past_int64():
    with pytest.raises(OverflowError, match="element 0 = 18446744073709551616"):
        _native.int_array([2**64])
    with pytest.raises(OverflowError, match="argument 0"):
        _native._c_arg("aclnnX", 0, 2**63)


def test_bench_plot_writes_one_figure_per_operator(tmp_path):
    pytest.importorskip("matplotlib", reason="--plot needs the optional extra: pip install 'normgrad[plot]'")
    from normgrad import plot
    from normgrad.bench import BenchRow

    rows = [BenchRow(op, f"c{i}", "float16", "[1]", soc, "ok", roofline_pct=50.0 + i, traffic_ratio=1.1)
            for op in ("group_norm_grad", "layer_norm_grad") for i in range(3)
            for soc in ("ascend910b", "ascend910")]
    written = plot.plot_bench(rows, tmp_path / "bench.png")
    assert written == [tmp_path / "bench-group_norm_grad.png", tmp_path / "bench-layer_norm_grad.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written)
