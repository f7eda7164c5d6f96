"""InstanceNorm1d/2d (+ ``F.instance_norm`` with running statistics), RMSNorm (+ ``F.rms_norm``),
PixelShuffle/PixelUnshuffle, CosineSimilarity/PairwiseDistance/pdist compared with PyTorch: outputs, input and
parameter gradients, running statistics, reprs, state_dict keys, errors."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg
import openreg.nn.functional as F

tc = pytest.importorskip("torch_compare")
torch = tc.torch
TF = torch.nn.functional


def _copy_params(ours, theirs, device):
    ours.load_state_dict({k: openreg.tensor(v.detach().numpy(), device=device) for k, v in theirs.state_dict().items()})
    return ours.to(device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("name", "shape", "kw"), [
    ("InstanceNorm2d", (2, 3, 4, 5), {"affine": True}),
    ("InstanceNorm2d", (3, 4, 5), {}),
    ("InstanceNorm1d", (2, 3, 6), {"affine": True, "track_running_stats": True}),
    ("InstanceNorm2d", (2, 3, 4, 4), {"track_running_stats": True, "momentum": 0.3}),
])
def test_instance_norm_module_matches_torch(device, name, shape, kw):
    rng = np.random.default_rng(0)
    theirs = getattr(torch.nn, name)(3, **kw)
    if kw.get("affine"):
        with torch.no_grad():
            theirs.weight.uniform_(0.5, 1.5)
            theirs.bias.uniform_(-0.5, 0.5)
    ours = _copy_params(getattr(openreg.nn, name)(3, **kw), theirs, device)
    assert repr(ours) == repr(theirs) and sorted(ours.state_dict()) == sorted(theirs.state_dict())
    x = rng.standard_normal(shape).astype("float32") * 2 + 1
    tc.compare(ours, theirs, [x], device, grad=(0,), rtol=1e-4, atol=1e-5)
    if kw.get("affine"):
        tc.assert_close(ours.weight.grad, theirs.weight.grad, 1e-4, 1e-5)
        tc.assert_close(ours.bias.grad, theirs.bias.grad, 1e-4, 1e-5)
    if kw.get("track_running_stats"):
        tc.assert_close(ours.running_mean, theirs.running_mean, 1e-5, 1e-6)
        tc.assert_close(ours.running_var, theirs.running_var, 1e-5, 1e-6)
        ours.eval()
        theirs.eval()
        tc.assert_close(ours(openreg.tensor(x, device=device)), theirs(torch.from_numpy(x)), 1e-4, 1e-5)


def test_instance_norm_errors_match_torch():
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
        F.instance_norm(openreg.ones(2, 3, 1))
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
        openreg.nn.InstanceNorm2d(3)(openreg.ones(2, 3))
    with pytest.raises(ValueError, match="expected input's size at dim=1 to match num_features"):
        openreg.nn.InstanceNorm1d(3, affine=True)(openreg.ones(2, 4, 5))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("shape", "normalized", "kw"), [
    ((2, 3, 4), (4,), {}), ((2, 3, 4), (3, 4), {"eps": 1e-3}), ((5, 6), 6, {"elementwise_affine": False})])
def test_rms_norm_matches_torch(device, shape, normalized, kw):
    theirs = torch.nn.RMSNorm(normalized, **kw)
    if theirs.weight is not None:
        with torch.no_grad():
            theirs.weight.uniform_(0.5, 1.5)
    ours = _copy_params(openreg.nn.RMSNorm(normalized, **kw), theirs, device)
    assert repr(ours) == repr(theirs) and sorted(ours.state_dict()) == sorted(theirs.state_dict())
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    tc.compare(ours, theirs, [x], device, grad=(0,), rtol=1e-5, atol=1e-6)
    if theirs.weight is not None:
        tc.assert_close(ours.weight.grad, theirs.weight.grad, 1e-5, 1e-6)


@pytest.mark.parametrize("xd", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize("wd", [None, "bfloat16", "float32"])
def test_rms_norm_half_inputs_bitwise_torch(xd, wd):
    """float16/bfloat16 inputs are normalized in float32 with float32's epsilon and rounded once at the end, as
    PyTorch does (openreg computed in the input's dtype with its epsilon: RMSNorm of bfloat16 values of 0.01 gave
    0.11 instead of 1.0; LLMs-from-scratch's Llama 3.2 runs nn.RMSNorm in bfloat16)."""
    r = np.random.default_rng(3)
    x = (r.standard_normal((16, 32)) * 3).astype("float32")
    w = r.standard_normal(32).astype("float32")
    tx, ox = torch.tensor(x).to(getattr(torch, xd)), openreg.tensor(x).to(getattr(openreg, xd))
    tw = None if wd is None else torch.tensor(w).to(getattr(torch, wd))
    ow = None if wd is None else openreg.tensor(w).to(getattr(openreg, wd))
    want, got = torch.nn.functional.rms_norm(tx, (32,), tw), F.rms_norm(ox, (32,), ow)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    rtol = 0 if xd != "float32" else 1e-6     # float32: the mean's summation order may differ by an ulp
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=rtol, atol=0)
    small = F.rms_norm(openreg.full((4,), 0.01, dtype=getattr(openreg, xd)), (4,))
    assert small.float().tolist() == torch.nn.functional.rms_norm(torch.full((4,), 0.01, dtype=getattr(torch, xd)),
                                                                  (4,)).float().tolist()


