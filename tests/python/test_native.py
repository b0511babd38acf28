"""normgrad._native: library discovery, device tensors (every dtype, strided views), arrays, errors.

Descriptors are checked through the library's own accessors (aclGetViewShape, ...) and device bytes
through the tensor's raw address, so these tests do not trust _native to read its own work back.
Round trips compare exactly: a copy must not change a single bit.
"""

from __future__ import annotations

import ctypes

import ml_dtypes
import numpy as np
import pytest

from normgrad import _native
from normgrad.errors import AclError, AclnnError, LibraryNotFoundError, SocError

DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.int32, np.int64, np.bool_]
ACL_CODES = {np.float32: 0, np.float16: 1, np.int32: 3, np.int64: 9, np.bool_: 12, ml_dtypes.bfloat16: 27}


def sample(shape: tuple[int, ...], dtype: type, seed: int = 0) -> np.ndarray:
    """Distinct values that survive the dtype exactly (small integers, or random booleans)."""
    rng = np.random.default_rng(seed)
    if dtype is np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    return rng.integers(-100, 100, size=shape).astype(dtype)


# ---- what the library says it received --------------------------------------------------------

def _dims(getter: str, ptr: int) -> list[int]:
    fn = getattr(_native.load(), getter)
    fn.restype = ctypes.c_int32
    i64p = ctypes.POINTER(ctypes.c_int64)
    fn.argtypes = [ctypes.c_void_p, ctypes.POINTER(i64p), ctypes.POINTER(ctypes.c_uint64)]
    out, count = ctypes.POINTER(ctypes.c_int64)(), ctypes.c_uint64()
    assert fn(ptr, ctypes.byref(out), ctypes.byref(count)) == 0
    return [out[i] for i in range(count.value)]  # the new[] array leaks: a few bytes per test


def descriptor(t: _native.DeviceTensor) -> dict:
    lib = _native.load()
    offset, dtype, addr = ctypes.c_int64(), ctypes.c_int(), ctypes.c_void_p()
    for name in ("aclGetViewOffset", "aclGetDataType", "aclGetRawTensorAddr"):
        getattr(lib, name).restype = ctypes.c_int32
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    assert lib.aclGetViewOffset(t.ptr, ctypes.byref(offset)) == 0
    assert lib.aclGetDataType(t.ptr, ctypes.byref(dtype)) == 0
    assert lib.aclGetRawTensorAddr(t.ptr, ctypes.byref(addr)) == 0
    return {"shape": _dims("aclGetViewShape", t.ptr), "strides": _dims("aclGetViewStrides", t.ptr),
            "offset": offset.value, "storage": _dims("aclGetStorageShape", t.ptr), "dtype": dtype.value,
            "addr": addr.value}


def device_bytes(t: _native.DeviceTensor, nbytes: int) -> bytes:
    # The simulator's device memory is host memory: read it directly, not through _native.
    return ctypes.string_at(descriptor(t)["addr"], nbytes)


# ---- library discovery --------------------------------------------------------------------------

def test_missing_env_library_names_the_variable_and_the_fix(monkeypatch, tmp_path):
    monkeypatch.setattr(_native.library, "_lib", None)
    monkeypatch.setenv("NORMGRAD_LIBRARY", str(tmp_path / "nope.so"))
    with pytest.raises(LibraryNotFoundError, match=r"NORMGRAD_LIBRARY=.*nope\.so: no such file.*build\.sh"):
        _native.load()


def test_without_env_or_packaged_library_says_how_to_build(monkeypatch, tmp_path):
    monkeypatch.setattr(_native.library, "_lib", None)
    monkeypatch.delenv("NORMGRAD_LIBRARY", raising=False)
    monkeypatch.setattr(_native.library, "PACKAGED_LIBRARY", tmp_path / "lib" / "libnormgrad.so")
    with pytest.raises(LibraryNotFoundError) as err:
        _native.load()
    assert "pip install ." in str(err.value) and "NORMGRAD_LIBRARY" in str(err.value)


def test_packaged_library_is_used_when_env_is_unset(monkeypatch, tmp_path):
    packaged = tmp_path / "libnormgrad.so"
    packaged.write_bytes(b"")
    monkeypatch.delenv("NORMGRAD_LIBRARY", raising=False)
    monkeypatch.setattr(_native.library, "PACKAGED_LIBRARY", packaged)
    assert _native.library_path() == packaged


