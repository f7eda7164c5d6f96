"""Optimizers on complex parameters, as PyTorch's: every real and imaginary part is an independent scalar (the
built-in optimizers update the real views of the parameters, gradients and states), the states stay complex,
and a user-defined optimizer receives its complex parameters untouched."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

RNG = np.random.default_rng(3)
W0 = RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))
GRADS = [RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4)) for _ in range(3)]

OPTIMIZERS = [("Adam", {}), ("AdamW", {"weight_decay": 0.1}), ("Adam", {"amsgrad": True}), ("SGD", {"momentum": 0.9}),
              ("RMSprop", {"centered": True}), ("Adagrad", {}), ("Adamax", {}), ("NAdam", {}), ("RAdam", {}),
              ("Adadelta", {}), ("Rprop", {})]


@pytest.mark.parametrize(("name", "kw"), OPTIMIZERS, ids=[f"{n}{'-' + next(iter(k)) if k else ''}" for n, k in OPTIMIZERS])
def test_complex_parameter_steps_as_its_real_pairs(name, kw, devices):
    z = openreg.nn.Parameter(openreg.tensor(W0.tolist(), dtype=openreg.complex128, device=devices))
    r = openreg.nn.Parameter(openreg.tensor(np.stack([W0.real, W0.imag], -1).tolist(), dtype=openreg.float64,
                                            device=devices))
    oz = getattr(openreg.optim, name)([z], lr=0.05, **kw)
    orr = getattr(openreg.optim, name)([r], lr=0.05, **kw)
    for g in GRADS:
        z.grad = openreg.tensor(g.tolist(), dtype=openreg.complex128, device=devices)
        r.grad = openreg.tensor(np.stack([g.real, g.imag], -1).tolist(), dtype=openreg.float64, device=devices)
        oz.step()
        orr.step()
    got = z.detach().cpu().numpy()
    want = r.detach().cpu().numpy()
    np.testing.assert_allclose(np.stack([got.real, got.imag], -1), want, rtol=1e-13, atol=1e-15)
    for key, value in oz.state[z].items():
        if isinstance(value, openreg.Tensor) and value.dim():
            assert value.dtype is openreg.complex128 and value.shape == z.shape, key
    assert oz.param_groups[0]["params"][0] is z


def test_user_optimizer_sees_complex_parameters():
    seen = []

    class Mine(openreg.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        @openreg.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    seen.append(p.dtype)
                    p.sub_(p.grad * p.grad.conj() * group["lr"])    # complex arithmetic of its own

    z = openreg.nn.Parameter(openreg.tensor([1 + 1j]))
    z.grad = openreg.tensor([1 + 2j])
    Mine([z]).step()
    assert seen == [openreg.complex64]
    assert z.detach().tolist() == [pytest.approx(0.5 + 1j)]


def test_matches_torch_when_installed():
    torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")
    out = []
    for m in (openreg, torch):
        z = m.nn.Parameter(m.tensor(W0, dtype=m.complex64))
        o = m.optim.Adam([z], lr=0.05)
        for g in GRADS:
            z.grad = m.tensor(g, dtype=m.complex64)
            o.step()
        out.append((z.detach().numpy(), o.state[z]["exp_avg_sq"].numpy()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-6)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-6)
