"""The operators on a real Ascend NPU, through the installed normgrad package, against the float64 goldens.

Same cases (shapes, inputs, goldens, per-dtype tolerances) as `normgrad check`; only the runner differs,
and there are two routes to the same aclnn functions:
- "aten": torch_npu's own aten kernels call aclnnGroupNormBackward / aclnnLayerNormBackward /
  aclnnBatchNormElemtBackward, which resolve to the package's libcust_opapi.so when
  ASCEND_CUSTOM_OPP_PATH names the installed vendor directory (docs/npu.md);
- "extension": torch.ops.normgrad.* on NPU tensors, registered by normgrad's own extension
  (normgrad.torch.enable_npu(), csrc/npu_ops.cpp); skipped where `pip install` did not build it.
Skipped, with the reason, on a machine without CANN, an NPU or torch_npu.
"""

from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest

from normgrad import cases, npu_package
from normgrad.cases.base import Case
from normgrad.check import case_rng


def _why_not_here() -> str | None:
    missing = npu_package.device_missing(os.environ)  # what `normgrad npu test` checks first, too
    return f"needs {missing[0]}" if missing else None


pytestmark = [pytest.mark.npu, pytest.mark.skipif(_why_not_here() is not None, reason=str(_why_not_here()))]

SEED = 0  # the seed `normgrad check` uses by default
SEED_APIS = ("aclnnGroupNormBackward", "aclnnLayerNormBackward", "aclnnBatchNormElemtBackward")


def test_the_installed_package_exports_the_seed_functions() -> None:
    # libcust_opapi.so of the normgrad vendor, where torch_npu looks first (ASCEND_CUSTOM_OPP_PATH).
    libs = [lib for lib in npu_package.custom_opp_libraries(os.environ) if lib.is_file()]
    assert libs, "ASCEND_CUSTOM_OPP_PATH names no <dir>/vendors/normgrad with op_api/lib/libcust_opapi.so"
    lib = ctypes.CDLL(str(libs[0]))
    for api in SEED_APIS:
        assert hasattr(lib, api), f"{libs[0]} does not export {api}"
        assert hasattr(lib, api + "GetWorkspaceSize"), f"{libs[0]} does not export {api}GetWorkspaceSize"


def _to_npu(a: np.ndarray | None):  # -> torch.Tensor | None
    import torch
    import torch_npu  # noqa: F401  (registers the npu device)

    if a is None:
        return None
    if a.dtype.name == "bfloat16":  # numpy has no bf16 for torch.from_numpy: widen exactly, narrow exactly
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16).npu()
    return torch.from_numpy(np.ascontiguousarray(a)).npu()


def _to_numpy(t, like: np.dtype) -> np.ndarray:
    import torch

    host = t.cpu()
    if host.dtype == torch.bfloat16:
        return host.to(torch.float32).numpy().astype(like)
    return host.numpy()


ROUTES = ("aten", "extension")


def _ops(route: str):  # -> the torch.ops namespace of the route
    import torch

    if route == "aten":
        return torch.ops.aten
    from normgrad import torch as normgrad_torch

    try:
        normgrad_torch.enable_npu()
    except ImportError as err:
        pytest.skip(str(err))
    return torch.ops.normgrad


def run_on_npu(case: Case, a: dict[str, np.ndarray], route: str = "aten") -> list[np.ndarray]:
    import torch

    ops = _ops(route)
    t = {k: _to_npu(v) for k, v in a.items()}
    if case.op == "group_norm_grad":
        n, c = a["x"].shape[0], a["x"].shape[1]
        hw = a["x"].size // max(n * c, 1)
        group = a["mean"].size // max(n, 1)
        op = ops.native_group_norm_backward if route == "aten" else ops.group_norm_backward
        outs = op(t["dy"], t["x"], t["mean"], t["rstd"], t["gamma"], n, c, hw, group, [True, True, True])
    elif case.op == "layer_norm_grad":
        ns = list(a["weight"].shape)  # the cases pass weight shaped like normalizedShape
        op = ops.native_layer_norm_backward if route == "aten" else ops.layer_norm_backward
        outs = op(t["dy"], t["x"], ns, t["mean"], t["rstd"], t["weight"], None, [True, True, True])
    else:
        op = ops.batch_norm_backward_elemt if route == "aten" else ops.batch_norm_elemt_backward
        outs = (op(t["dy"], t["x"], t["mean"], t["invstd"], t["weight"], t["sum_dy"], t["sum_dy_xmu"],
                   t["counter"]),)
    torch.npu.synchronize()
    wants = case.golden(a)
    return [
        _to_numpy(o, np.dtype(w.dtype) if w is not None else np.dtype(np.float32))
        for o, w in zip(outs, wants, strict=True)
    ]


QUICK_CASES = [c for c in cases.check_cases() if c.quick]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    "case", QUICK_CASES, ids=[f"{c.op}-{c.dtype}-{c.shape}-{c.name}" for c in QUICK_CASES]
)
def test_case_matches_the_float64_golden_on_the_npu(case: Case, route: str) -> None:
    a = case.make_inputs(case_rng(case, SEED))
    got = run_on_npu(case, a, route)
    want = case.golden(a)
    tol = case.tolerance
    for name, g, w in zip(case.output_names, got, want, strict=True):
        if w is None:
            continue
        g64 = np.asarray(g, dtype=np.float64).reshape(np.shape(w))
        bound = tol.atol + tol.rtol * np.abs(w)
        worst = float(np.max(np.abs(g64 - w) - bound)) if w.size else 0.0
        assert worst <= 0.0, (
            f"{case.op} {case.shape} {case.dtype} {name}: exceeds {tol} by {worst:g} ({tol.why})"
        )


@pytest.mark.parametrize("route", ROUTES)
def test_the_npu_is_deterministic(route: str) -> None:
    """Bitwise identical outputs run after run (one case per operator, its first quick case)."""
    firsts = {c.op: c for c in reversed(QUICK_CASES)}
    for case in firsts.values():
        a = case.make_inputs(case_rng(case, SEED))
        first = run_on_npu(case, a, route)
        second = run_on_npu(case, a, route)
        for name, x, y in zip(case.output_names, first, second, strict=True):
            assert x.tobytes() == y.tobytes(), (
                f"{case.op} {case.shape} {case.dtype} {name} differs between runs"
            )
