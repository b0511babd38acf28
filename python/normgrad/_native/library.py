"""Finds and loads libnormgrad.so, declares its C functions, and owns the ACL runtime (aclInit,
device 0, one stream) from first use to interpreter exit. The other _native modules reach the
runtime through this one (module attributes, so tests can patch them)."""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from normgrad.errors import AclError, LibraryNotFoundError, SocError

LIBRARY_ENV = "NORMGRAD_LIBRARY"
SOC_ENV = "NORMGRAD_SOC"
PACKAGED_LIBRARY = Path(__file__).resolve().parent.parent / "lib" / "libnormgrad.so"

# acl/acl_base.h values.
_MEM_MALLOC_HUGE_FIRST = 0
_ERROR_REPEAT_INITIALIZE = 100002

_i64p = ctypes.POINTER(ctypes.c_int64)
vp = ctypes.c_void_p
_int = ctypes.c_int
_size = ctypes.c_size_t
_str = ctypes.c_char_p
# name: (restype, argtypes). acl/acl.h (CANN's names) and normgrad_sim.h.
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "aclInit": (_int, [_str]),
    "aclFinalize": (_int, []),
    "aclrtSetDevice": (_int, [ctypes.c_int32]),
    "aclrtResetDevice": (_int, [ctypes.c_int32]),
    "aclrtCreateStream": (_int, [ctypes.POINTER(vp)]),
    "aclrtDestroyStream": (_int, [vp]),
    "aclrtSynchronizeStream": (_int, [vp]),
    "aclrtMalloc": (_int, [ctypes.POINTER(vp), _size, _int]),
    "aclrtFree": (_int, [vp]),
    "aclrtMemcpy": (_int, [vp, _size, vp, _size, _int]),
    "aclrtHostRegister": (_int, [vp, ctypes.c_uint64, _int, ctypes.POINTER(vp)]),
    "aclrtHostUnregister": (_int, [vp]),
    "aclrtMemset": (_int, [vp, _size, ctypes.c_int32, _size]),
    "aclCreateTensor": (vp, [_i64p, ctypes.c_uint64, _int, _i64p, ctypes.c_int64, _int, _i64p,
                              ctypes.c_uint64, vp]),
    "aclDestroyTensor": (_int, [vp]),
    "aclCreateBoolArray": (vp, [ctypes.POINTER(ctypes.c_bool), ctypes.c_uint64]),
    "aclDestroyBoolArray": (_int, [vp]),
    "aclCreateIntArray": (vp, [_i64p, ctypes.c_uint64]),
    "aclDestroyIntArray": (_int, [vp]),
    "aclGetRecentErrMsg": (_str, []),
    "normgradSimSetSoc": (_int, [_str]),
    "normgradSimSetThreadSoc": (_int, [_str]),
    "normgradSimGetSoc": (_str, []),
    "normgradSimSocsJson": (_str, []),
    "normgradSimSetCostOverrides": (_int, [_str]),
    "normgradSimMallocFrom": (_int, [ctypes.POINTER(vp), vp, _size]),
    "normgradSimLastRunJson": (_str, []),
    "normgradSimSelfCheck": (_int, [ctypes.c_char_p, _size]),
    "normgradGraphOpsJson": (_str, []),
    "normgradOpDefsJson": (_str, []),
    "normgradSimCannFrontEnd": (_int, [_str, ctypes.c_char_p, _size]),
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
    known = soc_names_of(lib)
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


def check(api: str, status: int) -> None:
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
            check("aclInit", status)
        check("aclrtSetDevice", lib.aclrtSetDevice(0))
        handle = vp()
        check("aclrtCreateStream", lib.aclrtCreateStream(ctypes.byref(handle)))
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


def malloc(nbytes: int) -> int:
    ptr = vp()
    check("aclrtMalloc", load().aclrtMalloc(ctypes.byref(ptr), nbytes, _MEM_MALLOC_HUGE_FIRST))
    return ptr.value or 0


def free(ptr: int) -> None:
    if _runtime_alive and ptr:
        load().aclrtFree(ptr)


_HOST_REGISTER_READONLY = 0x08  # acl/acl_rt.h
_registered: dict[tuple[int, int], int] = {}  # (host address, bytes) -> tensors using the registration


def register_readonly(ptr: int, nbytes: int) -> int:
    """ptr as device memory kernels may read but not write (aclrtHostRegister READONLY; shared by
    every tensor over the same range), or 0 when the runtime refuses it (the range meets device
    memory or another registration): then the caller copies."""
    with _lock:
        key = (ptr, nbytes)
        if key not in _registered:
            dev = vp()
            if load().aclrtHostRegister(ptr, nbytes, _HOST_REGISTER_READONLY, ctypes.byref(dev)) != 0:
                return 0
            _registered[key] = 0
        _registered[key] += 1
        return ptr


def unregister(ptr: int, nbytes: int) -> None:
    """Ends one use of register_readonly(ptr, nbytes); the last one unregisters the range."""
    with _lock:
        key = (ptr, nbytes)
        _registered[key] -= 1
        if _registered[key] == 0:
            del _registered[key]
            if _runtime_alive:
                load().aclrtHostUnregister(ptr)


def i64_array(values: Sequence[int]) -> Any:
    # One spare element so that a 0-d shape still passes a valid pointer.
    return (ctypes.c_int64 * (len(values) + 1))(*values)


def parse_json(text: bytes | None, api: str) -> Any:
    if not text:
        raise AclError(api, None, recent_error())
    return json.loads(text.decode())


def soc_names_of(lib: ctypes.CDLL) -> list[str]:
    data = parse_json(lib.normgradSimSocsJson(), "normgradSimSocsJson")
    if isinstance(data, dict) and "socs" in data:
        data = data["socs"]
    return [str(p["name"]) for p in data]



def runtime_alive() -> bool:
    """True from the first stream() until interpreter exit: device frees are valid only then."""
    return _runtime_alive
