"""NumPy scalars and subclasses of Python's number types as Scalar arguments: they are the numbers they hold, as
in PyTorch. A ``np.float64`` (a ``float`` subclass) went through ``int()`` and lost its fraction, so ``t * np.float64
(0.5)`` was zeros and an optimizer whose lr is a NumPy float (codertimo/BERT-pytorch's ScheduledOptim sets
``np.power(...)``) left its parameters unchanged."""
from __future__ import annotations

import enum

import numpy as np
import pytest
from device_params import DEVICES

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")


class _Float(float):
    pass


class _Level(enum.IntEnum):
    TWO = 2


SCALARS = [np.float64(0.3), np.float32(-1.5), np.float16(0.25), np.int64(3), np.int32(-2), np.uint8(7),
           np.bool_(True), _Float(0.7), _Level.TWO, np.complex128(0.5 + 1j)]


def _plain(v):
    if isinstance(v, np.bool_):
        return float(v)                    # PyTorch reads a NumPy bool as a number
    return v.item() if isinstance(v, np.generic) else (int(v) if isinstance(v, int) else float(v))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("v", SCALARS, ids=[f"{type(v).__name__}({v})" for v in SCALARS])
def test_numpy_scalar_is_the_number_it_holds(device, v):
    x = openreg.tensor([0.5, -2.0, 4.0], device=device)
    p = _plain(v)
    for f in (lambda a, s: a * s, lambda a, s: s * a, lambda a, s: a + s, lambda a, s: a - s, lambda a, s: a / s,
              lambda a, s: a.add(a, alpha=s), lambda a, s: a.mul(s), lambda a, s: openreg.full_like(a, s),
              lambda a, s: a.clone().fill_(s), lambda a, s: openreg.where(a > 0, a, s)):
        try:
            want = f(x, p)
        except RuntimeError as e:          # complex alpha for a real tensor: the same error
            with pytest.raises(RuntimeError, match=str(e)[:30]):
                f(x, v)
            continue
        got = f(x, v)
        assert got.dtype is want.dtype
        np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
    if not isinstance(p, complex):
        np.testing.assert_array_equal(x.clamp(min=v).cpu().numpy(), x.clamp(min=p).cpu().numpy())


@pytest.mark.parametrize("opt", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_optimizer_lr_as_numpy_float(opt):
    def run(lr):
        openreg.manual_seed(0)
        p = openreg.nn.Parameter(openreg.tensor([1.0, -2.0, 3.0]))
        o = getattr(openreg.optim, opt)([p], lr=0.1)
        for _ in range(3):
            o.param_groups[0]["lr"] = lr
            o.zero_grad()
            (p * p).sum().backward()
            o.step()
        return p.detach().numpy()
    np.testing.assert_array_equal(run(np.float64(0.01)), run(0.01))
    assert not np.array_equal(run(np.float64(0.01)), [1.0, -2.0, 3.0])


@needs_torch
def test_numpy_scalar_results_match_pytorch():
    for v in SCALARS:
        if isinstance(v, enum.Enum):
            continue
        a = openreg.tensor([0.5, -2.0, 4.0]) * v
        b = torch.tensor([0.5, -2.0, 4.0]) * v
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], v
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7)
        c = openreg.tensor([1, 2], dtype=openreg.int32) + v
        d = torch.tensor([1, 2], dtype=torch.int32) + v
        assert str(c.dtype).split(".")[-1] == str(d.dtype).split(".")[-1], v
        np.testing.assert_allclose(c.numpy(), d.numpy(), rtol=1e-7)
