"""Finds and loads libnormgrad.so and binds its C API; the only module of normgrad that uses ctypes.

What the operator modules use (names are stable):

    from contextlib import ExitStack
    from normgrad import _native

    with ExitStack() as stack:
        dy_t = stack.enter_context(_native.tensor(dy))             # NumPy -> device (views too)
        dx_t = stack.enter_context(_native.empty(dy.shape, dy.dtype))
        mask = stack.enter_context(_native.bool_array([True, True, True]))
        _native.call_aclnn("aclnnGroupNormBackward", dy_t, ..., n, c, hw, g, mask, dx_t, ...)
        dx = dx_t.take()  # the output's device memory as an array (numpy() would copy it)
    _native.last_run()  # the kernel launches of that call, with modeled timing

The ACL runtime (aclInit, device 0, one stream) starts on first use and stops at interpreter exit.

SoC selection is context-local: `with soc(name)` sets a contextvars.ContextVar, and every call into
the library first hands the calling context's choice to the C side as the thread's own SoC
(normgradSimSetThreadSoc), so threads (and asyncio tasks) in different `soc()` blocks do not see
each other's profile. The launch reports last_run() reads are per thread as well. set_soc() changes
the process-wide default that code outside any `soc()` block runs on.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import ctypes
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Self

import ml_dtypes
import numpy as np

from normgrad.errors import AclError, AclnnError, LibraryNotFoundError, SocError

LIBRARY_ENV = "NORMGRAD_LIBRARY"
SOC_ENV = "NORMGRAD_SOC"
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
PACKAGED_LIBRARY = Path(__file__).resolve().parent / "lib" / "libnormgrad.so"

# acl/acl_base.h values.
_MEMCPY_HOST_TO_DEVICE = 1
_MEMCPY_DEVICE_TO_HOST = 2
_MEM_MALLOC_HUGE_FIRST = 0
_FORMAT_ND = 2
_ERROR_REPEAT_INITIALIZE = 100002

# NumPy dtype -> aclDataType. bfloat16 is ml_dtypes' type, the one NumPy users have.
ACL_DTYPES: dict[np.dtype, int] = {
    np.dtype(np.float32): 0,  # ACL_FLOAT
    np.dtype(np.float16): 1,  # ACL_FLOAT16
    np.dtype(np.int32): 3,  # ACL_INT32
    np.dtype(np.int64): 9,  # ACL_INT64
    np.dtype(np.bool_): 12,  # ACL_BOOL
    np.dtype(ml_dtypes.bfloat16): 27,  # ACL_BF16
}

_i64p = ctypes.POINTER(ctypes.c_int64)
_vp = ctypes.c_void_p
_int = ctypes.c_int
_size = ctypes.c_size_t
_str = ctypes.c_char_p
# name: (restype, argtypes). acl/acl.h (CANN's names) and normgrad_sim.h.
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "aclInit": (_int, [_str]),
    "aclFinalize": (_int, []),
    "aclrtSetDevice": (_int, [ctypes.c_int32]),
    "aclrtResetDevice": (_int, [ctypes.c_int32]),
    "aclrtCreateStream": (_int, [ctypes.POINTER(_vp)]),
    "aclrtDestroyStream": (_int, [_vp]),
    "aclrtSynchronizeStream": (_int, [_vp]),
    "aclrtMalloc": (_int, [ctypes.POINTER(_vp), _size, _int]),
    "aclrtFree": (_int, [_vp]),
    "aclrtMemcpy": (_int, [_vp, _size, _vp, _size, _int]),
    "aclrtMemset": (_int, [_vp, _size, ctypes.c_int32, _size]),
    "aclCreateTensor": (_vp, [_i64p, ctypes.c_uint64, _int, _i64p, ctypes.c_int64, _int, _i64p,
                              ctypes.c_uint64, _vp]),
    "aclDestroyTensor": (_int, [_vp]),
    "aclCreateBoolArray": (_vp, [ctypes.POINTER(ctypes.c_bool), ctypes.c_uint64]),
    "aclDestroyBoolArray": (_int, [_vp]),
    "aclCreateIntArray": (_vp, [_i64p, ctypes.c_uint64]),
    "aclDestroyIntArray": (_int, [_vp]),
    "aclGetRecentErrMsg": (_str, []),
    "normgradSimSetSoc": (_int, [_str]),
    "normgradSimSetThreadSoc": (_int, [_str]),
    "normgradSimGetSoc": (_str, []),
    "normgradSimSocsJson": (_str, []),
    "normgradSimSetCostOverrides": (_int, [_str]),
    "normgradSimMallocFrom": (_int, [ctypes.POINTER(_vp), _vp, _size]),
    "normgradSimLastRunJson": (_str, []),
    "normgradSimSelfCheck": (_int, [ctypes.c_char_p, _size]),
    "normgradGraphOpsJson": (_str, []),
    "normgradOpDefsJson": (_str, []),
}

_lock = threading.RLock()
_lib: ctypes.CDLL | None = None
_stream: int | None = None  # aclrtStream once the runtime is up
_runtime_alive = False


def library_path() -> Path:
    """The library to load: $NORMGRAD_LIBRARY if set, else normgrad/lib/libnormgrad.so in the package."""
    env = os.environ.get(LIBRARY_ENV)
    if env:
        path = Path(env)
        if not path.is_file():
            raise LibraryNotFoundError(
                f"{LIBRARY_ENV}={env}: no such file; build it with ./build.sh "
                f"(writes build/sim/libnormgrad.so) or unset {LIBRARY_ENV} to use the installed package's"
            )
        return path
    if PACKAGED_LIBRARY.is_file():
        return PACKAGED_LIBRARY
    raise LibraryNotFoundError(
        f"libnormgrad.so not found: {LIBRARY_ENV} is not set and {PACKAGED_LIBRARY} does not exist. "
        f"Either `pip install .` in the normgrad source tree (it builds and ships the library), or build "
        f"it with ./build.sh and set {LIBRARY_ENV}=$PWD/build/sim/libnormgrad.so"
    )


def load() -> ctypes.CDLL:
    """The loaded library with every function declared; loaded once per process."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        path = library_path()
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as err:
            raise LibraryNotFoundError(f"cannot load {path}: {err}; rebuild it with ./build.sh") from err
        for name, (restype, argtypes) in _SIGNATURES.items():
            try:
                fn = getattr(lib, name)
            except AttributeError:
                # Fail when used, not when loaded: the rest of the library stays usable.
                setattr(lib, name, _missing(path, name))
                continue
            fn.restype = restype
            fn.argtypes = argtypes
        _check_soc_env(lib)
        _lib = lib
        return lib


