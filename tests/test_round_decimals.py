"""``round(decimals=)``: PyTorch's ``rint(x * 10**d) / 10**d`` (``rint(x / 10**-d) * 10**-d`` for negative ``d``)
in the dtype's compute precision, its zero gradient, in-place and ``out=`` forms."""
import numpy as np
import pytest
from device_params import DEVICES

import openreg

VALUES = [1234.5678, -2.5, 0.125, 2.675, -0.0049, 1e30, float("nan")]


@pytest.mark.parametrize("device", DEVICES)
def test_round_decimals_against_numpy(device):
    x = np.array(VALUES, dtype=np.float32)
    t = openreg.tensor(x, device=device)
    for d in (3, 2, 1, -1, -2):
        s = np.float32(10.0 ** abs(d))
        expect = np.rint(x / s) * s if d < 0 else np.rint(x * s) / s
        np.testing.assert_array_equal(np.array(openreg.round(t, decimals=d).tolist(), dtype=np.float32), expect)
    out = openreg.empty(len(VALUES), device=device)
    openreg.round(t, decimals=1, out=out)
    assert out.tolist()[:3] == t.round(decimals=1).tolist()[:3]
    y = t.clone()
    assert y.round_(decimals=-2) is y and y.tolist()[0] == 1200.0
    with pytest.raises(NotImplementedError, match="round_cpu\" not implemented for 'Long'"):
        openreg.tensor([1, 2], device=device).round(decimals=1)


def test_round_decimals_follows_torch():
    torch = pytest.importorskip("torch")
    for dtype in ("float16", "bfloat16", "float32", "float64"):
        for d in (2, -2, 0, 40, -2**63):
            got, want = (np.array(lib.round(lib.tensor(VALUES).to(getattr(lib, dtype)), decimals=d).float().tolist())
                         for lib in (openreg, torch))
            np.testing.assert_array_equal(got, want)
    x = openreg.tensor([1.2345], requires_grad=True)
    y = x.round(decimals=2)
    y.sum().backward()
    assert y.grad_fn.name() == "RoundBackward1" and x.grad.tolist() == [0.0]
