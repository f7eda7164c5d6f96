"""nansum, nanmean (operators/nan_reductions.py), var_mean, std_mean, aminmax (operators/paired_reductions.py)
and openreg.special, against PyTorch: values, dtypes, shapes, gradients and errors."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

DATA = [[1.0, float("nan"), 3.0], [4.0, 2.0, float("nan")]]


def _same(ours, theirs):
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(np.asarray(ours.cpu().tolist(), dtype=float),
                               np.asarray(theirs.tolist(), dtype=float), rtol=1e-6, equal_nan=True)


CALLS = [
    ("nansum", (), {}), ("nansum", (1,), {}), ("nansum", (0,), {"keepdim": True}),
    ("nansum", (), {"dtype": "float64"}), ("nanmean", (), {}), ("nanmean", (1,), {"keepdim": True}),
    ("nanmean", ((0, 1),), {}), ("var_mean", (), {}), ("var_mean", (1,), {"unbiased": False}),
    ("std_mean", (0,), {"keepdim": True}), ("std_mean", (), {"correction": 0}), ("aminmax", (), {}),
    ("aminmax", (), {"dim": 1}), ("aminmax", (), {"dim": 0, "keepdim": True}), ("aminmax", (), {"keepdim": True}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS)
@pytest.mark.parametrize("nan", [True, False])
def test_values_match_torch(name, args, kwargs, nan, devices):
    data = DATA if nan else [[1.0, 5.0, 3.0], [4.0, 2.0, 0.5]]
    ours = openreg.tensor(data, device=devices)
    theirs = torch.tensor(data)
    ok = {k: getattr(openreg, v) if k == "dtype" else v for k, v in kwargs.items()}
    tk = {k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
    _same(_plain(getattr(openreg, name)(ours, *args, **ok)), _plain(getattr(torch, name)(theirs, *args, **tk)))


def _plain(result):
    """A named tuple of results as a plain tuple (openreg's and PyTorch's named tuple types differ)."""
    return tuple(result) if isinstance(result, tuple) else result


def test_integer_and_bool_inputs():
    i = openreg.tensor([1, 2, 3], dtype=openreg.int32)
    assert openreg.nansum(i).dtype == openreg.int64 and openreg.nansum(i).item() == 6
    with pytest.raises(RuntimeError, match="nanmean\\(\\): expected input to have floating point or complex dtype "
                                           "but got Int"):
        openreg.nanmean(i)
    r = openreg.aminmax(openreg.tensor([True, False]))
    assert (r.min.item(), r.max.item()) == (False, True)


def test_aminmax_errors_and_empty():
    with pytest.raises(IndexError, match="aminmax: Expected reduction dim 1 to have non-zero size"):
        openreg.aminmax(openreg.empty(1, 0), dim=1)
    with pytest.raises(RuntimeError, match="cannot compute aminmax over an empty dimension"):
        openreg.aminmax(openreg.empty(0))
    assert tuple(openreg.aminmax(openreg.empty(1, 0), dim=0).min.shape) == (0,)


def test_gradients_match_torch(devices):
    for name in ("nansum", "nanmean"):
        x = openreg.tensor(DATA, device=devices, requires_grad=True)
        t = torch.tensor(DATA, requires_grad=True)
        getattr(openreg, name)(x, 1).sum().backward()
        getattr(torch, name)(t, 1).sum().backward()
        _same(x.grad, t.grad)
    data = [[1.0, 5.0, 5.0], [4.0, 2.0, 0.5]]
    x = openreg.tensor(data, device=devices, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    a, b = openreg.aminmax(x, dim=1), torch.aminmax(t, dim=1)
    (a.min * 2 + a.max).sum().backward()
    (b.min * 2 + b.max).sum().backward()
    _same(x.grad, t.grad)
    x.grad, t.grad = None, None
    (openreg.var_mean(x, 1)[0] + openreg.std_mean(x)[1]).sum().backward()
    (torch.var_mean(t, 1)[0] + torch.std_mean(t)[1]).sum().backward()
    _same(x.grad, t.grad)


def test_methods_as_in_torch():
    x = openreg.tensor(DATA)
    assert x.nansum().item() == 10.0 and x.nanmean().item() == 2.5
    assert openreg.tensor([[1.0, 5.0], [3.0, 2.0]]).aminmax().max.item() == 5.0
    assert not hasattr(openreg.Tensor, "var_mean") and not hasattr(torch.Tensor, "var_mean")


def test_special_names():
    x = openreg.tensor([0.0, 1.0])
    assert openreg.special.expit(x).tolist() == torch.special.expit(torch.tensor([0.0, 1.0])).tolist()
    assert openreg.special.xlogy(x, 2.0).tolist() == pytest.approx(torch.special.xlogy(torch.tensor([0.0, 1.0]),
                                                                                       2.0).tolist())
    with pytest.raises(AttributeError, match="has no attribute 'nonsense'"):
        openreg.special.nonsense  # noqa: B018
