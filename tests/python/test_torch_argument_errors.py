"""normgrad.torch's forwards and normgrad.nn's constructors: argument errors name the function and
the argument, message for message (TypeError for types and dtypes, ValueError for values)."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")

import normgrad.nn  # noqa: E402
import normgrad.torch as ngt  # noqa: E402

KERNEL_DTYPES = "the Ascend C kernel supports torch.float32, torch.float16 and torch.bfloat16"


def _raises(kind: type[Exception], message: str):  # noqa: ANN202 - pytest's context manager
    return pytest.raises(kind, match="^" + re.escape(message) + "$")


def test_group_norm_names_num_groups() -> None:
    x, who = torch.ones(2, 8, 3), "normgrad.torch.group_norm"
    # Before: "C = 8 channels is not divisible by num_groups = 0".
    with _raises(ValueError, f"{who}: num_groups = 0; expected a positive number of groups"):
        ngt.group_norm(x, 0)
    with _raises(ValueError, f"{who}: num_groups = 3 does not divide the C = 8 channels of input"):
        ngt.group_norm(x, 3)
    with _raises(TypeError, f"{who}: num_groups must be an int, got 2.0 (float)"):
        ngt.group_norm(x, 2.0)
    with _raises(TypeError, f"{who}: input must be a torch.Tensor, got list"):
        ngt.group_norm([1.0], 1)


@pytest.mark.parametrize("op", ["group_norm", "layer_norm"])
def test_forwards_name_themselves_for_a_dtype_the_kernels_refuse(op: str) -> None:
    x = torch.ones(2, 4, 3)
    def call(t: torch.Tensor, w: torch.Tensor | None) -> torch.Tensor:
        return ngt.group_norm(t, 2, w) if op == "group_norm" else ngt.layer_norm(t, 3, w)

    with _raises(TypeError, f"normgrad.torch.{op}: input has dtype torch.float64; {KERNEL_DTYPES}"):
        call(x.double(), None)
    with _raises(TypeError, f"normgrad.torch.{op}: weight has dtype torch.int32; {KERNEL_DTYPES}"):
        call(x, torch.ones(4 if op == "group_norm" else 3, dtype=torch.int32))


def test_layer_norm_names_normalized_shape() -> None:
    with _raises(TypeError, "normgrad.torch.layer_norm: normalized_shape[0] must be an int, got 16.0 "
                            "(float)"):
        ngt.layer_norm(torch.ones(2, 16), [16.0])


def test_module_constructors_check_what_torch_lets_through() -> None:
    # torch.nn.GroupNorm(0, 8) is a ZeroDivisionError, float64 modules fail only at the first backward.
    with _raises(ValueError, "normgrad.nn.GroupNorm: num_groups = 0; expected a positive number of groups"):
        normgrad.nn.GroupNorm(0, 8)
    with _raises(ValueError, "normgrad.nn.GroupNorm: num_groups = 3 does not divide num_channels = 8"):
        normgrad.nn.GroupNorm(3, 8)
    with _raises(TypeError, f"normgrad.nn.GroupNorm: dtype is torch.float64; {KERNEL_DTYPES}"):
        normgrad.nn.GroupNorm(2, 8, dtype=torch.float64)
    with _raises(TypeError, f"normgrad.nn.LayerNorm: dtype is torch.float64; {KERNEL_DTYPES}"):
        normgrad.nn.LayerNorm(8, dtype=torch.float64)
    with _raises(TypeError, "normgrad.nn.LayerNorm: normalized_shape[0] must be an int, got 8.0 (float)"):
        normgrad.nn.LayerNorm([8.0])
    # Valid arguments make torch's modules, as before.
    assert normgrad.nn.GroupNorm(2, 8, dtype=torch.float16).weight.dtype == torch.float16
    assert normgrad.nn.LayerNorm(8, bias=False).bias is None