def _check_soc_env(lib: ctypes.CDLL) -> None:
    # The library falls back to the default for a name it does not know; a typo must not pass
    # silently for a run on another chip than the one asked for.
    name = os.environ.get(SOC_ENV)
    if not name:
        return
    known = _soc_names_of(lib)
    if name not in known:
        raise SocError(f"{SOC_ENV}={name} is not a SoC profile; expected one of {', '.join(known)} "
                       f"(or unset it for the default, {known[0]})")


def _missing(path: Path, name: str) -> Any:
    def call(*args: Any) -> Any:
        raise LibraryNotFoundError(f"{path} has no function {name}; rebuild it with ./build.sh")

    return call


def recent_error() -> str:
    """aclGetRecentErrMsg(): the message of the latest failed call ('' when none)."""
    msg = load().aclGetRecentErrMsg()
    return msg.decode(errors="replace") if msg else ""


def _check(api: str, status: int) -> None:
    if status != 0:
        raise AclError(api, status, recent_error())


def stream() -> int:
    """The process's aclrtStream, starting the runtime (aclInit, aclrtSetDevice(0)) on first use."""
    global _stream, _runtime_alive
    with _lock:
        if _stream is not None:
            return _stream
        lib = load()
        status = lib.aclInit(None)
        if status not in (0, _ERROR_REPEAT_INITIALIZE):
            _check("aclInit", status)
        _check("aclrtSetDevice", lib.aclrtSetDevice(0))
        handle = _vp()
        _check("aclrtCreateStream", lib.aclrtCreateStream(ctypes.byref(handle)))
        _stream = handle.value or 0
        _runtime_alive = True
        atexit.register(_shutdown)
        return _stream


