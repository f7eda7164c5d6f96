"""``repeat``/``tile`` return new contiguous tensors, as PyTorch's: repeating along size-1 dims (stylegan2's
``ConstantInput``: ``self.input.repeat(batch, 1, 1, 1)`` then ``.view(...)``) or by ones returned a view whose
elements aliased each other and the input, so writes leaked and ``view`` refused the stride-0 result."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch")

CASES = [((1, 3), (2, 1)), ((3,), (1,)), ((1, 4, 2, 2), (3, 1, 1, 1)), ((2, 1, 3), (2, 3, 1, 2)), ((3, 2), (1, 1))]


@pytest.mark.parametrize("shape,repeats", CASES)
@pytest.mark.parametrize("how", ["repeat", "tile"])
def test_repeat_result_is_a_fresh_contiguous_tensor(shape, repeats, how):
    outs = []
    for L in (openreg, torch):
        x = L.arange(float(np.prod(shape))).reshape(shape)
        y = getattr(x, how)(*repeats)
        assert y.is_contiguous()
        before = x.clone()
        y.view(-1)[0] = -100.0
        assert L.equal(x, before)                       # the input is untouched
        outs.append((y.tolist(), tuple(y.stride())))
    assert outs[0] == outs[1]


def test_repeat_of_a_transposed_tensor_and_gradient_match_torch():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 2)).astype(np.float32)
    res = []
    for L in (openreg, torch):
        x = L.tensor(a, requires_grad=True)
        y = x.t().repeat(2, 1, 1)
        (y * L.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        res.append((y.stride(), y.tolist(), x.grad.tolist()))
    assert res[0] == res[1]
