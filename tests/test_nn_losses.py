"""Loss functions and loss modules against PyTorch (forward and input gradients), on CPU and the device."""
from __future__ import annotations

import numpy as np
import pytest
from torch_compare import compare, torch

import openreg
import openreg.nn.functional as F
from openreg import nn

TF = torch.nn.functional
rng = np.random.default_rng(0)
X = rng.standard_normal((4, 5)).astype(np.float32)
Y = rng.standard_normal((4, 5)).astype(np.float32)
P = rng.uniform(0.05, 0.95, (4, 5)).astype(np.float32)
T01 = (rng.uniform(size=(4, 5)) > 0.5).astype(np.float32)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name,kwargs,arrays", [
    ("l1_loss", {}, (X, Y)),
    ("mse_loss", {}, (X, Y)),
    ("smooth_l1_loss", {"beta": 0.5}, (X, Y)),
    ("smooth_l1_loss", {"beta": 0.0}, (X, Y)),
    ("huber_loss", {"delta": 0.7}, (X, Y)),
    ("binary_cross_entropy", {}, (P, T01)),
    ("binary_cross_entropy_with_logits", {}, (X * 10, P)),
    ("kl_div", {}, (np.log(P), P)),
    ("kl_div", {"log_target": True}, (np.log(P), np.log(P[::-1].copy()))),
])
@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
def test_loss_matches_torch(devices, name, kwargs, arrays, reduction):
    compare(lambda a, b: getattr(F, name)(a, b, reduction=reduction, **kwargs),
            lambda a, b: getattr(TF, name)(a, b, reduction=reduction, **kwargs),
            arrays, devices, grad=(0, 1) if name != "binary_cross_entropy" else (0,), rtol=1e-4, atol=1e-5)


def test_weighted_losses_match_torch(devices):
    w = rng.uniform(0.5, 2, (5,)).astype(np.float32)
    pw = rng.uniform(0.5, 2, (5,)).astype(np.float32)
    compare(lambda a, b, c, d: F.binary_cross_entropy_with_logits(a, b, c, pos_weight=d),
            lambda a, b, c, d: TF.binary_cross_entropy_with_logits(a, b, c, pos_weight=d),
            (X, P, w, pw), devices, grad=(0, 1))
    compare(lambda a, b, c: F.binary_cross_entropy(a, b, c, reduction="sum"),
            lambda a, b, c: TF.binary_cross_entropy(a, b, c, reduction="sum"), (P, T01, w), devices, grad=(0,))
    compare(lambda a, b: F.kl_div(a, b, reduction="batchmean"), lambda a, b: TF.kl_div(a, b, reduction="batchmean"),
            (np.log(P), np.where(T01 > 0, P, 0).astype(np.float32)), devices, grad=(0,))  # torch: nan d/dtarget at 0


def test_bce_extremes_are_finite_as_torch():
    p = openreg.tensor([0.0, 1.0, 0.0, 1.0])
    t = openreg.tensor([0.0, 0.0, 1.0, 1.0])
    assert F.binary_cross_entropy(p, t, reduction="none").tolist() == [0.0, 100.0, 100.0, -0.0]


def test_loss_errors_and_warnings():
    with pytest.raises(ValueError, match="Target size .* must be the same as input size"):
        F.binary_cross_entropy_with_logits(openreg.zeros(3), openreg.zeros(2))
    with pytest.raises(ValueError, match="different to the input size"):
        F.binary_cross_entropy(openreg.zeros(3), openreg.zeros(2))
    with pytest.warns(UserWarning, match="different to the input size"):
        F.l1_loss(openreg.zeros(3), openreg.zeros(1))
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(openreg.zeros(2), openreg.ones(2))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.l1_loss(openreg.zeros(2), openreg.zeros(2), reduction="avg")
    with pytest.raises(RuntimeError, match="negative values for beta"):
        F.smooth_l1_loss(openreg.zeros(2), openreg.zeros(2), beta=-1.0)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert F.mse_loss(openreg.ones(2), openreg.zeros(2), size_average=False).item() == 2.0