def _shutdown() -> None:
    # Objects still open at exit must not free into a finalized runtime (see DeviceTensor.__del__).
    global _stream, _runtime_alive
    with _lock:
        if _stream is None or _lib is None:
            return
        _runtime_alive = False
        _lib.aclrtDestroyStream(_stream)
        _lib.aclrtResetDevice(0)
        _lib.aclFinalize()
        _stream = None


def _malloc(nbytes: int) -> int:
    ptr = _vp()
    _check("aclrtMalloc", load().aclrtMalloc(ctypes.byref(ptr), nbytes, _MEM_MALLOC_HUGE_FIRST))
    return ptr.value or 0


def _free(ptr: int) -> None:
    if _runtime_alive and ptr:
        load().aclrtFree(ptr)


def _i64_array(values: Sequence[int]) -> Any:
    # One spare element so that a 0-d shape still passes a valid pointer.
    return (ctypes.c_int64 * (len(values) + 1))(*values)


def acl_dtype(dtype: Any) -> tuple[np.dtype, int]:
    """(NumPy dtype, aclDataType) for a dtype or its name: 'float32', 'float16', 'bfloat16', 'int32',
    'int64', 'bool'. Raises TypeError naming the supported ones for anything else."""
    try:
        np_dtype = np.dtype(ml_dtypes.bfloat16) if str(dtype) == "bfloat16" else np.dtype(dtype)
    except TypeError:
        np_dtype = None
    if np_dtype not in ACL_DTYPES:
        supported = ", ".join(str(d) for d in ACL_DTYPES)
        raise TypeError(f"normgrad: dtype {dtype} is not supported; expected one of {supported}")
    return np_dtype, ACL_DTYPES[np_dtype]


def _storage_of(array: np.ndarray) -> tuple[np.ndarray, tuple[int, ...], int]:
    """(contiguous host storage as a flat array of array.dtype, storage shape, element offset) for
    a view with non-negative strides that are whole elements."""
    item = array.itemsize
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    start = array.ctypes.data
    end = start + sum((n - 1) * s for n, s in zip(array.shape, array.strides, strict=True)) + item
    root_start = root.ctypes.data
    fits = (
        root.flags.c_contiguous
        and root_start <= start
        and end <= root_start + root.nbytes
        and (start - root_start) % item == 0
        and root.nbytes % item == 0
    )
    if fits:
        # The view's real base storage, as torch would pass it: offset and strides into the base.
        flat = root.reshape(-1).view(np.uint8).view(array.dtype)
        shape = root.shape if root.dtype == array.dtype else (flat.size,)
        return flat, tuple(shape), (start - root_start) // item
    # The base is not an ndarray we can copy whole: take just the bytes the view spans.
    span = (end - start) // item
    flat = np.lib.stride_tricks.as_strided(array, shape=(span,), strides=(item,)).copy()
    return flat, (span,), 0


