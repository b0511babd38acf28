"""Outputs that share device memory with an input or another output are refused (161002, naming both)
before anything runs: the kernels read inputs on some cores while others write outputs, so in-place
or overlapping buffers would read values already overwritten."""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
import pytest

import normgrad
from normgrad import _native

F32 = np.float32


def _group_norm(alias_of: dict[str, str]) -> None:
    """aclnnGroupNormBackward on 2x8x4, 2 groups, each output in alias_of replaced by that input/output."""
    n, c, hw, g = 2, 8, 4, 2
    arrays = {"dy": np.ones((n, c, hw), F32), "x": np.ones((n, c, hw), F32), "mean": np.zeros((n, g), F32),
              "rstd": np.ones((n, g), F32), "gamma": np.ones(c, F32), "dx": np.zeros((n, c, hw), F32),
              "dgamma": np.zeros(c, F32), "dbeta": np.zeros(c, F32)}
    with ExitStack() as stack:
        t = {k: stack.enter_context(_native.tensor(v)) for k, v in arrays.items()}
        for out, src in alias_of.items():
            t[out] = t[src]
        mask = stack.enter_context(_native.bool_array([True, True, True]))
        _native.call_aclnn("aclnnGroupNormBackward", t["dy"], t["x"], t["mean"], t["rstd"], t["gamma"],
                           n, c, hw, g, mask, t["dx"], t["dgamma"], t["dbeta"])


@pytest.mark.parametrize("out,src,message", [
    ("dx", "dy", "gradInput shares device memory with gradOut"),
    ("dx", "x", "gradInput shares device memory with input"),
    ("dgamma", "gamma", "gradGammaOut shares device memory with gamma"),
    ("dbeta", "dgamma", "gradGammaOut shares device memory with gradBetaOut"),
])
def test_group_norm_output_aliasing_is_refused(out, src, message):
    with pytest.raises(normgrad.AclnnError) as err:
        _group_norm({out: src})
    assert err.value.status == 161002
    assert message in str(err.value)


def test_group_norm_distinct_buffers_run():
    _group_norm({})  # the same call without aliasing succeeds: the check is not refusing everything


def _layer_norm(alias_of: dict[str, str]) -> None:
    """aclnnLayerNormBackward on 4x16 over the last dim, with each output in alias_of replaced."""
    rows, cols = 4, 16
    arrays = {"dy": np.ones((rows, cols), F32), "x": np.ones((rows, cols), F32),
              "mean": np.zeros((rows, 1), F32), "rstd": np.ones((rows, 1), F32),
              "weight": np.ones(cols, F32), "bias": np.zeros(cols, F32),
              "dx": np.zeros((rows, cols), F32), "dw": np.zeros(cols, F32), "db": np.zeros(cols, F32)}
    with ExitStack() as stack:
        t = {k: stack.enter_context(_native.tensor(v)) for k, v in arrays.items()}
        for out, src in alias_of.items():
            t[out] = t[src]
        shape = stack.enter_context(_native.int_array([cols]))
        mask = stack.enter_context(_native.bool_array([True, True, True]))
        _native.call_aclnn("aclnnLayerNormBackward", t["dy"], t["x"], shape, t["mean"], t["rstd"],
                           t["weight"], t["bias"], mask, t["dx"], t["dw"], t["db"])


@pytest.mark.parametrize("out,src,message", [
    ("dx", "dy", "gradInputOut shares device memory with gradOut"),
    ("dw", "weight", "gradWeightOut shares device memory with weightOptional"),
    ("db", "bias", "gradBiasOut shares device memory with biasOptional"),
    ("db", "dw", "gradWeightOut shares device memory with gradBiasOut"),
])
def test_layer_norm_output_aliasing_is_refused(out, src, message):
    with pytest.raises(normgrad.AclnnError) as err:
        _layer_norm({out: src})
    assert err.value.status == 161002
    assert message in str(err.value)


def test_layer_norm_distinct_buffers_run():
    _layer_norm({})
