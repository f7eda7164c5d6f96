"""Margin, embedding and likelihood losses (functional and modules) compared with PyTorch: values for every
reduction and input gradients on the CPU and the device, reprs and errors."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg
import openreg.nn.functional as F

tc = pytest.importorskip("torch_compare")
torch = tc.torch
TF = torch.nn.functional

rng = np.random.default_rng(0)
X1, X2, X3 = (rng.standard_normal((6, 4)).astype("float32") for _ in range(3))
SIGN = np.where(rng.random(6) > 0.5, 1.0, -1.0).astype("float32")
SIGN4 = np.where(rng.random((6, 4)) > 0.5, 1.0, -1.0).astype("float32")
BIN4 = (rng.random((6, 4)) > 0.5).astype("float32")
COUNTS = rng.integers(0, 5, (6, 4)).astype("float32")
POS = (rng.random((6, 4)) + 0.1).astype("float32")

CASES = {
    "margin_ranking": (lambda f, a, b, t, r: f.margin_ranking_loss(a, b, t, 0.3, reduction=r),
                       [X1[:, 0], X2[:, 0], SIGN], (0, 1)),
    "hinge_embedding": (lambda f, a, t, r: f.hinge_embedding_loss(a, t, 0.7, reduction=r), [X1, SIGN4], (0,)),
    "soft_margin": (lambda f, a, t, r: f.soft_margin_loss(a, t, reduction=r), [X1, SIGN4], (0,)),
    "multilabel_soft_margin": (lambda f, a, t, r: f.multilabel_soft_margin_loss(a, t, reduction=r), [X1, BIN4], (0,)),
    "multilabel_soft_margin_w": (lambda f, a, t, w, r: f.multilabel_soft_margin_loss(a, t, w, reduction=r),
                                 [X1, BIN4, POS[0]], (0,)),
    "cosine_embedding": (lambda f, a, b, t, r: f.cosine_embedding_loss(a, b, t, 0.2, reduction=r), [X1, X2, SIGN],
                         (0, 1)),
    "triplet": (lambda f, a, p, n, r: f.triplet_margin_loss(a, p, n, 1.5, reduction=r), [X1, X2, X3], (0, 1, 2)),
    "triplet_swap_p1": (lambda f, a, p, n, r: f.triplet_margin_loss(a, p, n, 2.0, p=1, swap=True, reduction=r),
                        [X1, X2, X3], (0, 1, 2)),
    "poisson_log": (lambda f, a, t, r: f.poisson_nll_loss(a, t, reduction=r), [X1, COUNTS], (0,)),
    "poisson_full": (lambda f, a, t, r: f.poisson_nll_loss(a, t, log_input=False, full=True, reduction=r),
                     [POS, COUNTS], (0,)),
    "gaussian": (lambda f, a, t, v, r: f.gaussian_nll_loss(a, t, v, reduction=r), [X1, X2, POS], (0, 1, 2)),
    "gaussian_homo_full": (lambda f, a, t, v, r: f.gaussian_nll_loss(a, t, v, full=True, reduction=r),
                           [X1, X2, POS[:, 0]], (0, 1, 2)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_matches_torch(device, reduction, name):
    fn, arrays, grad = CASES[name]
    tc.compare(lambda *t: fn(F, *t, reduction), lambda *t: fn(TF, *t, reduction), arrays, device, grad=grad,
               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_loss_modules_match_torch(device):
    mods = [("MarginRankingLoss", {"margin": 0.5}, [X1[:, 0], X2[:, 0], SIGN]),
            ("HingeEmbeddingLoss", {"margin": 2.0}, [X1, SIGN4]),
            ("SoftMarginLoss", {"reduction": "sum"}, [X1, SIGN4]),
            ("MultiLabelSoftMarginLoss", {}, [X1, BIN4]),
            ("CosineEmbeddingLoss", {"margin": 0.1}, [X1, X2, SIGN]),
            ("TripletMarginLoss", {"margin": 0.5, "p": 1.0}, [X1, X2, X3]),
            ("PoissonNLLLoss", {"log_input": True}, [X1, COUNTS]),
            ("GaussianNLLLoss", {"full": True}, [X1, X2, POS])]
    for name, kw, arrays in mods:
        ours, theirs = getattr(openreg.nn, name)(**kw), getattr(torch.nn, name)(**kw)
        assert repr(ours) == repr(theirs)
        tc.compare(ours, theirs, arrays, device, grad=(0,), rtol=1e-5, atol=1e-6)
    dist = openreg.nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: (a - b).abs().sum(-1))
    theirs = torch.nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: (a - b).abs().sum(-1))
    tc.compare(dist, theirs, [X1, X2, X3], device, grad=(0,))


def test_loss_errors_match_torch():
    with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
        F.margin_ranking_loss(openreg.ones(2), openreg.ones(2), openreg.ones(1, 2))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(openreg.ones(2), openreg.ones(2), -openreg.ones(2))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(openreg.ones(2, 3), openreg.ones(2, 3), openreg.ones(3, 2))
    with pytest.raises(ValueError, match="expected margin to be greater than 0"):
        openreg.nn.TripletMarginWithDistanceLoss(margin=0.0)
