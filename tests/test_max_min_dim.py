"""max(dim)/min(dim): one operator with its own backward node (MaxBackward0/MinBackward0, as PyTorch's), values
that are no views, bool inputs, NaN as the extreme, the first index among ties."""
import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:     # the comparisons with PyTorch skip; the NumPy ones run
    torch = None

DEVICES = ["cpu", "privateuseone"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["max", "min"])
def test_values_and_first_indices_match_numpy(device, name):
    x = np.array([[3.0, 1.0, 3.0, -2.0], [np.nan, 5.0, np.nan, 0.0], [-1.0, -1.0, 7.0, 7.0]], np.float32)
    t = openreg.tensor(x, device=device)
    values, indices = getattr(t, name)(1)
    find = np.argmax if name == "max" else np.argmin     # NaN is the extreme; ties: the first index
    expected = find(x, axis=1)
    assert indices.tolist() == expected.tolist()
    np.testing.assert_array_equal(values.cpu().numpy(), x[np.arange(3), expected])
    assert values._base is None and indices._base is None and indices.dtype == openreg.int64
    kept = getattr(openreg, name)(t, -1, keepdim=True)
    assert kept.values.shape == (3, 1) and kept.indices[:, 0].tolist() == expected.tolist()


@pytest.mark.parametrize("name", ["max", "min"])
def test_gradient_goes_to_the_selected_element_and_survives_in_place_ops(name):
    x = openreg.tensor([[1.0, 4.0, 4.0], [2.0, 0.0, 1.0]], requires_grad=True)
    values, _ = getattr(x, name)(1)
    assert values.grad_fn.name() == f"{name.capitalize()}Backward0"
    values.mul_(3)          # no view of a temporary: the in-place op is recorded on the values themselves
    values.sum().backward()
    expected = [[0.0, 3.0, 0.0], [3.0, 0.0, 0.0]] if name == "max" else [[3.0, 0.0, 0.0], [0.0, 3.0, 0.0]]
    assert x.grad.tolist() == expected


def test_bool_int_and_zero_dim_inputs():
    b = openreg.tensor([[False, True], [False, False]])
    assert b.max(1).values.tolist() == [True, False] and b.max(1).indices.tolist() == [1, 0]
    assert b.min(0).values.tolist() == [False, False]
    i = openreg.tensor([[5, -3, 9]], dtype=openreg.int32)
    assert i.min(1).values.dtype == openreg.int32 and i.min(1).indices.tolist() == [1]
    v, k = openreg.tensor(2.5).max(0)
    assert v.item() == 2.5 and k.item() == 0 and v.shape == () and k.shape == ()


def test_errors():
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        openreg.zeros(2, 0).max(1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        openreg.zeros(2, 3).min(2)
    with pytest.raises(RuntimeError, match="does not support complex"):
        openreg.zeros(2, dtype=openreg.complex64).max(0)


def test_forward_derivative_gathers_the_tangent():
    import openreg.autograd.forward_ad as fwAD
    x = openreg.tensor([[1.0, 4.0], [3.0, 2.0]])
    tangent = openreg.tensor([[10.0, 20.0], [30.0, 40.0]])
    with fwAD.dual_level():
        values, _ = fwAD.make_dual(x, tangent).max(1)
        assert fwAD.unpack_dual(values).tangent.tolist() == [20.0, 30.0]


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "uint8", "bool"])
@pytest.mark.parametrize("name", ["max", "min"])
def test_matches_pytorch(dtype, name):
    rng = np.random.default_rng(0)
    base = rng.integers(-3, 4, (5, 6, 7)).astype(np.float64)
    if dtype.startswith("float") or dtype == "bfloat16":
        base[0, 1, 2] = np.nan
    tt = torch.tensor(base).to(getattr(torch, dtype))
    ot = openreg.tensor(base).to(getattr(openreg, dtype))
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            tv, ti = getattr(tt, name)(dim, keepdim)
            ov, oi = getattr(ot, name)(dim, keepdim)
            assert ov.shape == tuple(tv.shape) and ov.dtype == getattr(openreg, dtype)
            np.testing.assert_array_equal(ov.float().numpy(), tv.float().numpy())
            assert oi.tolist() == ti.tolist()
