"""``F.interpolate`` and the upsampling modules (nearest, nearest-exact, linear, bilinear, bicubic, area;
``size``/``scale_factor``/``align_corners``/``recompute_scale_factor``) compared with PyTorch: outputs and input
gradients on the CPU and the device, errors, reprs."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg
import openreg.nn.functional as F

CASES = [
    ((2, 3, 5, 7), {"scale_factor": 2, "mode": "nearest"}),
    ((2, 3, 5, 7), {"size": (8, 3), "mode": "nearest"}),
    ((2, 3, 5, 7), {"scale_factor": 1.7, "mode": "nearest"}),
    ((2, 3, 5, 7), {"scale_factor": (1.5, 2.3), "mode": "bilinear"}),
    ((2, 3, 5, 7), {"size": (9, 4), "mode": "bilinear", "align_corners": True}),
    ((2, 3, 5, 7), {"size": (2, 3), "mode": "bilinear"}),
    ((2, 3, 5, 7), {"scale_factor": 2.5, "mode": "bilinear", "recompute_scale_factor": True}),
    ((2, 3, 5, 7), {"size": (9, 11), "mode": "bicubic"}),
    ((2, 3, 5, 7), {"scale_factor": 1.3, "mode": "bicubic", "align_corners": True}),
    ((2, 3, 7), {"size": 12, "mode": "linear"}),
    ((2, 3, 7), {"scale_factor": 0.6, "mode": "linear"}),
    ((2, 3, 7), {"scale_factor": 2.2, "mode": "nearest"}),
    ((2, 3, 7), {"scale_factor": 2.2, "mode": "nearest-exact"}),
    ((2, 3, 5, 7), {"size": (3, 10), "mode": "nearest-exact"}),
    ((2, 3, 5, 7), {"size": (3, 4), "mode": "area"}),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("shape", "kw"), CASES)
def test_interpolate_matches_torch(device, dtype, shape, kw):
    tc = pytest.importorskip("torch_compare")
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    tc.compare(lambda t: F.interpolate(t, **kw), lambda t: tc.torch.nn.functional.interpolate(t, **kw), [x], device,
               grad=(0,), rtol=tol, atol=tol)


def test_interpolate_errors_match_torch():
    x = openreg.ones(1, 1, 2, 2)
    with pytest.raises(ValueError, match="align_corners option can only be set with the interpolating modes"):
        F.interpolate(x, scale_factor=2, align_corners=True)
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        F.interpolate(x, size=3, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="Input and output must have the same number of spatial dimensions"):
        F.interpolate(x, size=(3, 3, 3))
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode needs 3D input"):
        F.interpolate(x, scale_factor=2, mode="linear")
    with pytest.raises(NotImplementedError, match="Input Error: Only 3D, 4D and 5D input Tensors supported"):
        F.interpolate(x, scale_factor=2, mode="cubic")


def test_upsample_modules_repr_and_shapes():
    assert repr(openreg.nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"
    assert repr(openreg.nn.Upsample(size=(3, 4), mode="bilinear")) == "Upsample(size=(3, 4), mode='bilinear')"
    assert repr(openreg.nn.UpsamplingBilinear2d(scale_factor=2)) == \
        "UpsamplingBilinear2d(scale_factor=2.0, mode='bilinear')"
    assert openreg.nn.UpsamplingNearest2d(size=5)(openreg.ones(1, 2, 3, 3)).shape == (1, 2, 5, 5)
    assert list(openreg.nn.Upsample(scale_factor=2).state_dict()) == []


@pytest.mark.parametrize("device", DEVICES)
def test_upsampling_bilinear2d_module_matches_torch(device):
    tc = pytest.importorskip("torch_compare")
    x = np.random.default_rng(3).standard_normal((1, 2, 3, 4)).astype("float32")
    tc.compare(lambda t: openreg.nn.UpsamplingBilinear2d(scale_factor=2)(t),
               lambda t: tc.torch.nn.UpsamplingBilinear2d(scale_factor=2)(t), [x], device, grad=(0,))


@pytest.mark.parametrize("mode,align_corners", [("nearest", None), ("nearest-exact", None), ("area", None),
                                                ("trilinear", False), ("trilinear", True)])
@pytest.mark.parametrize("kw", [{"scale_factor": 2}, {"size": (3, 5, 4)}, {"scale_factor": (0.5, 1.5, 2.0)}])
def test_interpolate_volumes_match_torch(mode, align_corners, kw):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    results = []
    for lib in (openreg, torch):
        t = lib.tensor(x).requires_grad_()
        y = lib.nn.functional.interpolate(t, mode=mode, align_corners=align_corners, **kw)
        g = np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(np.float32)
        y.backward(lib.tensor(g))
        results.append((np.array(y.detach().tolist()), np.array(t.grad.tolist())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=0, atol=3e-6)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("kw", [{"size": (3, 5)}, {"scale_factor": 0.3}, {"size": (17, 9)},
                                {"scale_factor": (2.5, 0.5)}])
def test_interpolate_antialias_matches_torch(mode, align_corners, kw):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 11)).astype(np.float32)
    results = []
    for lib in (openreg, torch):
        t = lib.tensor(x).requires_grad_()
        y = lib.nn.functional.interpolate(t, mode=mode, align_corners=align_corners, antialias=True, **kw)
        y.backward(lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(np.float32)))
        results.append((np.array(y.detach().tolist()), np.array(t.grad.tolist())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=0, atol=3e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=0, atol=3e-6)
