"""Transposed convolution (``aten::convolution`` with ``transposed=True``, ``F.conv_transpose1d/2d``,
``nn.ConvTranspose1d/2d``): gradcheck in float64, and outputs, input/weight/bias gradients, errors, repr and
parameters compared with PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg
import openreg.nn.functional as F
from openreg.autograd import gradcheck

CASES = [
    ((2, 4, 5, 6), (4, 3, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((2, 4, 5, 6), (4, 1, 3, 2), {"stride": (2, 1), "padding": (1, 0), "groups": 2, "dilation": (1, 2)}),
    ((4, 5, 6), (4, 3, 4, 4), {"stride": 2, "padding": 1}),
    ((2, 4, 7), (4, 3, 3), {"stride": 3, "padding": 1, "output_padding": 2}),
    ((4, 7), (4, 2, 2), {"groups": 2, "dilation": 2}),
]


@pytest.mark.parametrize("device", DEVICES)
def test_transposed_convolution_gradcheck(device):
    rng = np.random.default_rng(0)
    x, w, b = (openreg.tensor(rng.standard_normal(s), device=device).requires_grad_()
               for s in ((2, 4, 3, 3), (4, 1, 2, 3), (2,)))
    assert gradcheck(lambda x, w, b: openreg.ops.aten.convolution(x, w, b, [2, 1], [1, 0], [1, 2], True, [1, 0], 2),
                     (x, w, b))
    x1, w1 = (openreg.tensor(rng.standard_normal(s), device=device).requires_grad_() for s in ((1, 2, 4), (2, 3, 3)))
    assert gradcheck(lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1, output_padding=1), (x1, w1))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("xs", "ws", "kw"), CASES)
def test_conv_transpose_matches_torch(device, xs, ws, kw):
    tc = pytest.importorskip("torch_compare")
    torch = tc.torch
    rng = np.random.default_rng(1)
    groups = kw.get("groups", 1)
    arrays = [rng.standard_normal(xs).astype("float32"), rng.standard_normal(ws).astype("float32"),
              rng.standard_normal(ws[1] * groups).astype("float32")]
    ours = F.conv_transpose2d if len(ws) == 4 else F.conv_transpose1d
    theirs = torch.nn.functional.conv_transpose2d if len(ws) == 4 else torch.nn.functional.conv_transpose1d
    tc.compare(lambda x, w, b: ours(x, w, b, **kw), lambda x, w, b: theirs(x, w, b, **kw), arrays, device,
               grad=(0, 1, 2), rtol=1e-4, atol=1e-5)


def test_conv_transpose_errors_match_torch():
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(openreg.ones(1, 2, 3, 3), openreg.ones(2, 1, 3, 3), output_padding=1)
    with pytest.raises(RuntimeError, match="Given transposed=1, weight of size .* expected input.* to have 2 "
                                           "channels, but got 3 channels"):
        F.conv_transpose2d(openreg.ones(1, 3, 3, 3), openreg.ones(2, 1, 3, 3))
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 1 elements"):
        F.conv_transpose2d(openreg.ones(1, 2, 3, 3), openreg.ones(2, 1, 3, 3), openreg.ones(3))
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        openreg.nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match=r"requested an output size of \[20, 20\], but valid sizes range from "
                                         r"\[9, 9\] to \[10, 10\]"):
        openreg.nn.ConvTranspose2d(2, 3, 3, stride=2)(openreg.ones(1, 2, 4, 4), output_size=[20, 20])


def test_conv_transpose_module_parameters_repr_and_output_size():
    m = openreg.nn.ConvTranspose2d(2, 6, 3, stride=2, output_padding=1, groups=2, bias=False)
    assert repr(m) == "ConvTranspose2d(2, 6, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), groups=2, " \
                      "bias=False)"
    assert tuple(m.weight.shape) == (2, 3, 3, 3) and list(m.state_dict()) == ["weight"]
    bound = 1 / np.sqrt(3 * 9)
    assert float(m.weight.abs().max()) <= bound
    up = openreg.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    assert up(openreg.ones(1, 2, 4, 4)).shape == (1, 3, 7, 7)
    assert up(openreg.ones(1, 2, 4, 4), output_size=[8, 8]).shape == (1, 3, 8, 8)
    assert up(openreg.ones(2, 4, 4), output_size=[2, 8, 8]).shape == (3, 8, 8)
    assert repr(openreg.nn.ConvTranspose1d(2, 3, 3)) == "ConvTranspose1d(2, 3, kernel_size=(3,), stride=(1,))"


@pytest.mark.parametrize("device", DEVICES)
def test_conv_transpose_module_matches_torch_from_same_weights(device):
    tc = pytest.importorskip("torch_compare")
    torch = tc.torch
    theirs = torch.nn.ConvTranspose2d(3, 4, 4, stride=2, padding=1)
    ours = openreg.nn.ConvTranspose2d(3, 4, 4, stride=2, padding=1).to(device)
    ours.load_state_dict({k: openreg.tensor(v.detach().numpy(), device=device)
                          for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(2).standard_normal((2, 3, 5, 5)).astype("float32")
    tc.assert_close(ours(openreg.tensor(x, device=device)), theirs(torch.from_numpy(x)), 1e-4, 1e-5)