@pytest.mark.parametrize("cls,kwargs,arrays", [
    ("L1Loss", {}, (X, Y)), ("MSELoss", {"reduction": "sum"}, (X, Y)), ("SmoothL1Loss", {"beta": 0.3}, (X, Y)),
    ("HuberLoss", {"delta": 2.0}, (X, Y)), ("BCELoss", {}, (P, T01)), ("BCEWithLogitsLoss", {}, (X, P)),
    ("KLDivLoss", {"reduction": "batchmean"}, (np.log(P), P)),
])
def test_loss_modules_match_torch(devices, cls, kwargs, arrays):
    ours, theirs = getattr(nn, cls)(**kwargs), getattr(torch.nn, cls)(**kwargs)
    compare(ours, theirs, arrays, devices, grad=(0,), rtol=1e-4, atol=1e-5)


def test_class_index_losses_modules_match_torch(devices):
    logits = rng.standard_normal((6, 4)).astype(np.float32)
    target = np.array([0, 3, 1, -100, 2, 3])
    w = rng.uniform(0.5, 2, (4,)).astype(np.float32)
    for kwargs in ({}, {"label_smoothing": 0.1}, {"reduction": "sum", "ignore_index": 3},
                   {"reduction": "none", "label_smoothing": 0.2}):
        t = np.where(target < 0, 3, target) if kwargs.get("ignore_index") == 3 else target
        compare(lambda a, b, c, kw=kwargs: nn.CrossEntropyLoss(weight=c, **kw)(a, b),
                lambda a, b, c, kw=kwargs: torch.nn.CrossEntropyLoss(weight=c, **kw)(a, b),
                (logits, t, w), devices, grad=(0,), rtol=1e-4, atol=1e-5)
    compare(lambda a, b: nn.NLLLoss()(a, b), lambda a, b: torch.nn.NLLLoss()(a, b), (logits, target), devices,
            grad=(0,))


def test_cross_entropy_target_out_of_range():
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        F.cross_entropy(openreg.zeros(2, 4), openreg.tensor([1, 5]))
    with pytest.raises(IndexError, match="Target -2 is out of bounds."):     # negative: not a huge class
        F.cross_entropy(openreg.zeros(2, 4), openreg.tensor([1, -2]))
    with pytest.raises(IndexError, match="Target 4 is out of bounds."):
        F.nll_loss(openreg.zeros(2, 4), openreg.tensor([4, 0]), reduction="sum")


def test_nll_loss_ignore_index_among_the_classes():
    """An ignore_index that is a class: rows with it count for nothing (the fast path must not take them)."""
    logp = openreg.tensor([[-1.0, -2.0, -3.0], [-0.5, -1.5, -2.5], [-0.25, -4.0, -8.0]], requires_grad=True)
    target = openreg.tensor([2, 1, 0])
    for reduction, expected in (("mean", (3.0 + 0.25) / 2), ("sum", 3.25), ("none", [3.0, 0.0, 0.25])):
        loss = F.nll_loss(logp, target, ignore_index=1, reduction=reduction)
        assert loss.tolist() == expected
    F.nll_loss(logp, target, ignore_index=1).backward()
    assert logp.grad.tolist() == [[0.0, 0.0, -0.5], [0.0, 0.0, 0.0], [-0.5, 0.0, 0.0]]


def test_bce_gradient_at_probabilities_zero_and_one_as_torch(devices):
    """A saturated sigmoid gives probabilities exactly 0 or 1: PyTorch's gradient (x - y) / max(x (1 - x), 1e-12)
    stays finite there (pytorch/examples' siamese_network hit nan from the clamped logs' chain rule)."""
    p, t = np.array([1.0, 0.0, 0.3, 1.0], "float32"), np.array([0.0, 1.0, 1.0, 1.0], "float32")
    compare(F.binary_cross_entropy, torch.nn.functional.binary_cross_entropy, (p, t), devices, grad=(0,))
    x = openreg.tensor(p, device=devices, requires_grad=True)
    y = openreg.tensor(t, device=devices, requires_grad=True)
    F.binary_cross_entropy(x, y).backward()
    assert np.isfinite(np.asarray(x.grad.cpu())).all()
    assert y.grad.tolist()[2] == pytest.approx((np.log(0.7) - np.log(0.3)) / 4, rel=1e-5)