def test_a_file_that_is_not_a_library_is_reported(monkeypatch, tmp_path):
    bogus = tmp_path / "libnormgrad.so"
    bogus.write_text("not an ELF file")
    monkeypatch.setattr(_native.library, "_lib", None)
    monkeypatch.setenv("NORMGRAD_LIBRARY", str(bogus))
    with pytest.raises(LibraryNotFoundError, match="cannot load"):
        _native.load()


def test_library_loads_once():
    assert _native.load() is _native.load()


# ---- device tensors -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_contiguous_round_trip_is_exact(dtype):
    host = sample((3, 5, 7), dtype)
    with _native.tensor(host) as t:
        d = descriptor(t)
        assert (d["shape"], d["strides"], d["offset"], d["storage"]) == ([3, 5, 7], [35, 7, 1], 0, [3, 5, 7])
        assert d["dtype"] == ACL_CODES[dtype]
        assert device_bytes(t, host.nbytes) == host.tobytes()
        back = t.numpy()
    assert back.dtype == host.dtype and back.shape == host.shape
    assert back.tobytes() == host.tobytes()


# (view of a (4, 6) base, expected element strides, expected element offset) worked out by hand.
VIEWS = {
    "rows_from_1_every_2nd_col": (lambda b: b[1:, ::2], [6, 2], 6),
    "transpose": (lambda b: b.T, [1, 6], 0),
    "inner_block": (lambda b: b[1:3, 2:5], [6, 1], 8),
    "column": (lambda b: b[:, 4], [6], 4),
    "new_axis_and_step": (lambda b: b[::3, None, 1::2], [18, 0, 2], 1),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_strided_view_is_a_strided_tensor_over_the_base_storage(dtype, view):
    base = sample((4, 6), dtype, seed=1)
    make, strides, offset = VIEWS[view]
    host = make(base)
    assert not host.flags.c_contiguous
    with _native.tensor(host) as t:
        d = descriptor(t)
        assert (d["shape"], d["strides"], d["offset"]) == (list(host.shape), strides, offset)
        assert d["storage"] == [4, 6]
        assert device_bytes(t, base.nbytes) == base.tobytes()
        assert t.storage().tobytes() == base.tobytes()
        back = t.numpy()
    assert back.shape == host.shape and back.flags.c_contiguous
    assert back.tobytes() == np.ascontiguousarray(host).tobytes()


def test_view_of_a_reshaped_base_uses_the_root_storage():
    root = np.arange(24, dtype=np.float32)
    host = root.reshape(4, 6)[:, 1:3]
    with _native.tensor(host) as t:
        d = descriptor(t)
        assert (d["strides"], d["offset"], d["storage"]) == ([6, 1], 1, [24])
        assert np.array_equal(t.numpy(), host)


def test_broadcast_view_has_zero_strides():
    host = np.broadcast_to(np.arange(3, dtype=np.int64), (4, 3))
    with _native.tensor(host) as t:
        d = descriptor(t)
        assert (d["strides"], d["storage"]) == ([0, 1], [3])
        assert np.array_equal(t.numpy(), host)


def test_negative_strides_become_a_contiguous_copy():
    host = np.arange(12, dtype=np.float32)[::-2]
    with _native.tensor(host) as t:
        d = descriptor(t)
        assert (d["shape"], d["strides"], d["offset"], d["storage"]) == ([6], [1], 0, [6])
        assert t.numpy().tolist() == [11, 9, 7, 5, 3, 1]


def test_zero_dim_and_empty_arrays_keep_their_shape():
    with _native.tensor(np.array(2.5, dtype=np.float16)) as t:
        assert descriptor(t)["shape"] == [] and t.numpy().shape == () and float(t.numpy()) == 2.5
    with _native.tensor(np.zeros((0, 3), dtype=np.float32)) as t:
        assert descriptor(t)["shape"] == [0, 3] and t.numpy().shape == (0, 3)


def test_empty_output_is_poisoned_so_unwritten_elements_show():
    with _native.empty((2, 3), np.float32) as t:
        d = descriptor(t)
        assert (d["shape"], d["strides"], d["storage"]) == ([2, 3], [3, 1], [2, 3])
        assert np.isnan(t.numpy()).all()
    with _native.empty([4], "int32") as t:
        assert t.numpy().tolist() == [-1, -1, -1, -1]
    with _native.empty((2,), "bfloat16", poison=False) as t:
        assert t.numpy().dtype == np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_take_hands_over_the_device_memory_and_closes_the_tensor(dtype):
    host = sample((3, 5), dtype, seed=2)
    t = _native.tensor(host)
    data = t._data
    taken = t.take()
    # The array is the device memory itself: no copy; it outlives the closed tensor.
    assert taken.ctypes.data == data and taken.shape == (3, 5) and taken.dtype == host.dtype
    with pytest.raises(ValueError, match="used after close"):
        t.ptr  # noqa: B018
    t.close()  # closing again frees nothing twice
    assert taken.tobytes() == host.tobytes()
    # A second device block is not the one the array still holds.
    with _native.tensor(host) as other:
        assert other._data != data
    del taken  # frees the device block; the next allocation of its size may reuse it
    with _native.tensor(host) as again:
        assert again.numpy().tobytes() == host.tobytes()


def test_take_of_a_strided_view_is_a_copy_of_the_view():
    base = sample((4, 6), np.float32, seed=3)
    t = _native.tensor(base[:, 1:3])
    taken = t.take()
    assert taken.flags.c_contiguous and taken.tobytes() == np.ascontiguousarray(base[:, 1:3]).tobytes()
    with pytest.raises(ValueError, match="used after close"):
        t.ptr  # noqa: B018


def test_closed_tensor_refuses_use_and_closes_twice():
    t = _native.tensor(np.ones(4, dtype=np.float32))
    t.close()
    t.close()
    with pytest.raises(ValueError, match="used after close"):
        t.ptr  # noqa: B018


def test_unsupported_inputs_are_type_errors():
    with pytest.raises(TypeError, match="dtype float64 is not supported"):
        _native.tensor(np.ones(3))
    with pytest.raises(TypeError, match="expected a numpy.ndarray"):
        _native.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="negative dimension"):
        _native.empty((2, -1), np.float32)


