"""Optimizers on a 0-d parameter (CLIP's ``logit_scale = nn.Parameter(torch.ones([]) * ...)``) beside a vector one:
the host-array paths of Adam/AdamW/RMSprop/Adagrad failed there (NumPy ufuncs of 0-d arrays return scalars).
Compared with PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch")

CASES = [("Adam", {}), ("AdamW", {"weight_decay": 0.1}), ("Adam", {"amsgrad": True, "weight_decay": 0.1, "maximize": True}),
         ("SGD", {"momentum": 0.9, "maximize": True, "weight_decay": 0.1}), ("SGD", {"momentum": 0.9, "nesterov": True}),
         ("RMSprop", {}), ("RMSprop", {"centered": True, "momentum": 0.5}), ("Adagrad", {"weight_decay": 0.1}),
         ("Adamax", {}), ("NAdam", {}), ("RAdam", {})]


def _run(lib, name, kw, dtype):
    p = lib.nn.Parameter(lib.tensor(2.0, dtype=dtype))
    q = lib.nn.Parameter(lib.tensor([1.0, -3.0], dtype=dtype))
    opt = getattr(lib.optim, name)([p, q], lr=0.1, **kw)
    for _ in range(3):
        opt.zero_grad()
        (p * p + (q * q).sum() * p).backward()
        opt.step()
    return p.detach().numpy(), q.detach().numpy(), tuple(p.shape)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_scalar_parameter_steps_match_torch(case, dtype):
    name, kw = CASES[case]
    a, b, shape = _run(openreg, name, kw, getattr(openreg, dtype))
    c, d, tshape = _run(torch, name, kw, getattr(torch, dtype))
    assert shape == tshape == ()
    np.testing.assert_allclose(a, c, rtol=1e-6 if dtype == "float32" else 1e-13)
    np.testing.assert_allclose(b, d, rtol=1e-6 if dtype == "float32" else 1e-13)