class _Owned:
    """Frees its native object on close(), at the end of a with block, or when collected."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


class DeviceTensor(_Owned):
    """A device copy of a NumPy array described by an aclTensor: the argument type of call_aclnn.

    Made by tensor(array) (inputs, and outputs that must be strided) or empty(shape, dtype) (outputs).
    A C-contiguous array becomes a contiguous tensor over a copy of exactly its elements. A
    non-contiguous view becomes a strided tensor over a device copy of its base storage: view
    shape, element strides, element offset and storage shape as aclCreateTensor takes them (like a
    torch view on NPU). Views with negative strides, or strides that are not whole elements, are
    copied to a contiguous array first: the values are the same, only the layout test is lost.

    .ptr is the aclTensor* as an int. take() hands an output over as an array over the device
    memory itself (no copy) and closes the tensor; numpy() reads the view back as a new
    C-contiguous array; storage() reads the whole storage, to check what a strided output left
    untouched. Free it
    deterministically with close() or a `with` block; a tensor that is garbage-collected open is
    freed then. Using .ptr after close() raises ValueError.
    """

    def __init__(self, shape: Sequence[int], dtype: Any, strides: Sequence[int], offset: int,
                 storage_shape: Sequence[int], host_storage: np.ndarray | None = None,
                 poison: bool = False) -> None:
        self.dtype, acl_type = acl_dtype(dtype)
        self.shape = tuple(int(n) for n in shape)
        self.strides = tuple(int(s) for s in strides)  # elements
        self.offset = int(offset)  # elements
        self.storage_shape = tuple(int(n) for n in storage_shape)
        self.storage_elems = int(np.prod(self.storage_shape, dtype=np.int64))
        self._storage_bytes = self.storage_elems * self.dtype.itemsize
        self._data = 0
        self._ptr = 0
        lib = load()
        stream()
        # Exactly the storage bytes, so the simulator catches a kernel reading past the end;
        # an empty storage has no memory at all (aclrtMalloc refuses 0 bytes, and needs none).
        if host_storage is not None and self._storage_bytes:
            # One pass: allocate and copy (aclrtMalloc would first fill the block with 0xFF).
            host = np.ascontiguousarray(host_storage.reshape(-1))
            ptr = _vp()
            _check("normgradSimMallocFrom", lib.normgradSimMallocFrom(ctypes.byref(ptr), host.ctypes.data,
                                                                      self._storage_bytes))
            self._data = ptr.value or 0
        else:
            self._data = _malloc(self._storage_bytes) if self._storage_bytes else 0
        try:
            # poison: nothing to do, the simulator's aclrtMalloc fills fresh device memory with
            # 0xFF bytes (NaN in floats, -1 in ints), so an output element the kernel never
            # wrote cannot pass for a plausible zero; a second fill would cost a pass over it.
            ptr = lib.aclCreateTensor(_i64_array(self.shape), len(self.shape), acl_type,
                                      _i64_array(self.strides), self.offset, _FORMAT_ND,
                                      _i64_array(self.storage_shape), len(self.storage_shape), self._data)
            if not ptr:
                raise AclError("aclCreateTensor", None, recent_error())
            self._ptr = ptr
        except BaseException:
            _free(self._data)
            self._data = 0
            raise

    @property
    def ptr(self) -> int:
        """The aclTensor* to pass to an aclnn function."""
        if not self._ptr:
            raise ValueError(f"DeviceTensor{list(self.shape)} {self.dtype}: used after close()")
        return self._ptr

    def storage(self) -> np.ndarray:
        """A host copy of the whole device storage, in the storage shape."""
        self.ptr  # noqa: B018 - raises if closed
        host = np.empty(self.storage_elems, dtype=self.dtype)
        if self._storage_bytes:
            _check("aclrtMemcpy", load().aclrtMemcpy(host.ctypes.data, self._storage_bytes, self._data,
                                                     self._storage_bytes, _MEMCPY_DEVICE_TO_HOST))
        return host.reshape(self.storage_shape)

    def numpy(self) -> np.ndarray:
        """A host copy of the tensor's view as a new C-contiguous array of its shape and dtype."""
        count = int(np.prod(self.shape))
        if self._whole_storage():
            # The view is the whole storage in row-major order: the storage copy is the answer
            # (a second copy of a large output costs as much host time as the copy itself).
            return self.storage().reshape(self.shape)
        flat = self.storage().reshape(-1)
        if not self.shape or count == 0:
            return flat[self.offset:self.offset + count].reshape(self.shape).copy()
        item = self.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(flat[self.offset:], shape=self.shape,
                                               strides=tuple(s * item for s in self.strides))
        return view.copy(order="C")

    def _whole_storage(self) -> bool:
        """Whether the view is the whole storage in row-major order."""
        row_major = self.strides == tuple(_row_major(self.shape))
        return self.offset == 0 and int(np.prod(self.shape)) == self.storage_elems and row_major

    def take(self) -> np.ndarray:
        """The tensor's values as a C-contiguous array, closing the tensor. When the view is the
        whole storage in row-major order the array is the device memory itself (no copy; the
        memory is freed when the array is collected), else a copy as numpy() makes."""
        if not self._whole_storage() or not self._storage_bytes:
            result = self.numpy()
            self.close()
            return result
        self.ptr  # noqa: B018 - raises if closed
        buffer = _DeviceBuffer(self._data, self._storage_bytes)
        self._data = 0  # the buffer frees it now
        self.close()
        return np.asarray(buffer).view(self.dtype).reshape(self.shape)

    def close(self) -> None:
        """Destroys the aclTensor and frees the device memory; calling it again does nothing."""
        if self._ptr and _runtime_alive:
            load().aclDestroyTensor(self._ptr)
        self._ptr = 0
        _free(self._data)
        self._data = 0

    def __repr__(self) -> str:
        state = "open" if self._ptr else "closed"
        return (f"DeviceTensor(shape={list(self.shape)}, dtype={self.dtype}, strides={list(self.strides)}, "
                f"offset={self.offset}, storage_shape={list(self.storage_shape)}, {state})")