def test_an_impossible_tensor_is_reported_with_the_library_message():
    storage = np.zeros(4, dtype=np.float32)
    with pytest.raises(AclError, match=r"aclCreateTensor returned NULL: .*outside the storage"):
        _native.DeviceTensor((4,), np.float32, (1,), 2, (4,), host_storage=storage)


# ---- aclIntArray / aclBoolArray -----------------------------------------------------------------

def _array_size(getter: str, ptr: int) -> int:
    fn = getattr(_native.load(), getter)
    fn.restype = ctypes.c_int32
    fn.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)]
    size = ctypes.c_uint64()
    assert fn(ptr, ctypes.byref(size)) == 0
    return size.value


def test_bool_and_int_arrays_reach_the_library():
    with _native.bool_array([True, False, np.bool_(True)]) as mask, \
            _native.int_array([2, np.int64(320)]) as dims:
        assert _array_size("aclGetBoolArraySize", mask.ptr) == 3
        assert _array_size("aclGetIntArraySize", dims.ptr) == 2
        assert mask.values == (True, False, True) and dims.values == (2, 320)
    with pytest.raises(ValueError, match="used after close"):
        mask.ptr  # noqa: B018


def test_array_elements_of_the_wrong_type_are_named():
    with pytest.raises(TypeError, match=r"bool_array: element 1 is 1 \(int\)"):
        _native.bool_array([True, 1])
    with pytest.raises(TypeError, match=r"int_array: element 0 is True \(bool\)"):
        _native.int_array([True, 2])
    with pytest.raises(TypeError, match=r"int_array: element 1 is 2.0 \(float\)"):
        _native.int_array([1, 2.0])


# ---- aclnn calls and the simulator --------------------------------------------------------------

def test_call_aclnn_of_an_unknown_api_names_it():
    with pytest.raises(ValueError, match="no function aclnnNoSuchOpGetWorkspaceSize"):
        _native.call_aclnn("aclnnNoSuchOp")


def test_call_aclnn_rejects_an_argument_it_cannot_pass():
    with pytest.raises(TypeError, match=r"argument 1 is a str"):
        _native._c_arg("aclnnX", 1, "dy")
    assert isinstance(_native._c_arg("aclnnX", 0, 7), ctypes.c_int64)
    assert isinstance(_native._c_arg("aclnnX", 0, True), ctypes.c_bool)
    assert _native._c_arg("aclnnX", 0, None).value is None


def test_unknown_soc_is_a_value_error_listing_the_profiles():
    with pytest.raises(ValueError, match=r"unknown SoC 'ascend999'; expected one of .*ascend910b"):
        _native.set_soc("ascend999")


def test_soc_context_switches_and_restores():
    before = _native.get_soc()
    other = next(name for name in _native.soc_names() if name != before)
    with _native.soc(other):
        assert _native.get_soc() == other
    assert _native.get_soc() == before


