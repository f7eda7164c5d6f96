"""Factories take their size as the keyword size= too, as in PyTorch (pytorch/examples' gat builds its weights
with torch.empty(size=(in_features, n_hidden * n_heads)))."""
from __future__ import annotations

import pytest
from device_params import DEVICES

import openreg


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["empty", "zeros", "ones", "rand", "randn"])
def test_size_keyword(device, name):
    fn = getattr(openreg, name)
    for size, shape in (((2, 3), (2, 3)), ([4], (4,)), (5, (5,)), (openreg.Size([1, 2]), (1, 2)), ((), ())):
        t = fn(size=size, device=device, dtype=openreg.float64)
        assert tuple(t.shape) == shape and t.dtype == openreg.float64 and t.device.type == openreg.device(device).type
    assert tuple(fn(2, 3, device=device).shape) == (2, 3) and tuple(fn((2, 3)).shape) == (2, 3)
    assert fn(size=(2,), requires_grad=True).requires_grad
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        fn(2, size=(3,))


def test_values():
    assert openreg.zeros(size=(2,)).tolist() == [0.0, 0.0] and openreg.ones(size=[1, 2]).tolist() == [[1.0, 1.0]]
    g = openreg.Generator().manual_seed(3)
    a = openreg.randn(size=(4,), generator=g).tolist()
    assert a == openreg.randn(4, generator=openreg.Generator().manual_seed(3)).tolist()
