"""openreg.relu_(x), openreg.exp_(x), openreg.clamp_(x, ...) ...: PyTorch's in-place functions on the namespace,
modifying and returning their first argument (values against NumPy; the set of names against torch's)."""
import numpy as np
import pytest

import openreg
from openreg import _inplace_functions

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None

X = np.array([-1.5, -0.25, 0.5, 2.0], dtype=np.float32)


@pytest.mark.parametrize("name,args,expected", [
    ("relu_", (), np.maximum(X, 0)),
    ("exp_", (), np.exp(X)),
    ("sigmoid_", (), 1 / (1 + np.exp(-X))),
    ("tanh_", (), np.tanh(X)),
    ("clamp_", (-1.0, 1.0), np.clip(X, -1, 1)),
    ("neg_", (), -X),
    ("threshold_", (0.0, 7.0), np.where(X > 0, X, 7.0)),
    ("selu_", (), 1.0507009873554805 * np.where(X > 0, X, 1.6732632423543772 * np.expm1(X))),
])
def test_modifies_and_returns_input(name, args, expected):
    x = openreg.tensor(X)
    out = getattr(openreg, name)(x, *args)
    assert out is x
    np.testing.assert_allclose(x.numpy(), expected.astype(np.float32), rtol=1e-6)


def test_every_name_is_published():
    for name in _inplace_functions._METHOD_BACKED + _inplace_functions._FUNCTIONAL_BACKED:
        assert callable(getattr(openreg, name)), name


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_names_are_torch_functions():
    for name in _inplace_functions._METHOD_BACKED + _inplace_functions._FUNCTIONAL_BACKED:
        assert callable(getattr(torch, name, None)), name
