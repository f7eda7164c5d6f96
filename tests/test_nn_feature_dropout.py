"""Channel-wise dropout (F.dropout1d/2d/3d and the Dropout1d/2d/3d modules) on CPU and the device."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
import openreg.nn.functional as F
from openreg import nn


@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (4, 16, 5)), (F.dropout1d, (16, 5)),
                                      (F.dropout2d, (4, 16, 3, 3)), (F.dropout3d, (2, 16, 2, 2, 2))])
def test_whole_channels_are_zeroed_and_the_rest_scaled(devices, fn, shape):
    openreg.manual_seed(0)
    x = openreg.ones(*shape, device=devices, requires_grad=True)
    out = fn(x, 0.25)
    arr = np.asarray(out.detach().cpu())
    channels = shape[0] if len(shape) == 2 else shape[0] * shape[1]     # (C, L) has no batch dimension
    per_channel = arr.reshape(channels, -1)
    assert set(np.unique(arr).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert all(len(set(row)) == 1 for row in per_channel)     # a channel is all kept or all dropped
    assert 0 < (per_channel[:, 0] == 0).sum() < len(per_channel)
    out.sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad.cpu()), arr)


def test_eval_is_identity_and_p_edges(devices):
    x = openreg.ones(2, 3, 4, device=devices)
    assert nn.Dropout1d(0.5).eval()(x) is x
    assert F.dropout2d(openreg.ones(2, 3, 2, 2), 1.0).sum().item() == 0.0
    y = openreg.ones(2, 3, 2, 2)
    assert F.dropout2d(y, 0.0) is y
    z = openreg.ones(2, 8, 2, 2)
    assert F.dropout2d(z, 0.5, inplace=True) is z
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout2d(1.5)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(openreg.ones(2, 3, 4, 5))
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        F.dropout2d(openreg.ones(2, 3, 4), training=False)
    assert repr(nn.Dropout2d(0.3)) == "Dropout2d(p=0.3, inplace=False)"