def test_rms_norm_errors_match_torch():
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[3\], expected input with shape \[\*3\]"):
        F.rms_norm(openreg.ones(3, 4), [3])


@pytest.mark.parametrize("device", DEVICES)
def test_pixel_shuffle_and_unshuffle_match_torch(device):
    x = np.random.default_rng(2).standard_normal((2, 18, 3, 4)).astype("float32")
    tc.compare(lambda t: F.pixel_shuffle(t, 3), lambda t: TF.pixel_shuffle(t, 3), [x], device, grad=(0,))
    tc.compare(lambda t: F.pixel_unshuffle(t, 2), lambda t: TF.pixel_unshuffle(t, 2),
               [x.reshape(1, 2, 18, 12)], device, grad=(0,))
    assert repr(openreg.nn.PixelShuffle(2)) == repr(torch.nn.PixelShuffle(2))
    assert repr(openreg.nn.PixelUnshuffle(3)) == repr(torch.nn.PixelUnshuffle(3))
    with pytest.raises(RuntimeError, match="input.size\\(-3\\)=5 is not divisible by 4"):
        F.pixel_shuffle(openreg.ones(1, 5, 2, 2), 2)
    with pytest.raises(RuntimeError, match="expects height to be divisible by downscale_factor"):
        F.pixel_unshuffle(openreg.ones(1, 5, 3, 2), 2)


@pytest.mark.parametrize("device", DEVICES)
def test_distances_match_torch(device):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 5)).astype("float32"), rng.standard_normal((4, 5)).astype("float32")
    tc.compare(F.cosine_similarity, TF.cosine_similarity, [a, b], device, grad=(0, 1))
    tc.compare(lambda x, y: F.cosine_similarity(x, y, 0), lambda x, y: TF.cosine_similarity(x, y, 0),
               [a, b[:1]], device, grad=(0, 1))
    for p, keep in [(2.0, False), (1.0, True), (3.0, False)]:
        tc.compare(lambda x, y, p=p, keep=keep: F.pairwise_distance(x, y, p, keepdim=keep),
                   lambda x, y, p=p, keep=keep: TF.pairwise_distance(x, y, p, keepdim=keep), [a, b], device,
                   grad=(0, 1))
    tc.compare(lambda x: F.pdist(x), lambda x: TF.pdist(x), [a], device, grad=(0,), rtol=1e-5, atol=1e-5)
    tc.compare(openreg.nn.CosineSimilarity(dim=1, eps=1e-6), torch.nn.CosineSimilarity(dim=1, eps=1e-6), [a, b],
               device, grad=(0,))
    tc.compare(openreg.nn.PairwiseDistance(p=1.5), torch.nn.PairwiseDistance(p=1.5), [a, b], device, grad=(1,))
