"""3-d layers: conv3d/conv_transpose3d (the N-d convolution records with 3-d kernels), nn.Conv3d/ConvTranspose3d,
nn.BatchNorm3d and nn.InstanceNorm3d: values against NumPy (direct sums, the adjoint identity of the transposed
convolution, batch/instance statistics) and, when installed, PyTorch's values and gradients, on the CPU and the
device."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import openreg
import openreg.nn.functional as F
from openreg import nn

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _np(t):
    return t.detach().cpu().numpy()


def _ref_conv3d(x, w, b, stride, padding):
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    n, _, d, h, wd = x.shape
    o, _, kd, kh, kw = w.shape
    out_shape = [(s - k) // st + 1 for s, k, st in zip((d, h, wd), (kd, kh, kw), stride)]
    out = np.zeros((n, o, *out_shape))
    for i, j, k in itertools.product(*(range(s) for s in out_shape)):
        patch = x[:, :, i * stride[0]:i * stride[0] + kd, j * stride[1]:j * stride[1] + kh,
                  k * stride[2]:k * stride[2] + kw]
        out[:, :, i, j, k] = np.einsum("ncdhw,ocdhw->no", patch, w)
    return out + b[None, :, None, None, None]


def test_conv3d_matches_numpy_and_transpose_is_its_adjoint(devices):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 3, 4, 5, 6)), rng.standard_normal((4, 3, 2, 3, 2)), rng.standard_normal(4)
    out = F.conv3d(openreg.tensor(x, device=devices), openreg.tensor(w, device=devices),
                   openreg.tensor(b, device=devices), stride=(1, 2, 1), padding=(1, 0, 1))
    np.testing.assert_allclose(_np(out), _ref_conv3d(x, w, b, (1, 2, 1), (1, 0, 1)), rtol=1e-10, atol=1e-10)
    y = rng.standard_normal(tuple(out.shape))
    back = F.conv_transpose3d(openreg.tensor(y, device=devices), openreg.tensor(w, device=devices),
                              stride=(1, 2, 1), padding=(1, 0, 1))
    assert tuple(back.shape) == x.shape
    conv_no_bias = _ref_conv3d(x, w, np.zeros(4), (1, 2, 1), (1, 0, 1))
    np.testing.assert_allclose((conv_no_bias * y).sum(), (x * _np(back)).sum(), rtol=1e-10)
    m = nn.Conv3d(3, 4, 3, padding="same").to(devices)
    assert m(openreg.tensor(x, device=devices, dtype=openreg.float32)).shape == (2, 4, 4, 5, 6)
    assert repr(nn.Conv3d(3, 4, 3, stride=2)) == "Conv3d(3, 4, kernel_size=(3, 3, 3), stride=(2, 2, 2))"
    assert nn.ConvTranspose3d(4, 2, 2, stride=2)(openreg.ones(1, 4, 2, 3, 3)).shape == (1, 2, 4, 6, 6)
    assert F.conv3d(openreg.ones(2, 3, 3, 3), openreg.ones(1, 2, 2, 2, 2)).shape == (1, 2, 2, 2)  # unbatched
    with pytest.raises(RuntimeError, match=r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv3d"):
        F.conv3d(openreg.ones(3, 3, 3), openreg.ones(1, 1, 2, 2, 2))


def test_batch_and_instance_norm3d_match_numpy(devices):
    x = np.random.default_rng(1).standard_normal((4, 3, 2, 3, 2))
    bn = nn.BatchNorm3d(3, dtype=openreg.float64).to(devices)
    y = bn(openreg.tensor(x, device=devices))
    mean, var = x.mean(axis=(0, 2, 3, 4)), x.var(axis=(0, 2, 3, 4))
    np.testing.assert_allclose(_np(y), (x - mean[:, None, None, None]) / np.sqrt(var[:, None, None, None] + 1e-5),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(bn.running_mean), 0.1 * mean, rtol=1e-10)
    with pytest.raises(ValueError, match=r"expected 5D input \(got 4D input\)"):
        bn(openreg.tensor(x[0], device=devices))
    inorm = nn.InstanceNorm3d(3).to(devices)
    z = inorm(openreg.tensor(x, device=devices))
    m, v = x.mean(axis=(2, 3, 4), keepdims=True), x.var(axis=(2, 3, 4), keepdims=True)
    np.testing.assert_allclose(_np(z), (x - m) / np.sqrt(v + 1e-5), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(inorm(openreg.tensor(x[0], device=devices))), _np(z)[0], rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize(("cls", "args", "kwargs"), [
    ("Conv3d", (3, 4, (3, 2, 3)), {"stride": (2, 1, 1), "padding": 1}),
    ("Conv3d", (3, 6, 2), {"groups": 3, "dilation": 2, "bias": False}),
    ("Conv3d", (3, 4, 3), {"padding": "same", "padding_mode": "circular"}),
    ("ConvTranspose3d", (3, 2, (2, 3, 2)), {"stride": 2, "padding": 1, "output_padding": 1}),
    ("BatchNorm3d", (3,), {}),
    ("InstanceNorm3d", (3,), {"affine": True}),
])
def test_3d_modules_match_pytorch(devices, cls, args, kwargs):
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 6, 4)).astype(np.float32)
    m = getattr(nn, cls)(*args, **kwargs).to(devices)
    tm = getattr(torch.nn, cls)(*args, **kwargs)
    assert list(m.state_dict()) == list(tm.state_dict())
    tm.load_state_dict({k: torch.tensor(_np(v)) for k, v in m.state_dict().items()})
    ox, tx = openreg.tensor(x, requires_grad=True, device=devices), torch.tensor(x, requires_grad=True)
    o, t = m(ox), tm(tx)
    np.testing.assert_allclose(_np(o), t.detach().numpy(), rtol=1e-4, atol=1e-5)
    (o ** 2).sum().backward()
    (t ** 2).sum().backward()
    np.testing.assert_allclose(_np(ox.grad), tx.grad.numpy(), rtol=1e-3, atol=1e-4)
    for (name, p), (_, tp) in zip(m.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(_np(p.grad), tp.grad.numpy(), rtol=1e-3, atol=1e-3, err_msg=name)
    for key, value in m.state_dict().items():
        np.testing.assert_allclose(_np(value), tm.state_dict()[key].numpy(), rtol=1e-5, atol=1e-6, err_msg=key)
