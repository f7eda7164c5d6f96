"""``F.softmax``/``log_softmax``/``softmin`` without ``dim`` pick PyTorch's implicit dimension and warn as it does
(the LSTM POS-tagger tutorial's ``F.log_softmax(tag_space)`` ran silently)."""
import warnings

import numpy as np
import pytest

import openreg
import openreg.nn.functional as F

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _np_log_softmax(a, dim):
    m = a.max(axis=dim, keepdims=True)
    return a - m - np.log(np.exp(a - m).sum(axis=dim, keepdims=True))


@pytest.mark.parametrize("shape,dim", [((5,), 0), ((3, 4), 1), ((2, 3, 4), 0), ((2, 3, 4, 5), 1)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_implicit_dim_warns_and_uses_pytorch_choice(shape, dim, name):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been deprecated") as rec:
        out = getattr(F, name)(openreg.tensor(a))
    assert rec[0].filename == __file__  # the warning points at the caller, as PyTorch's does
    ref = _np_log_softmax(-a if name == "softmin" else a, dim)
    np.testing.assert_allclose(out.numpy(), ref if name == "log_softmax" else np.exp(ref), rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(F, name)(openreg.tensor(a), dim=dim)
        getattr(openreg.nn, {"softmax": "Softmax", "log_softmax": "LogSoftmax", "softmin": "Softmin"}[name])(dim)(
            openreg.tensor(a))


@needs_torch
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_implicit_dim_message_matches_torch(name):
    msgs = []
    for lib in (openreg, torch):
        with pytest.warns(UserWarning) as rec:
            getattr(lib.nn.functional, name)(lib.ones(2, 3))
        msgs.append(str(rec[0].message))
    assert msgs[0] == msgs[1]
