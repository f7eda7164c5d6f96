"""Unfold/Fold, AdaptiveMaxPool1d/2d, Bilinear and LazyLinear compared with PyTorch: outputs, indices, input
and parameter gradients on the CPU and the device, reprs, errors."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg
import openreg.nn.functional as F

tc = pytest.importorskip("torch_compare")
torch = tc.torch
TF = torch.nn.functional


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": (2, 3), "stride": 2, "padding": 1},
                                {"kernel_size": 3, "dilation": 2, "padding": (2, 1)}])
def test_unfold_and_fold_match_torch(device, kw):
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 6)).astype("float32")
    cols = tc.compare(lambda t: F.unfold(t, **kw), lambda t: TF.unfold(t, **kw), [x], device, grad=(0,))
    c = np.asarray(cols.detach().cpu())
    tc.compare(lambda t: F.fold(t, (7, 6), **kw), lambda t: TF.fold(t, (7, 6), **kw), [c], device, grad=(0,))
    tc.compare(lambda t: F.unfold(t, **kw), lambda t: TF.unfold(t, **kw), [x[0]], device, grad=(0,))


def test_fold_modules_repr_and_errors_match_torch():
    assert repr(openreg.nn.Unfold(3)) == repr(torch.nn.Unfold(3))
    assert repr(openreg.nn.Fold((4, 4), 2)) == repr(torch.nn.Fold((4, 4), 2))
    with pytest.raises(RuntimeError, match="expected size of input's dimension 2 to match the calculated number of "
                                           "sliding blocks 3 \\* 3 = 9, but got input.size\\(2\\)=5"):
        F.fold(openreg.ones(1, 8, 5), (4, 4), 2, stride=1)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D \\(batch mode\\) tensor"):
        F.unfold(openreg.ones(1, 2, 3, 4, 5), 2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("shape", "size"), [((2, 3, 7, 5), (3, 2)), ((3, 6, 6), 4), ((2, 3, 5, 9), (None, 4)),
                                             ((2, 3, 10), 4), ((3, 7), 3)])
def test_adaptive_max_pool_matches_torch(device, shape, size):
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    nd = 2 if len(shape) == 4 or (len(shape) == 3 and not isinstance(size, int) or shape == (3, 6, 6)) else 1
    ours = F.adaptive_max_pool2d if nd == 2 else F.adaptive_max_pool1d
    theirs = TF.adaptive_max_pool2d if nd == 2 else TF.adaptive_max_pool1d
    tc.compare(lambda t: ours(t, size), lambda t: theirs(t, size), [x], device, grad=(0,))
    _, idx = ours(openreg.tensor(x, device=device), size, return_indices=True)
    _, tidx = theirs(torch.from_numpy(x), size, return_indices=True)
    assert np.array_equal(np.asarray(idx.cpu()), tidx.numpy())
    module = (openreg.nn.AdaptiveMaxPool2d if nd == 2 else openreg.nn.AdaptiveMaxPool1d)(size)
    assert repr(module) == repr((torch.nn.AdaptiveMaxPool2d if nd == 2 else torch.nn.AdaptiveMaxPool1d)(size))


@pytest.mark.parametrize("device", DEVICES)
def test_bilinear_matches_torch(device):
    theirs = torch.nn.Bilinear(3, 4, 5)
    ours = openreg.nn.Bilinear(3, 4, 5)
    assert repr(ours) == repr(theirs) and sorted(ours.state_dict()) == sorted(theirs.state_dict())
    assert float(ours.weight.abs().max()) <= 1 / np.sqrt(3)
    ours.load_state_dict({k: openreg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    ours = ours.to(device)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 6, 3)).astype("float32"), rng.standard_normal((2, 6, 4)).astype("float32")
    tc.compare(ours, theirs, [a, b], device, grad=(0, 1), rtol=1e-5, atol=1e-5)
    tc.assert_close(ours.weight.grad, theirs.weight.grad, 1e-5, 1e-5)
    with pytest.raises(RuntimeError, match="input2 size does not match weight size: got 4 but expected 3"):
        F.bilinear(openreg.ones(2, 3), openreg.ones(2, 4), openreg.ones(5, 3, 3))


def test_lazy_linear_infers_in_features_on_first_call():
    m = openreg.nn.LazyLinear(4)
    assert m.in_features == 0
    y = m(openreg.ones(2, 7))
    assert type(m) is openreg.nn.Linear and tuple(m.weight.shape) == (4, 7) and y.shape == (2, 4)
    assert repr(m) == "Linear(in_features=7, out_features=4, bias=True)"
    assert float(m.weight.abs().max()) <= 1 / np.sqrt(7)

