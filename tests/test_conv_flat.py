"""Stride-1 convolutions on flattened padded images (operators/_conv_flat.py) agree with the strided im2col path
for 1-d, 2-d and 3-d, groups, dilation and padding, forward and both gradients; non-finite values stay where
they belong."""
import math

import numpy as np
import pytest

import openreg
from openreg.operators import _conv_flat

CASES = [  # (input size, weight size, padding, dilation, groups)
    ((2, 4, 9), (6, 2, 3), (1,), (2,), 2),
    ((3, 3, 7, 6), (4, 3, 3, 2), (1, 0), (1, 1), 1),
    ((2, 6, 8, 8), (6, 2, 3, 3), (2, 2), (2, 1), 3),
    ((1, 2, 4, 5, 3), (3, 2, 2, 3, 2), (1, 1, 0), (1, 1, 1), 1),
]


def _run(size, wsize, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x = openreg.tensor(rng.standard_normal(size)).requires_grad_()
    w = openreg.tensor(rng.standard_normal(wsize)).requires_grad_()
    y = openreg.ops.aten.convolution(x, w, None, [1] * (len(size) - 2), list(padding), list(dilation), False,
                                     [0] * (len(size) - 2), groups)
    g = openreg.tensor(rng.standard_normal(tuple(y.shape)))
    gx, gw = openreg.autograd.grad(y, [x, w], g)
    return [t.detach().numpy() for t in (y, gx, gw)]


@pytest.mark.parametrize("case", CASES)
def test_flat_path_matches_the_strided_path(case, monkeypatch):
    calls = []
    real = _conv_flat.applies
    monkeypatch.setattr(_conv_flat, "applies", lambda *a: calls.append(1) or real(*a))
    flat = _run(*case)
    assert calls and all(real(np, (1,)) for _ in calls)
    monkeypatch.setattr(_conv_flat, "applies", lambda *a: False)
    strided = _run(*case)
    for a, b in zip(flat, strided):
        assert a.flags["C_CONTIGUOUS"]
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_non_finite_values_take_the_strided_path():
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 1, 3] = math.inf          # the right edge: the flattened runs of other rows would read it
    assert not _conv_flat.applies(np, (1, 1), x)
    xt = openreg.tensor(x).requires_grad_()
    w = openreg.ones(1, 1, 2, 2, dtype=openreg.float64).requires_grad_()
    y = openreg.ops.aten.convolution(xt, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    _, gw = openreg.autograd.grad(y, [xt, w], openreg.ones(tuple(y.shape), dtype=openreg.float64))
    # only kernel column 1 ever sees the inf (kernel column 0 would need output column 3); a widened run would
    # have multiplied it by a zero gradient in column 0 too
    gw = gw.numpy()[0, 0]
    assert np.isinf(gw[:, 1]).all() and np.isfinite(gw[:, 0]).all()
    assert np.isinf(y.detach().numpy()[0, 0, :2, 2:]).all() and np.isfinite(y.detach().numpy()[0, 0, 2]).all()