def test_socs_describe_the_families_and_their_chips():
    profiles = {p["name"]: p for p in _native.socs()}
    families = [p["name"] for p in _native.socs() if p["name"] == p["family"]]
    assert families[:5] == ["ascend910b", "ascend910_93", "ascend910", "ascend310p", "ascend950"]
    assert profiles["ascend910b"]["aivCores"] == 48 and profiles["ascend910"]["aivCores"] == 32
    assert profiles["ascend910"]["hasBf16"] is False
    assert profiles["ascend310p"]["socVersion"] == "Ascend310P3" and profiles["ascend310p"]["aivCores"] == 8
    assert profiles["ascend310p"]["hasBf16"] is False and profiles["ascend310p"]["hasDataCopyPad"] is False
    assert profiles["ascend950"]["aivCores"] == 72 and profiles["ascend950"]["ubBytes"] == 253952
    # A family is its default chip under the family's name (docs/soc-profiles.md).
    for name in families:
        chip = profiles[profiles[name]["socVersion"]]
        assert {k: v for k, v in chip.items() if k != "name"} == \
            {k: v for k, v in profiles[name].items() if k != "name"}
    assert profiles["Ascend910B3"]["family"] == "ascend910b" and profiles["Ascend910B3"]["aivCores"] == 40
    assert profiles["Ascend910B"]["family"] == "ascend910"  # CANN's training-series chip of that name


def test_a_chip_is_chosen_by_name_like_a_family():
    with _native.soc("Ascend910B4"):
        assert _native.get_soc() == "Ascend910B4"
    with pytest.raises(SocError, match="Ascend910B3"):  # the message lists the chips
        _native.set_soc("ascend910b3")


def test_self_check_passes():
    passed, message = _native.self_check()
    assert passed, message


# ---- call_aclnn end to end, through aclnnGroupNormBackward --------------------------------------
# With mean = 0 and rstd = 1 and small integer inputs, dbeta[c] = sum(dy[:, c, :]) and
# dgamma[c] = sum(dy[:, c, :] * x[:, c, :]) are exact in float32 whatever the summation order.

def _group_norm_call(dy, x, gamma, n, c, hw, g, outputs):
    mean = np.zeros((n, g), np.float32)
    rstd = np.ones((n, g), np.float32)
    with _native.tensor(dy) as dy_t, _native.tensor(x) as x_t, _native.tensor(mean) as mean_t, \
            _native.tensor(rstd) as rstd_t, _native.tensor(gamma) as gamma_t, \
            _native.bool_array([True, True, True]) as mask:
        _native.call_aclnn("aclnnGroupNormBackward", dy_t, x_t, mean_t, rstd_t, gamma_t, n, c, hw, g, mask,
                           *outputs)
        return [t.numpy() for t in outputs]


def test_call_aclnn_runs_both_phases_on_strided_inputs():
    n, c, hw, g = 2, 32, 8, 8
    rng = np.random.default_rng(7)
    wide = rng.integers(-4, 5, size=(n, c, 2 * hw)).astype(np.float32)
    dy = wide[:, :, ::2]  # a strided view: the executor gathers it
    x = rng.integers(-4, 5, size=(n, c, hw)).astype(np.float32)
    gamma = np.ones(c, np.float32)
    with _native.empty(x.shape, np.float32) as dx_t, _native.empty((c,), np.float32) as dgamma_t, \
            _native.empty((c,), np.float32) as dbeta_t:
        dx, dgamma, dbeta = _group_norm_call(dy, x, gamma, n, c, hw, g, [dx_t, dgamma_t, dbeta_t])
        launches = _native.last_run()
        again = _group_norm_call(dy, x, gamma, n, c, hw, g, [dx_t, dgamma_t, dbeta_t])
    assert np.array_equal(dbeta, dy.sum(axis=(0, 2)))
    assert np.array_equal(dgamma, (dy * x).sum(axis=(0, 2)))
    assert np.isfinite(dx).all()
    assert all(np.array_equal(a, b) for a, b in zip([dx, dgamma, dbeta], again, strict=True))  # deterministic
    assert launches and all(launch["ok"] and launch["blockDim"] >= 1 for launch in launches)
    assert {"kernel", "totalUs", "bytesIn", "bytesOut", "loadBalance"} <= set(launches[0])