class _DeviceBuffer:
    """Device memory handed to NumPy as an array's base (DeviceTensor.take): freed with it."""

    def __init__(self, data: int, nbytes: int) -> None:
        self._data = data
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (data, False), "version": 3}

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            _free(self._data)
            self._data = 0


def tensor(array: np.ndarray) -> DeviceTensor:
    """A device tensor holding a copy of array (any layout; see DeviceTensor for views)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"normgrad.tensor: expected a numpy.ndarray, got {type(array).__name__}")
    acl_dtype(array.dtype)
    item = array.itemsize
    regular = all(s >= 0 and s % item == 0 for s in array.strides)
    if array.flags.c_contiguous or array.size == 0 or not regular:
        host = array if array.flags.c_contiguous else array.copy(order="C")  # keeps 0-d arrays 0-d
        return DeviceTensor(host.shape, host.dtype, _row_major(host.shape), 0, host.shape, host_storage=host)
    storage, storage_shape, offset = _storage_of(array)
    strides = [s // item for s in array.strides]
    return DeviceTensor(array.shape, array.dtype, strides, offset, storage_shape, host_storage=storage)


def _row_major(shape: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return strides[::-1]


def empty(shape: Sequence[int], dtype: Any, *, poison: bool = True) -> DeviceTensor:
    """A contiguous device tensor for an output. With poison (the default) every byte is 0xFF, so
    elements the operator never writes read back as NaN (floats) or -1 (integers); without it the
    bytes are unspecified (the simulator's aclrtMalloc happens to fill 0xFF too, at no extra pass)."""
    if any(int(n) < 0 for n in shape):
        raise ValueError(f"normgrad.empty: shape {list(shape)} has a negative dimension")
    return DeviceTensor(shape, dtype, _row_major(shape), 0, shape, poison=poison)


class _HostArray(_Owned):
    """An aclBoolArray / aclIntArray: host values the aclnn call reads, freed by close() or `with`."""

    _create = ""
    _destroy = ""
    _ctype: Any = None

    def __init__(self, values: Sequence[Any]) -> None:
        self.values = tuple(values)
        lib = load()
        raw = (self._ctype * (len(self.values) + 1))(*self.values)
        self._ptr = getattr(lib, self._create)(raw, len(self.values)) or 0
        if not self._ptr:
            raise AclError(self._create, None, recent_error())

    @property
    def ptr(self) -> int:
        if not self._ptr:
            raise ValueError(f"{type(self).__name__}{list(self.values)}: used after close()")
        return self._ptr

    def close(self) -> None:
        if self._ptr and _runtime_alive:
            getattr(load(), self._destroy)(self._ptr)
        self._ptr = 0

    def __len__(self) -> int:
        return len(self.values)


class BoolArray(_HostArray):
    """aclBoolArray, e.g. an outputMask [dx, dgamma, dbeta]."""

    _create, _destroy, _ctype = "aclCreateBoolArray", "aclDestroyBoolArray", ctypes.c_bool


class IntArray(_HostArray):
    """aclIntArray, e.g. LayerNorm's normalizedShape."""

    _create, _destroy, _ctype = "aclCreateIntArray", "aclDestroyIntArray", ctypes.c_int64


def bool_array(values: Sequence[bool]) -> BoolArray:
    """An aclBoolArray of values. Raises TypeError for anything but Python/NumPy bools."""
    for i, v in enumerate(values):
        if not isinstance(v, bool | np.bool_):
            raise TypeError(f"normgrad.bool_array: element {i} is {v!r} ({type(v).__name__}), expected bool")
    return BoolArray([bool(v) for v in values])


def int_array(values: Sequence[int]) -> IntArray:
    """An aclIntArray of int64 values. Raises TypeError for non-integers (bools included)."""
    for i, v in enumerate(values):
        if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer):
            raise TypeError(f"normgrad.int_array: element {i} is {v!r} ({type(v).__name__}), expected an int")
        if not INT64_MIN <= int(v) <= INT64_MAX:
            raise OverflowError(f"normgrad.int_array: element {i} = {int(v)} does not fit in int64")
    return IntArray([int(v) for v in values])


