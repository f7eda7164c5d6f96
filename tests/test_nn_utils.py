"""nn.utils: clip_grad_norm_ / clip_grad_value_ / get_total_norm and parameters_to_vector / vector_to_parameters on
CPU and the device, against NumPy and (when installed) PyTorch."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import openreg
from openreg import nn
from openreg.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    get_total_norm,
    parameters_to_vector,
    vector_to_parameters,
)

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _params(device, grads):
    ps = []
    for g in grads:
        p = nn.Parameter(openreg.zeros(g.shape, device=device))
        p.grad = openreg.tensor(g, device=device)
        ps.append(p)
    return ps


GRADS = [np.array([[3.0, -4.0], [1.0, 2.0]], dtype=np.float32), np.array([0.5, -7.0, 2.5], dtype=np.float32)]


@pytest.mark.parametrize("norm_type", [2.0, 1, math.inf, 3.0, 0])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_matches_numpy(devices, norm_type, foreach):
    ps = _params(devices, GRADS)
    def norm(x):  # linalg.vector_norm; the total is the norm of the per-tensor norms, as PyTorch's
        return np.count_nonzero(x) if norm_type == 0 else np.linalg.norm(x.ravel(), ord=norm_type)
    ref = norm(np.array([norm(g.astype(np.float64)) for g in GRADS]))
    total = clip_grad_norm_(iter(ps), max_norm=1.5, norm_type=norm_type, foreach=foreach)
    assert isinstance(total, openreg.Tensor) and total.dim() == 0 and total.device == ps[0].device
    assert math.isclose(total.item(), ref, rel_tol=1e-6)
    coef = min(1.0, 1.5 / (ref + 1e-6))
    for p, g in zip(ps, GRADS):
        assert np.allclose(p.grad.cpu().numpy(), g * coef, rtol=1e-6)


def test_clip_grad_norm_no_clip_when_small_and_edge_cases(devices):
    ps = _params(devices, [np.array([0.1, 0.2], dtype=np.float32)])
    clip_grad_norm_(ps, 10.0)
    assert np.allclose(ps[0].grad.cpu().numpy(), [0.1, 0.2])
    clip_grad_norm_(ps[0], 0.1)  # a single tensor is accepted
    assert math.isclose(float(np.linalg.norm(ps[0].grad.cpu().numpy())), 0.1, rel_tol=1e-4)
    no_grad = nn.Parameter(openreg.ones(2, device=devices))
    assert clip_grad_norm_([no_grad], 1.0).item() == 0.0
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        clip_grad_norm_((p for p in []), 1.0)
    assert "`parameters` is an empty generator, no gradient clipping will occur." in str(rec[0].message)


def test_error_if_nonfinite_raises_and_leaves_grads(devices):
    ps = _params(devices, [np.array([np.inf, 1.0], dtype=np.float32), np.array([2.0], dtype=np.float32)])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite, so it cannot be clipped"):
        clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    assert ps[1].grad.tolist() == [2.0]
    total = clip_grad_norm_(ps, 1.0)  # without the check the gradients are scaled by the non-finite norm
    assert math.isinf(total.item()) and ps[1].grad.tolist() == [0.0]


def test_total_norm_over_devices():
    if not openreg.privateuseone.is_available():
        pytest.skip("device not available")
    a = openreg.tensor([3.0])
    b = openreg.tensor([4.0], device="privateuseone")
    total = get_total_norm([a, b])
    assert total.device.type == "cpu" and total.item() == 5.0


def test_stacked_norms_are_the_stack_of_the_norms(devices):
    # the norms of one device and dtype are stacked as arrays at once; the same tensor as stack() of each .to()
    from openreg.nn.utils.clip_grad import _stack_scalars
    norms = [openreg.tensor(v, device=devices) for v in (3.0, -0.0, float("nan"), 1e-30)]
    fast = _stack_scalars(norms, norms[0].device, openreg.stack)
    ref = openreg.stack([n.to(norms[0].device) for n in norms])
    assert fast.device == ref.device and fast.dtype == ref.dtype and fast.shape == (4,)
    assert fast.cpu().numpy().tobytes() == ref.cpu().numpy().tobytes()
    mixed = norms[:2] + [openreg.tensor(2.0, dtype=openreg.float64, device=devices)]   # the general path
    assert _stack_scalars(mixed, norms[0].device, openreg.stack).cpu().tolist() == [3.0, 0.0, 2.0]


def test_clip_grad_value(devices):
    ps = _params(devices, GRADS)
    clip_grad_value_(ps, 2)
    for p, g in zip(ps, GRADS):
        assert np.array_equal(p.grad.cpu().numpy(), np.clip(g, -2, 2))


def test_parameters_to_vector_and_back(devices):
    lin = nn.Linear(3, 2).to(devices)
    vec = parameters_to_vector(lin.parameters())
    assert vec.shape == (8,) and vec.requires_grad
    ref = np.concatenate([lin.weight.detach().cpu().numpy().ravel(), lin.bias.detach().cpu().numpy()])
    assert np.array_equal(vec.detach().cpu().numpy(), ref)
    vec.sum().backward()
    assert lin.weight.grad.cpu().numpy().tolist() == [[1.0] * 3] * 2
    new = openreg.arange(8.0, device=devices)
    weight = lin.weight
    vector_to_parameters(new, lin.parameters())
    assert lin.weight is weight and lin.weight.cpu().tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert lin.bias.cpu().tolist() == [6.0, 7.0]
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        vector_to_parameters([1.0], lin.parameters())


def test_parameters_on_two_devices_raise():
    if not openreg.privateuseone.is_available():
        pytest.skip("device not available")
    ps = [nn.Parameter(openreg.ones(1)), nn.Parameter(openreg.ones(1, device="privateuseone"))]
    with pytest.raises(TypeError, match="Found two parameters on different devices"):
        parameters_to_vector(ps)


@needs_torch
@pytest.mark.parametrize("norm_type", [2.0, math.inf, 1.5])
def test_clip_grad_norm_matches_pytorch(norm_type):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(s).astype(np.float32) for s in ((64, 32), (32,), (10, 64))]
    ps = _params("cpu", grads)
    tps = []
    for g in grads:
        p = torch.nn.Parameter(torch.zeros(g.shape))
        p.grad = torch.tensor(g)
        tps.append(p)
    mine = clip_grad_norm_(ps, 0.5, norm_type)
    theirs = torch.nn.utils.clip_grad_norm_(tps, 0.5, norm_type)
    assert math.isclose(mine.item(), theirs.item(), rel_tol=1e-6)
    for p, tp in zip(ps, tps):
        assert np.allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-6, atol=1e-8)
