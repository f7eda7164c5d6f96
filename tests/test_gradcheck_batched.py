"""``gradcheck``'s batched checks and PyTorch's keyword arguments (the forward-AD tutorial calls
``gradcheck(Fn.apply, (x,), check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False,
check_batched_grad=False)`` and stopped at an unexpected keyword argument)."""
import numpy as np
import pytest

import openreg
from openreg.autograd import GradcheckError, gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _x(shape=(2, 3), seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return openreg.tensor(a, dtype=openreg.float64, requires_grad=True)


def test_pytorch_keywords_accepted():
    class Exp(openreg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.result = x.exp()
            return ctx.result

        @staticmethod
        def jvp(ctx, g):
            return g * ctx.result

    assert gradcheck(Exp.apply, (_x(),), check_forward_ad=True, check_backward_ad=False,
                     check_undefined_grad=False, check_batched_grad=False, check_batched_forward_grad=True,
                     check_grad_dtypes=True)
    assert gradcheck(lambda a: (a * a).sin(), (_x(),), check_batched_grad=True, check_forward_ad=True,
                     check_batched_forward_grad=True)
    assert gradgradcheck(lambda a: (a * a * a).sum(), (_x(),), check_batched_grad=True, nondet_tol=0.0)
    with pytest.raises(NotImplementedError, match="masked=True"):
        gradcheck(lambda a: a * 2, (_x(),), masked=True)


def test_batched_gradients_mismatch_is_reported():
    calls = []

    class Drifting(openreg.autograd.Function):
        """A backward whose result changes from call to call (hidden state): batched != one at a time."""

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * 2 if len(calls) <= 4 else g * (2 + len(calls))

    x = _x((2,))
    with pytest.raises(GradcheckError, match="Mismatch in batched gradients"):
        gradcheck(Drifting.apply, (x,), check_batched_grad=True)
    calls.clear()
    assert not gradcheck(Drifting.apply, (x,), check_batched_grad=True, raise_exception=False)


@needs_torch
@pytest.mark.parametrize("name", ["sin", "exp", "tanh"])
def test_same_verdict_as_torch(name):
    a = np.random.default_rng(3).standard_normal((3, 2))
    verdicts = []
    for lib in (openreg, torch):
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        fn = getattr(lib, name)
        verdicts.append((lib.autograd.gradcheck(fn, (x,), check_batched_grad=True, check_forward_ad=True,
                                                check_batched_forward_grad=True),
                         lib.autograd.gradgradcheck(fn, (x,), check_batched_grad=True)))
    assert verdicts[0] == verdicts[1] == (True, True)
