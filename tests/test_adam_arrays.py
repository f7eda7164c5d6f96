"""Adam/AdamW's host-array path (optim/_adam_arrays.py) gives bitwise the results of its operator calls."""
import itertools

import numpy as np
import pytest

import openreg
from openreg.optim import _adam_arrays

DEVICES = ["cpu"] + (["privateuseone"] if openreg.privateuseone.is_available() else [])


def _trajectory(cls, cfg, dtype, dev, arrays_path, monkeypatch):
    if not arrays_path:
        monkeypatch.setattr(_adam_arrays, "update", lambda *a, **k: False)
    openreg.manual_seed(1)
    params = [openreg.nn.Parameter(openreg.randn(*s, dtype=dtype).to(dev)) for s in [(3, 4), (5,), (2, 2, 2)]]
    opt = cls(params, lr=0.01, **cfg)
    g = openreg.Generator().manual_seed(3)
    for i in range(5):
        for p in params:   # gradients of several magnitudes, so bias corrections and eps matter
            p.grad = openreg.randn(p.shape, generator=g, dtype=dtype).to(dev) * 10.0 ** (i % 3 - 2)
        opt.step()
    monkeypatch.undo()
    out = [p.detach().cpu().numpy() for p in params]
    for p in params:
        out += [v.cpu().numpy() for _, v in sorted(opt.state[p].items())]
    return out


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
def test_arrays_path_is_bitwise_the_operator_path(dev, dtype, monkeypatch):
    for cls, wd, amsgrad, maximize, beta1 in itertools.product((openreg.optim.Adam, openreg.optim.AdamW), (0, 0.1),
                                                               (False, True), (False, True), (0.9, 0.3)):
        cfg = {"weight_decay": wd, "amsgrad": amsgrad, "maximize": maximize, "betas": (beta1, 0.99)}
        fast = _trajectory(cls, cfg, dtype, dev, True, monkeypatch)
        ops = _trajectory(cls, cfg, dtype, dev, False, monkeypatch)
        assert len(fast) == len(ops)
        for a, b in zip(fast, ops):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b, err_msg=f"{cls.__name__} {cfg}")


def test_arrays_path_applies_and_bumps_versions():
    p = openreg.nn.Parameter(openreg.ones(3))
    p.grad = openreg.ones(3)
    state: dict = {}
    before = p._version
    assert _adam_arrays.update([p], [state], lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
                               amsgrad=False, decoupled=False, maximize=False)
    assert p._version > before and state["step"].item() == 1.0
    assert state["exp_avg"]._version > 0 and state["exp_avg_sq"]._version > 0


def test_arrays_path_declines_what_it_does_not_cover():
    p = openreg.nn.Parameter(openreg.ones(4, dtype=openreg.float16))
    p.grad = openreg.ones(4, dtype=openreg.float16)
    state: dict = {}
    assert not _adam_arrays.update([p], [state], lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
                                   amsgrad=False, decoupled=False, maximize=False)
    assert state == {} and p.tolist() == [1.0] * 4       # nothing written
    q = openreg.nn.Parameter(openreg.ones(4, 2))
    q.grad = openreg.ones(2, 4).t()                      # a non-contiguous gradient goes the operator way
    assert not _adam_arrays.update([q], [{}], lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
                                   amsgrad=False, decoupled=False, maximize=False)