def test_call_aclnn_scatters_into_a_strided_output_and_leaves_the_gaps():
    n, c, hw, g = 1, 16, 8, 4
    rng = np.random.default_rng(3)
    dy = rng.integers(-4, 5, size=(n, c, hw)).astype(np.float32)
    x = rng.integers(-4, 5, size=(n, c, hw)).astype(np.float32)
    gamma = np.ones(c, np.float32)
    out_base = np.full((n, c, 2 * hw), 7.0, np.float32)
    with _native.empty(x.shape, np.float32) as dx_t, _native.tensor(out_base[:, :, 1::2]) as dx_view_t, \
            _native.empty((c,), np.float32) as dgamma_t, _native.empty((c,), np.float32) as dbeta_t:
        (dx, _, _) = _group_norm_call(dy, x, gamma, n, c, hw, g, [dx_t, dgamma_t, dbeta_t])
        (dx_strided, _, _) = _group_norm_call(dy, x, gamma, n, c, hw, g, [dx_view_t, dgamma_t, dbeta_t])
        storage = dx_view_t.storage()
    assert np.array_equal(dx_strided, dx)
    assert (storage[:, :, ::2] == 7.0).all()


def test_call_aclnn_maps_a_rejected_argument_to_aclnn_error():
    n, c, hw, g = 2, 32, 4, 8
    x = np.zeros((n, c, hw), np.float32)
    with _native.empty(x.shape, np.float32) as dx_t, _native.empty((c,), np.float32) as dgamma_t, \
            _native.empty((c,), np.float32) as dbeta_t:
        with pytest.raises(AclnnError) as err:
            _group_norm_call(x, x, np.ones(30, np.float32), n, c, hw, g, [dx_t, dgamma_t, dbeta_t])
    assert err.value.status == 161002 and err.value.api == "aclnnGroupNormBackwardGetWorkspaceSize"
    assert "gamma" in err.value.message and "30" in err.value.message and "32" in err.value.message


def test_call_aclnn_maps_a_null_tensor_to_status_161001():
    with pytest.raises(AclnnError) as err:
        _native.call_aclnn("aclnnGroupNormBackward", None, None, None, None, None, 1, 1, 1, 1, None,
                           None, None, None)
    assert err.value.status == 161001 and "gradOut is null" in err.value.message


def test_last_run_reports_ub_peak_barriers_and_l2_hits_per_core():
    n, c, hw, g = 2, 32, 64, 8
    rng = np.random.default_rng(5)
    dy, x = (rng.integers(-4, 5, size=(n, c, hw)).astype(np.float32) for _ in range(2))
    with _native.empty(x.shape, np.float32) as dx_t, _native.empty((c,), np.float32) as dgamma_t, \
            _native.empty((c,), np.float32) as dbeta_t:
        _group_norm_call(dy, x, np.ones(c, np.float32), n, c, hw, g, [dx_t, dgamma_t, dbeta_t])
    launches = _native.last_run()
    assert launches
    for launch in launches:
        peaks = [core["ubPeakBytes"] for core in launch["cores"]]
        assert launch["ubPeakBytes"] == max(peaks) > 0
        assert all(p % 32 == 0 and p <= 192 * 1024 for p in peaks)  # InitBuffer rounds to 32 bytes
        assert 0 <= launch["l2HitBytes"] <= launch["bytesIn"]
        busy = [core for core in launch["cores"] if core["coreUs"] > 0]
        assert all(core["refills"] == 1 + core["drains"] for core in busy)
        assert all(core["drains"] <= core["fullBarriers"] + core["syncAll"] for core in busy)


def test_what_if_constants_rerun_the_model_and_restore_after():
    n, c, hw, g = 2, 32, 64, 8
    rng = np.random.default_rng(6)
    dy, x = (rng.integers(-4, 5, size=(n, c, hw)).astype(np.float32) for _ in range(2))

    def run():
        with _native.empty(x.shape, np.float32) as dx_t, _native.empty((c,), np.float32) as dgamma_t, \
                _native.empty((c,), np.float32) as dbeta_t:
            _group_norm_call(dy, x, np.ones(c, np.float32), n, c, hw, g, [dx_t, dgamma_t, dbeta_t])
        return _native.last_run()

    with _native.soc("ascend910b"):
        base = run()
        with _native.what_if("launch_us=3,sync_us=1"):
            assert next(p for p in _native.socs() if p["name"] == "ascend910b")["launchUs"] == 3.0
            other = run()
        assert next(p for p in _native.socs() if p["name"] == "ascend910b")["launchUs"] == 5.0
    assert len(base) == len(other)
    for a, b in zip(base, other, strict=True):
        assert b["launchUs"] == 3.0 and a["launchUs"] == 5.0
        assert b["syncUs"] == pytest.approx(a["syncUs"] / 2)  # 1 us instead of 2 per SyncAll
        assert b["totalUs"] == pytest.approx(a["totalUs"] - 2.0 - a["syncUs"] / 2)
    with pytest.raises(ValueError, match="launch_us"):
        _native.set_what_if("launch=3")
    with pytest.raises(ValueError, match="non-negative"):
        _native.set_what_if("sync_us=-1")
