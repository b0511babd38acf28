"""call_aclnn: one aclnn API through both phases (workspace size, execute) with Python values
as its C arguments, and last_run, the launches it made."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from normgrad._native import library
from normgrad._native.device import INT64_MAX, INT64_MIN, DeviceTensor, _HostArray
from normgrad._native.soc_choice import apply_soc
from normgrad.errors import AclnnError


def _c_arg(api: str, index: int, value: Any) -> Any:
    if value is None:
        return ctypes.c_void_p(None)
    if isinstance(value, DeviceTensor | _HostArray):
        return ctypes.c_void_p(value.ptr)
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
    handle = library.stream()
    lib = apply_soc()
    get_size = _aclnn_function(lib, name + "GetWorkspaceSize")
    execute = _aclnn_function(lib, name)
    c_args = [_c_arg(name, i, a) for i, a in enumerate(args)]
    workspace_size = ctypes.c_uint64(0)
    executor = ctypes.c_void_p()
    status = get_size(*c_args, ctypes.byref(workspace_size), ctypes.byref(executor))
    if status != 0:
        raise AclnnError(name + "GetWorkspaceSize", status, library.recent_error())
    workspace = library.malloc(workspace_size.value) if workspace_size.value else 0
    try:
        status = execute(ctypes.c_void_p(workspace or None), ctypes.c_uint64(workspace_size.value), executor,
                         ctypes.c_void_p(handle))
        if status != 0:
            raise AclnnError(name, status, library.recent_error())
        library.check("aclrtSynchronizeStream", lib.aclrtSynchronizeStream(handle))
    finally:
        library.free(workspace)
    return workspace_size.value



def last_run() -> list[dict[str, Any]]:
    """The kernel launches of this thread's latest aclnn call, in order, as normgradSimLastRunJson reports
    them: kernel, soc, blockDim, ok, error, warnings, cores (per-core counters) and the modeled
    timing totalUs, launchUs, hbmUs, maxCoreUs, meanCoreUs, syncUs, bytesIn, bytesOut, l2HitBytes,
    loadBalance; ubPeakBytes is the largest UB use of any core (each core's is in cores)."""
    data = library.parse_json(apply_soc().normgradSimLastRunJson(), "normgradSimLastRunJson")
    if isinstance(data, dict) and "launches" in data:
        data = data["launches"]
    return list(data)
