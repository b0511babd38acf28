"""The boundary to libnormgrad.so's C API; the only package of normgrad that uses ctypes.

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

The modules: library (finding and loading the library, the ACL runtime), device (DeviceTensor and
the host arrays), calls (call_aclnn, last_run), soc_choice (SoC choice, what-if constants, reports),
front_end (which front end launches run on: NORMGRAD_FRONTEND, and whether front end B is built).
"""

from normgrad._native.calls import _aclnn_function, _c_arg, call_aclnn, last_run
from normgrad._native.device import (
    ACL_DTYPES,
    BoolArray,
    DeviceTensor,
    IntArray,
    acl_dtype,
    bool_array,
    empty,
    int_array,
    tensor,
)
from normgrad._native.front_end import (
    FRONT_ENDS,
    FRONTEND_ENV,
    cann_readiness,
    require_cann,
    selected_front_end,
    use_front_end,
)
from normgrad._native.library import LIBRARY_ENV, SOC_ENV, library_path, load, recent_error, stream
from normgrad._native.soc_choice import (
    apply_soc,
    get_soc,
    graph_ops,
    op_defs,
    self_check,
    set_soc,
    set_what_if,
    soc,
    soc_names,
    socs,
    what_if,
)
from normgrad.errors import AclError, AclnnError

__all__ = [
    "ACL_DTYPES", "FRONTEND_ENV", "FRONT_ENDS", "LIBRARY_ENV", "SOC_ENV", "AclError", "AclnnError",
    "BoolArray", "DeviceTensor", "IntArray", "_aclnn_function", "_c_arg", "acl_dtype", "apply_soc",
    "bool_array", "call_aclnn", "cann_readiness", "empty", "get_soc", "graph_ops", "int_array", "last_run",
    "library_path", "load", "op_defs", "recent_error", "require_cann", "selected_front_end", "self_check",
    "set_soc", "set_what_if", "soc", "soc_names", "socs", "stream", "tensor", "use_front_end", "what_if",
]
