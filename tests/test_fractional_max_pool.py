"""F.fractional_max_pool2d / nn.FractionalMaxPool2d against PyTorch with the same random samples: outputs,
indices and input gradients (float32 and float64, batched and not, output_size and output_ratio), and errors."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

CASES = [((2, 3, 7, 8), 2, {"output_size": (3, 4)}), ((2, 3, 9, 9), 3, {"output_size": 5}),
         ((3, 10, 12), (2, 3), {"output_ratio": (0.5, 0.5)}), ((1, 2, 6, 6), 2, {"output_size": (5, 1)})]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_torch(case, dtype, devices):
    shape, k, kw = CASES[case]
    rng = np.random.default_rng(case)
    x = rng.permutation(np.prod(shape)).reshape(shape).astype(dtype) / 7.0
    n = 1 if len(shape) == 3 else shape[0]
    samples = rng.uniform(0, 1, (n, shape[-3], 2)).astype(dtype)
    tx = torch.tensor(x, requires_grad=True)
    ox = openreg.tensor(x.tolist(), dtype=getattr(openreg, dtype), device=devices, requires_grad=True)
    to, ti = torch.nn.functional.fractional_max_pool2d(tx, k, return_indices=True,
                                                       _random_samples=torch.tensor(samples), **kw)
    oo, oi = openreg.nn.functional.fractional_max_pool2d(
        ox, k, return_indices=True, _random_samples=openreg.tensor(samples.tolist(), dtype=getattr(openreg, dtype),
                                                                   device=devices), **kw)
    assert oi.tolist() == ti.tolist() and oo.tolist() == to.tolist()
    g = rng.uniform(-1, 1, tuple(to.shape))
    (to * torch.tensor(g, dtype=getattr(torch, dtype))).sum().backward()
    (oo * openreg.tensor(g.tolist(), dtype=getattr(openreg, dtype), device=devices)).sum().backward()
    np.testing.assert_allclose(np.array(ox.grad.tolist()), tx.grad.numpy(), rtol=1e-6)


def test_module_and_errors_match_torch():
    for kw in [{}, {"output_size": 3, "output_ratio": 0.5}, {"output_ratio": 1.5}]:
        with pytest.raises(ValueError) as theirs:
            torch.nn.FractionalMaxPool2d(2, **kw)
        with pytest.raises(ValueError) as ours:
            openreg.nn.FractionalMaxPool2d(2, **kw)
        assert str(ours.value) == str(theirs.value)
    for lib in (torch, openreg):
        with pytest.raises(RuntimeError, match="pool height 3 too large relative to input height 7"):
            lib.nn.functional.fractional_max_pool2d(lib.ones(1, 1, 7, 8), 3, output_size=(6, 3))
    m = openreg.nn.FractionalMaxPool2d(2, output_size=(3, 3), return_indices=True)
    out, idx = m(openreg.randn(2, 4, 7, 7))
    assert out.shape == (2, 4, 3, 3) and idx.dtype is openreg.int64


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_3d_matches_torch(dtype, devices):
    for shape, k, kw in [((2, 2, 5, 6, 7), 2, {"output_size": (3, 4, 2)}), ((2, 6, 6, 8), (2, 3, 2),
                                                                              {"output_ratio": (0.5, 0.5, 0.5)})]:
        rng = np.random.default_rng(len(shape))
        x = rng.permutation(np.prod(shape)).reshape(shape).astype(dtype) / 7.0
        n = 1 if len(shape) == 4 else shape[0]
        samples = rng.uniform(0, 1, (n, shape[-4], 3)).astype(dtype)
        tx = torch.tensor(x, requires_grad=True)
        ox = openreg.tensor(x.tolist(), dtype=getattr(openreg, dtype), device=devices, requires_grad=True)
        to, ti = torch.nn.functional.fractional_max_pool3d(tx, k, return_indices=True,
                                                           _random_samples=torch.tensor(samples), **kw)
        oo, oi = openreg.nn.functional.fractional_max_pool3d(ox, k, return_indices=True, _random_samples=openreg.tensor(
            samples.tolist(), dtype=getattr(openreg, dtype), device=devices), **kw)
        assert oi.tolist() == ti.tolist() and oo.tolist() == to.tolist()
        to.sum().backward()
        oo.sum().backward()
        assert ox.grad.tolist() == tx.grad.tolist()