def _c_arg(api: str, index: int, value: Any) -> Any:
    if value is None:
        return _vp(None)
    if isinstance(value, DeviceTensor | _HostArray):
        return _vp(value.ptr)
    if isinstance(value, ctypes._SimpleCData):  # an explicit C type, e.g. ctypes.c_float(eps)
        return value
    if isinstance(value, bool | np.bool_):
        return ctypes.c_bool(bool(value))
    if isinstance(value, int | np.integer):
        if not INT64_MIN <= int(value) <= INT64_MAX:
            # ctypes would silently keep the low 64 bits (2**64 -> 0).
            raise OverflowError(f"call_aclnn({api}): argument {index} = {int(value)} does not fit in int64_t")
        return ctypes.c_int64(int(value))
    if isinstance(value, float):
        return ctypes.c_double(value)
    raise TypeError(
        f"call_aclnn({api}): argument {index} is a {type(value).__name__}; expected a DeviceTensor, "
        f"BoolArray, IntArray, None, bool, int (int64_t), float (double) or a ctypes value"
    )


def _aclnn_function(lib: ctypes.CDLL, name: str) -> Any:
    try:
        fn = getattr(lib, name)
    except AttributeError:
        raise ValueError(f"call_aclnn: libnormgrad has no function {name}") from None
    fn.restype = ctypes.c_int32
    return fn


def call_aclnn(name: str, *args: Any) -> int:
    """Runs the aclnn API `name` (e.g. "aclnnGroupNormBackward") through both phases.

    args are the arguments of nameGetWorkspaceSize before workspaceSize/executor, in order:
    DeviceTensor, BoolArray, IntArray, None (a null pointer), bool (bool), int (int64_t), float
    (double) or an explicit ctypes value such as ctypes.c_float(eps). Allocates the workspace,
    runs the execute phase (which frees the executor), synchronises the stream and frees the
    workspace. Returns the workspace size in bytes. Raises AclnnError with the api, status and
    aclGetRecentErrMsg() text when either phase fails; outputs are then undefined.
    """
    handle = stream()
    lib = _apply_soc()
    get_size = _aclnn_function(lib, name + "GetWorkspaceSize")
    execute = _aclnn_function(lib, name)
    c_args = [_c_arg(name, i, a) for i, a in enumerate(args)]
    workspace_size = ctypes.c_uint64(0)
    executor = _vp()
    status = get_size(*c_args, ctypes.byref(workspace_size), ctypes.byref(executor))
    if status != 0:
        raise AclnnError(name + "GetWorkspaceSize", status, recent_error())
    workspace = _malloc(workspace_size.value) if workspace_size.value else 0
    try:
        status = execute(_vp(workspace or None), ctypes.c_uint64(workspace_size.value), executor, _vp(handle))
        if status != 0:
            raise AclnnError(name, status, recent_error())
        _check("aclrtSynchronizeStream", lib.aclrtSynchronizeStream(handle))
    finally:
        _free(workspace)
    return workspace_size.value


def _json(text: bytes | None, api: str) -> Any:
    if not text:
        raise AclError(api, None, recent_error())
    return json.loads(text.decode())


def last_run() -> list[dict[str, Any]]:
    """The kernel launches of this thread's latest aclnn call, in order, as normgradSimLastRunJson reports
    them: kernel, soc, blockDim, ok, error, warnings, cores (per-core counters) and the modeled
    timing totalUs, launchUs, hbmUs, maxCoreUs, meanCoreUs, syncUs, bytesIn, bytesOut, l2HitBytes,
    loadBalance; ubPeakBytes is the largest UB use of any core (each core's is in cores)."""
    data = _json(_apply_soc().normgradSimLastRunJson(), "normgradSimLastRunJson")
    if isinstance(data, dict) and "launches" in data:
        data = data["launches"]
    return list(data)


