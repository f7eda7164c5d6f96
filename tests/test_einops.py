"""einops works on openreg tensors (rearrange/reduce/repeat/einsum/pack/unpack, gradients, the device), whether
einops or openreg is imported first; values checked against NumPy through einops' own NumPy backend."""
import subprocess
import sys

import numpy as np
import pytest

einops = pytest.importorskip("einops", reason="einops is not installed")

import openreg

DEVICES = ["cpu", "privateuseone"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("pattern, kwargs", [
    ("b c h w -> b (h w) c", {}),
    ("b c (h h2) (w w2) -> b (c h2 w2) h w", {"h2": 2, "w2": 2}),
    ("b c h w -> w h c b", {}),
])
def test_rearrange_matches_numpy(device, pattern, kwargs):
    a = np.arange(2 * 3 * 4 * 6, dtype=np.float32).reshape(2, 3, 4, 6)
    out = einops.rearrange(openreg.tensor(a, device=device), pattern, **kwargs)
    assert isinstance(out, openreg.Tensor) and out.device.type == device
    np.testing.assert_array_equal(out.cpu().numpy(), einops.rearrange(a, pattern, **kwargs))


@pytest.mark.parametrize("op", ["max", "min", "sum", "mean", "prod"])
def test_reduce_matches_numpy(op):
    a = np.random.default_rng(0).standard_normal((2, 3, 4, 6)).astype(np.float32)
    out = einops.reduce(openreg.tensor(a), "b c (h h2) w -> b h w", op, h2=2)
    np.testing.assert_allclose(out.numpy(), einops.reduce(a, "b c (h h2) w -> b h w", op, h2=2), rtol=1e-6)


def test_repeat_pack_unpack_einsum():
    r = einops.repeat(openreg.tensor([1.0, 2.0]), "c -> b c", b=3)
    assert r.tolist() == [[1.0, 2.0]] * 3
    packed, shapes = einops.pack([openreg.ones(2, 3), openreg.zeros(2, 4, 3)], "b * c")
    assert packed.shape == (2, 5, 3)
    first, second = einops.unpack(packed, shapes, "b * c")
    assert first.shape == (2, 3) and second.shape == (2, 4, 3)
    prod = einops.einsum(openreg.ones(2, 3), openreg.ones(3, 4), "a b, b c -> a c")
    assert prod.tolist() == [[3.0] * 4] * 2


def test_gradients_flow_through_rearrange():
    x = openreg.randn(2, 3, 4, requires_grad=True)
    y = einops.rearrange(x, "a b c -> (a c) b") * openreg.arange(3.0)
    y.sum().backward()
    assert x.grad[:, 2, :].tolist() == [[2.0] * 4] * 2


def test_layers_name_what_is_missing():
    from openreg._einops_backend import _backend_class
    with pytest.raises(NotImplementedError, match="einops.layers.torch imports PyTorch"):
        _backend_class().layers()


@pytest.mark.parametrize("first", ["einops", "openreg"])
def test_either_import_order(first):
    second = "openreg" if first == "einops" else "einops"
    code = (f"import {first}, {second}, openreg, einops\n"
            "print(einops.rearrange(openreg.ones(2, 3), 'a b -> b a').shape)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "openreg.Size([3, 2])"
