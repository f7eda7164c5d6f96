"""Padding modules (Zero/Constant/Reflection/Replication/Circular 1d-3d) against PyTorch: outputs, gradients,
reprs."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES

import openreg

tc = pytest.importorskip("torch_compare")
torch = tc.torch

CASES = [("ZeroPad1d", (2,), 3), ("ZeroPad2d", ((1, 0, 2, 1),), 4), ("ZeroPad3d", (1,), 5),
         ("ConstantPad1d", ((1, 2), 3.5), 3), ("ConstantPad2d", (1, -1.0), 4), ("ConstantPad3d", ((1, 0, 0, 1, 2, 0), 2.0), 5),
         ("ReflectionPad1d", ((2, 1),), 3), ("ReflectionPad2d", ((1, 2, 2, 1),), 4), ("ReflectionPad3d", (1,), 5),
         ("ReplicationPad1d", (3,), 3), ("ReplicationPad2d", ((0, 2, 1, 3),), 4), ("ReplicationPad3d", (1,), 5),
         ("CircularPad1d", (2,), 3), ("CircularPad2d", ((1, 1, 2, 0),), 4), ("CircularPad3d", (1,), 5)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("name", "args", "ndim"), CASES)
def test_padding_module_matches_torch(device, name, args, ndim):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 3)[:ndim]).astype("float32")
    ours, theirs = getattr(openreg.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    tc.compare(ours, theirs, [x], device, grad=(0,))