def socs() -> list[dict[str, Any]]:
    """Every SoC profile the simulator models (normgradSimSocsJson), as dicts."""
    data = _json(load().normgradSimSocsJson(), "normgradSimSocsJson")
    if isinstance(data, dict) and "socs" in data:
        data = data["socs"]
    return list(data)


def _soc_names_of(lib: ctypes.CDLL) -> list[str]:
    data = _json(lib.normgradSimSocsJson(), "normgradSimSocsJson")
    if isinstance(data, dict) and "socs" in data:
        data = data["socs"]
    return [str(p["name"]) for p in data]


def soc_names() -> list[str]:
    return [str(p["name"]) for p in socs()]


# The SoC of the current context (None: the process-wide default). See the module docstring.
_context_soc: contextvars.ContextVar[str | None] = contextvars.ContextVar("normgrad_soc", default=None)


def _apply_soc() -> ctypes.CDLL:
    """The library, with the calling thread's C-side SoC set to the current context's choice."""
    lib = load()
    name = _context_soc.get()
    lib.normgradSimSetThreadSoc(name.encode() if name else None)
    return lib


def get_soc() -> str:
    """The name of the SoC profile kernels run on in the current context."""
    name = _apply_soc().normgradSimGetSoc()
    return name.decode() if name else ""


def _known_soc(func: str, name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{func}: name must be a str, got {type(name).__name__}")
    known = soc_names()
    if name not in known:
        raise SocError(f"{func}: unknown SoC '{name}'; expected one of {', '.join(known)}")
    return name


def set_soc(name: str) -> None:
    """Makes kernels run on the SoC profile `name` ('ascend910b', 'ascend910_93', 'ascend910'),
    process-wide: in every thread and context not inside a `with soc(...)` block (such a block's
    choice wins within it). Raises SocError (a ValueError) naming the known profiles for any other name."""
    _known_soc("set_soc", name)
    if load().normgradSimSetSoc(name.encode()) != 0:
        raise SocError(f"set_soc: unknown SoC '{name}'; expected one of {', '.join(soc_names())}")


@contextlib.contextmanager
def soc(name: str) -> Iterator[str]:
    """Runs the `with` block on SoC profile `name`, in this context only: other threads (and other
    asyncio tasks) keep theirs. The previous choice is back after the block."""
    token = _context_soc.set(_known_soc("soc", name))
    try:
        yield name
    finally:
        _context_soc.reset(token)


def set_what_if(spec: str) -> None:
    """Replaces cost-model constants of every SoC profile, e.g. 'launch_us=3,sync_us=1' (keys in
    docs/sim.md); '' restores the profiles' own. Raises ValueError naming a bad key or value."""
    if not isinstance(spec, str):
        raise TypeError(f"set_what_if: spec must be a str, got {type(spec).__name__}")
    if load().normgradSimSetCostOverrides(spec.encode()) != 0:
        raise ValueError(f"set_what_if: {recent_error()}")


@contextlib.contextmanager
def what_if(spec: str) -> Iterator[str]:
    """Runs the `with` block with the what-if constants of spec, then restores the profiles' own."""
    set_what_if(spec)
    try:
        yield spec
    finally:
        set_what_if("")


def self_check() -> tuple[bool, str]:
    """normgradSimSelfCheck: (passed, message) of the simulator's built-in sanity run."""
    buf = ctypes.create_string_buffer(4096)
    status = _apply_soc().normgradSimSelfCheck(buf, len(buf))
    return status == 0, buf.value.decode(errors="replace")


def graph_ops() -> Any:
    """normgradGraphOpsJson: the graph-mode operator prototypes."""
    return _json(load().normgradGraphOpsJson(), "normgradGraphOpsJson")


def op_defs() -> Any:
    """normgradOpDefsJson: the operator definitions (schema) the library declares."""
    return _json(load().normgradOpDefsJson(), "normgradOpDefsJson")
