"""The exceptions normgrad raises: failed aclnn calls, failed ACL runtime calls, a missing library.

Argument errors found in Python are plain ValueError / TypeError naming the argument; these classes
are for failures reported by the native library, so callers can read the status code.
"""

from __future__ import annotations

# aclnn and ACL status codes (CANN's aclnn/aclnn_base.h and acl/acl_base.h names).
STATUS_NAMES: dict[int, str] = {
    0: "ACL_SUCCESS",
    100000: "ACL_ERROR_INVALID_PARAM",
    100001: "ACL_ERROR_UNINITIALIZE",
    100002: "ACL_ERROR_REPEAT_INITIALIZE",
    107000: "ACL_ERROR_RT_PARAM_INVALID",
    200000: "ACL_ERROR_BAD_ALLOC",
    500000: "ACL_ERROR_INTERNAL_ERROR",
    161001: "ACLNN_ERR_PARAM_NULLPTR",
    161002: "ACLNN_ERR_PARAM_INVALID",
    361001: "ACLNN_ERR_RUNTIME_ERROR",
    561000: "ACLNN_ERR_INNER",
    561103: "ACLNN_ERR_INNER_NULLPTR",
    207001: "ACL_ERROR_RT_MEMORY_ALLOCATION",
}


def status_name(status: int) -> str:
    """'ACLNN_ERR_PARAM_INVALID' for 161002; 'status 42' for a code normgrad does not know."""
    return STATUS_NAMES.get(status, f"status {status}")


class AclnnError(ValueError):
    """An aclnn call returned a non-zero status.

    api is the C function that failed ("aclnnGroupNormBackwardGetWorkspaceSize"), status its return
    code and message the text of aclGetRecentErrMsg(), which names the argument and the values.
    A ValueError because almost every such failure is a rejected argument; a kernel fault in the
    simulator (status 561000) is reported the same way so that one except clause catches both.
    """

    def __init__(self, api: str, status: int, message: str) -> None:
        self.api = api
        self.status = status
        self.message = message
        text = message.strip() or "(no message recorded)"
        super().__init__(f"{api} returned {status} ({status_name(status)}): {text}")


class AclError(RuntimeError):
    """An ACL runtime call (aclrtMalloc, aclrtMemcpy, aclCreateTensor, ...) failed.

    These are not about an operator's arguments but about the runtime itself: out of memory, a
    device that failed to open, a tensor description the runtime refused. status is None for the
    calls that report failure by returning NULL (aclCreateTensor, aclCreateBoolArray, ...).
    """

    def __init__(self, api: str, status: int | None, message: str) -> None:
        self.api = api
        self.status = status
        self.message = message
        text = message.strip() or "(no message recorded)"
        what = "returned NULL" if status is None else f"returned {status} ({status_name(status)})"
        super().__init__(f"{api} {what}: {text}")


class LibraryNotFoundError(FileNotFoundError):
    """libnormgrad.so was not found or could not be loaded; the message says how to build it."""


class SocError(ValueError):
    """An unknown SoC profile name, from NORMGRAD_SOC or set_soc/soc(); the message names the valid ones."""


__all__ = ["AclError", "AclnnError", "LibraryNotFoundError", "SocError", "STATUS_NAMES", "status_name"]


class FrontEndError(RuntimeError):
    """The front end asked for cannot run here: front end B (NORMGRAD_FRONTEND=cann, sim/cann_cpu) is not
    built, or has no build for the SoC. The message names what is missing, where it was looked for and how
    to build it."""
