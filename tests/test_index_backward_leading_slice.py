"""Backward of advanced indexing whose index list starts with a slice (``Tensor?[]`` beginning with None), e.g.
``Z[:, li, lj]`` (DLRM's dot interaction): the saved index tensors after the None are unpacked for the gradient."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")


@pytest.mark.parametrize("index", ["[:, li, lj]", "[:, :, lj]", "[..., li]", "[lk, :, lj]"])
def test_gradient_matches_torch(devices, index):
    z = np.random.default_rng(0).standard_normal((2, 3, 3))
    grads = []
    for lib, dev in ((torch, "cpu"), (openreg, devices)):
        x = lib.tensor(z, device=dev, requires_grad=True)
        li, lj = lib.tensor([1, 2, 2], device=dev), lib.tensor([0, 0, 1], device=dev)
        lk = lib.tensor([1, 0, 1], device=dev)
        out = eval("x" + index, {"x": x, "li": li, "lj": lj, "lk": lk})
        (out * lib.arange(out.numel(), dtype=lib.float64, device=dev).reshape(out.shape)).sum().backward()
        grads.append(np.array(x.grad.cpu().tolist()))
    np.testing.assert_array_equal(grads[1], grads[0])

