"""The nn.functional operations published on the openreg namespace with torch.*'s signatures (int reductions,
positional options, max_pool1d without indices, adaptive_max_pool1d with them), Tensor.hardshrink/prelu/positive/
negative_: against NumPy on both devices, and call for call against PyTorch when it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_numpy_values(devices):
    x = np.array([-2.0, -0.25, 0.0, 0.4, 3.0])
    t = openreg.tensor(x, device=devices)
    np.testing.assert_allclose(openreg.hardshrink(t).cpu().numpy(), np.where(np.abs(x) > 0.5, x, 0.0))
    np.testing.assert_allclose(t.hardshrink(0.3).cpu().numpy(), np.where(np.abs(x) > 0.3, x, 0.0))
    np.testing.assert_allclose(openreg.threshold(t, 0.1, 9.0).cpu().numpy(), np.where(x > 0.1, x, 9.0))
    np.testing.assert_allclose(openreg.celu(t, 2.0).cpu().numpy(),
                               np.maximum(x, 0) + np.minimum(0, 2.0 * np.expm1(x / 2.0)), rtol=1e-12)
    w = openreg.tensor([0.1], dtype=openreg.float64, device=devices)
    np.testing.assert_allclose(t.prelu(w).cpu().numpy(), np.where(x > 0, x, 0.1 * x))
    assert openreg.positive(t) is t
    y = t.clone()
    assert openreg.negative_(y) is y and y.cpu().tolist() == (-x).tolist()
    p = np.array([0.2, 0.8])
    logq = np.log(np.array([0.5, 0.5]))
    kl = openreg.kl_div(openreg.tensor(logq, device=devices), openreg.tensor(p, device=devices), 2)
    assert kl.item() == pytest.approx(float(np.sum(p * (np.log(p) - logq))), rel=1e-12)
    none = openreg.kl_div(openreg.tensor(logq, device=devices), openreg.tensor(p, device=devices), 0)
    assert none.shape == (2,)
    sig = openreg.tensor(np.arange(12.0).reshape(1, 2, 6), device=devices)
    assert openreg.max_pool1d(sig, 2).cpu().tolist() == [[[1.0, 3.0, 5.0], [7.0, 9.0, 11.0]]]
    assert openreg.avg_pool1d(sig, 3, []).cpu().tolist() == [[[1.0, 4.0], [7.0, 10.0]]]
    values, indices = openreg.adaptive_max_pool1d(sig, 2)
    assert values.cpu().tolist() == [[[2.0, 5.0], [8.0, 11.0]]] and indices.cpu().tolist() == [[[2, 5], [2, 5]]]


def test_errors():
    x = openreg.zeros(3)
    with pytest.raises(TypeError, match="must be int"):
        openreg.kl_div(x, x, "mean")
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        openreg.hinge_embedding_loss(x, x, 1.0, 7)
    with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
        openreg.positive(openreg.tensor([True]))
    with pytest.raises(NotImplementedError, match="generator"):
        openreg.rrelu(x, generator=openreg.Generator())


def _pair(shape, seed, positive=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.1
    return a


CASES = [
    ("selu", lambda: [_pair((3, 4), 0)], {}),
    ("celu", lambda: [_pair((3, 4), 1), 0.7], {}),
    ("rrelu", lambda: [_pair((3, 4), 2)], {}),
    ("threshold", lambda: [_pair((3, 4), 3), 0.1, -1.0], {}),
    ("prelu", lambda: [_pair((2, 3, 4), 4), np.array([0.2, 0.1, 0.3])], {}),
    ("hardshrink", lambda: [_pair((3, 4), 5)], {"lambd": 0.7}),
    ("pixel_shuffle", lambda: [_pair((1, 8, 2, 3), 6), 2], {}),
    ("pixel_unshuffle", lambda: [_pair((1, 2, 4, 6), 7), 2], {}),
    ("channel_shuffle", lambda: [_pair((1, 6, 2, 2), 8), 3], {}),
    ("cosine_similarity", lambda: [_pair((3, 5), 9), _pair((3, 5), 10)], {"dim": 0}),
    ("pairwise_distance", lambda: [_pair((3, 5), 11), _pair((3, 5), 12), 1.5], {"keepdim": True}),
    ("pdist", lambda: [_pair((4, 3), 13)], {"p": 3.0}),
    ("kl_div", lambda: [_pair((3, 4), 14), _pair((3, 4), 15, True), 0], {}),
    ("kl_div", lambda: [_pair((3, 4), 14), _pair((3, 4), 15), 1], {"log_target": True}),
    ("binary_cross_entropy_with_logits", lambda: [_pair((3, 4), 16), np.random.default_rng(0).random((3, 4)),
                                                  None, _pair((4,), 17, True), 2], {}),
    ("cosine_embedding_loss", lambda: [_pair((3, 4), 18), _pair((3, 4), 19), np.array([1.0, -1.0, 1.0]), 0.2,
                                       0], {}),
    ("margin_ranking_loss", lambda: [_pair((5,), 20), _pair((5,), 21), np.array([1.0, -1, 1, -1, 1]), 0.1], {}),
    ("margin_ranking_loss", lambda: [_pair((5,), 20), _pair((5,), 21), np.array([1.0, -1, 1, -1, 1]), 0.1, 1], {}),
    ("hinge_embedding_loss", lambda: [_pair((5,), 22), np.array([1.0, -1, 1, -1, 1]), 0.5, 2], {}),
    ("poisson_nll_loss", lambda: [_pair((5,), 23), _pair((5,), 24, True), True, True, 1e-8, 1], {}),
    ("poisson_nll_loss", lambda: [_pair((5,), 23, True), _pair((5,), 24, True), False, False, 1e-6, 0], {}),
    ("triplet_margin_loss", lambda: [_pair((3, 4), 25), _pair((3, 4), 26), _pair((3, 4), 27)],
     {"swap": True, "reduction": 2}),
    ("instance_norm", lambda: [_pair((2, 3, 5), 28), _pair((3,), 29), _pair((3,), 30), None, None, True, 0.1,
                               1e-5, False], {}),
    ("max_pool1d", lambda: [_pair((2, 3, 7), 31), 3, 2, 1], {"ceil_mode": True}),
    ("max_pool3d", lambda: [_pair((1, 2, 4, 4, 4), 32), 2], {}),
    ("avg_pool1d", lambda: [_pair((2, 3, 7), 33), 3, 2, 1, False, False], {}),
    ("adaptive_avg_pool1d", lambda: [_pair((2, 3, 7), 34), 3], {}),
    ("adaptive_max_pool1d", lambda: [_pair((2, 3, 7), 35), 3], {}),
    ("bilinear", lambda: [_pair((3, 4), 36), _pair((3, 5), 37), _pair((2, 4, 5), 38), _pair((2,), 39)], {}),
    ("rms_norm", lambda: [_pair((2, 3, 4), 40), [4], _pair((4,), 41)], {"eps": 1e-3}),
    ("alpha_dropout", lambda: [_pair((3, 4), 42), 0.5, False], {}),
    ("feature_alpha_dropout", lambda: [_pair((2, 3, 4), 43), 0.5, False], {}),
    ("positive", lambda: [_pair((3,), 44)], {}),
]


def _to(module, a, device):
    return module.tensor(a, device=device) if isinstance(a, np.ndarray) else a


@needs_torch
@pytest.mark.parametrize(("name", "make", "kwargs"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matches_pytorch(name, make, kwargs, devices):
    args = make()
    got = getattr(openreg, name)(*[_to(openreg, a, devices) for a in args], **kwargs)
    ref = getattr(torch, name)(*[_to(torch, a, "cpu") for a in args], **kwargs)
    if isinstance(ref, tuple):
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g.cpu().numpy(), r.numpy(), rtol=1e-10, atol=1e-12)
    else:
        assert got.shape == ref.shape and str(got.dtype) == str(ref.dtype).replace("torch", "openreg")
        np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
def test_ctc_loss_matches_pytorch():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((6, 2, 4))
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    targets = np.array([[1, 2, 1], [3, 1, 0]])
    for reduction in (0, 1, 2):
        got = openreg.ctc_loss(openreg.tensor(lp), openreg.tensor(targets), [6, 5], [3, 2], 0, reduction)
        ref = torch.ctc_loss(torch.tensor(lp), torch.tensor(targets), [6, 5], [3, 2], 0, reduction)
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-10)


def test_inplace_dropouts_return_input():
    x = openreg.ones(4)
    assert openreg.dropout_(x, 0.5, False) is x and openreg.alpha_dropout_(x, 0.5, False) is x
    assert openreg.feature_alpha_dropout_(openreg.ones(2, 3), 0.0, True).tolist() == [[1.0] * 3] * 2


def test_default_reduction_is_none_as_in_pytorchs_bindings():
    a, t = openreg.rand(5), openreg.ones(5)
    assert openreg.margin_ranking_loss(a, a, t).shape == (5,)
    assert openreg.kl_div(a, a).shape == (5,) and openreg.kl_div(a, a, 1).shape == ()


def test_feature_dropout(devices):
    x = openreg.ones(8, 5, 3, device=devices)
    assert openreg.feature_dropout(x, 0.5, False) is x
    y = openreg.feature_dropout(x, 0.5, True).cpu().numpy()
    per_channel = y.reshape(40, 3)
    assert ((per_channel == 0).all(1) | (per_channel == 2.0).all(1)).all()
    assert 0 < (per_channel == 0).all(1).sum() < 40
    z = openreg.ones(4, 6, device=devices)
    assert openreg.feature_dropout_(z, 1.0, True) is z and z.cpu().tolist() == [[0.0] * 6] * 4
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        openreg.feature_dropout(openreg.ones(3), 0.5, True)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        openreg.feature_dropout(x, 1.5, True)
