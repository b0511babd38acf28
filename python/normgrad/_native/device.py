"""Device tensors (aclTensor over device memory holding a copy of a NumPy array) and the host
arrays aclnn calls take (aclBoolArray, aclIntArray)."""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Sequence
from typing import Any, Self

import ml_dtypes
import numpy as np

from normgrad._native import library
from normgrad.errors import AclError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# acl/acl_base.h values.
_MEMCPY_DEVICE_TO_HOST = 2
_FORMAT_ND = 2

# NumPy dtype -> aclDataType. bfloat16 is ml_dtypes' type, the one NumPy users have.
ACL_DTYPES: dict[np.dtype, int] = {
    np.dtype(np.float32): 0,  # ACL_FLOAT
    np.dtype(np.float16): 1,  # ACL_FLOAT16
    np.dtype(np.int32): 3,  # ACL_INT32
    np.dtype(np.int64): 9,  # ACL_INT64
    np.dtype(np.bool_): 12,  # ACL_BOOL
    np.dtype(ml_dtypes.bfloat16): 27,  # ACL_BF16
}


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
    untouched. Free it deterministically with close() or a `with` block; a tensor that is
    garbage-collected open is freed then. Using .ptr after close() raises ValueError.
    """

    def __init__(self, shape: Sequence[int], dtype: Any, strides: Sequence[int], offset: int,
                 storage_shape: Sequence[int], host_storage: np.ndarray | None = None,
                 poison: bool = False, mapped: bool = False) -> None:
        self.dtype, acl_type = acl_dtype(dtype)
        self.shape = tuple(int(n) for n in shape)
        self.strides = tuple(int(s) for s in strides)  # elements
        self.offset = int(offset)  # elements
        self.storage_shape = tuple(int(n) for n in storage_shape)
        self.storage_elems = int(np.prod(self.storage_shape, dtype=np.int64))
        self._storage_bytes = self.storage_elems * self.dtype.itemsize
        self._data = 0
        self._ptr = 0
        self._host: np.ndarray | None = None  # the caller's storage while it is mapped (kept alive)
        lib = library.load()
        library.stream()
        # Exactly the storage bytes, so the simulator catches a kernel reading past the end;
        # an empty storage has no memory at all (aclrtMalloc refuses 0 bytes, and needs none).
        host = np.ascontiguousarray(host_storage.reshape(-1)) if host_storage is not None else None
        aligned = host is not None and host.ctypes.data % self.dtype.itemsize == 0
        if mapped and aligned and self._storage_bytes:
            # The caller's own memory, read-only to the kernels: no copy (docs/memory.md).
            self._data = library.register_readonly(host.ctypes.data, self._storage_bytes)
            self._host = host if self._data else None
        if not self._data and host is not None and self._storage_bytes:
            # One pass: allocate and copy (aclrtMalloc would first fill the block with 0xFF).
            ptr = library.vp()
            library.check("normgradSimMallocFrom",
                          lib.normgradSimMallocFrom(ctypes.byref(ptr), host.ctypes.data, self._storage_bytes))
            self._data = ptr.value or 0
        elif not self._data and self._storage_bytes:
            self._data = library.malloc(self._storage_bytes)
        try:
            # poison: nothing to do, the simulator's aclrtMalloc fills fresh device memory with
            # 0xFF bytes (NaN in floats, -1 in ints), so an output element the kernel never
            # wrote cannot pass for a plausible zero; a second fill would cost a pass over it.
            ptr = lib.aclCreateTensor(library.i64_array(self.shape), len(self.shape), acl_type,
                                      library.i64_array(self.strides), self.offset, _FORMAT_ND,
                                      library.i64_array(self.storage_shape), len(self.storage_shape),
                                      self._data)
            if not ptr:
                raise AclError("aclCreateTensor", None, library.recent_error())
            self._ptr = ptr
        except BaseException:
            self._release()
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
            copy = library.load().aclrtMemcpy(host.ctypes.data, self._storage_bytes, self._data,
                                              self._storage_bytes, _MEMCPY_DEVICE_TO_HOST)
            library.check("aclrtMemcpy", copy)
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
        if self._ptr and library.runtime_alive():
            library.load().aclDestroyTensor(self._ptr)
        self._ptr = 0
        self._release()

    def _release(self) -> None:
        """Frees the device memory, or ends the mapping of the caller's."""
        if self._host is not None:
            library.unregister(self._data, self._storage_bytes)
            self._host = None
        else:
            library.free(self._data)
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
            library.free(self._data)
            self._data = 0


def tensor(array: np.ndarray, *, mapped: bool = False) -> DeviceTensor:
    """A device tensor holding a copy of array (any layout; see DeviceTensor for views). With mapped
    (for an operator's inputs) the tensor's storage is the array's own memory when the runtime can
    map it (aclrtHostRegister, read-only to the kernels: a kernel writing an input is an error), so
    the call holds no copy; the array must not change until the tensor is closed."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"normgrad.tensor: expected a numpy.ndarray, got {type(array).__name__}")
    acl_dtype(array.dtype)
    item = array.itemsize
    regular = all(s >= 0 and s % item == 0 for s in array.strides)
    if array.flags.c_contiguous or array.size == 0 or not regular:
        host = array if array.flags.c_contiguous else array.copy(order="C")  # keeps 0-d arrays 0-d
        return DeviceTensor(host.shape, host.dtype, _row_major(host.shape), 0, host.shape, host_storage=host,
                            mapped=mapped)
    storage, storage_shape, offset = _storage_of(array)
    strides = [s // item for s in array.strides]
    return DeviceTensor(array.shape, array.dtype, strides, offset, storage_shape, host_storage=storage,
                        mapped=mapped)


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
        lib = library.load()
        raw = (self._ctype * (len(self.values) + 1))(*self.values)
        self._ptr = getattr(lib, self._create)(raw, len(self.values)) or 0
        if not self._ptr:
            raise AclError(self._create, None, library.recent_error())

    @property
    def ptr(self) -> int:
        if not self._ptr:
            raise ValueError(f"{type(self).__name__}{list(self.values)}: used after close()")
        return self._ptr

    def close(self) -> None:
        if self._ptr and library.runtime_alive():
            getattr(library.load(), self._destroy)(self._ptr)
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

