"""nn.SyncBatchNorm (one process: BatchNorm's numbers, convert_sync_batchnorm), the lazy convolutions and batch
norms, nn.init.sparse_ and the deprecated eye/dirac, nn.utils.fuse_* and skip_init: against NumPy on both devices
and against PyTorch when it is installed."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import openreg
from openreg import nn

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_sync_batchnorm_is_batchnorm_in_one_process(devices):
    x = openreg.randn(6, 3, 4, device=devices)
    ref, sync = nn.BatchNorm1d(3).to(devices), nn.SyncBatchNorm(3).to(devices)
    np.testing.assert_allclose(sync(x).detach().cpu().numpy(), ref(x).detach().cpu().numpy(), rtol=1e-6)
    np.testing.assert_allclose(sync.running_var.cpu().numpy(), ref.running_var.cpu().numpy(), rtol=1e-6)
    assert sync.num_batches_tracked.item() == 1
    with pytest.raises(ValueError, match="expected at least 2D input"):
        sync(openreg.ones(3, device=devices))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        nn.SyncBatchNorm(0)(openreg.ones(2, 0))


def test_convert_sync_batchnorm_keeps_parameters():
    net = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3), nn.Sequential(nn.BatchNorm1d(4)))
    weight = net[1].weight
    net[1].running_mean.fill_(0.25)
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert out is net and type(net[1]).__name__ == "SyncBatchNorm" and type(net[2][0]).__name__ == "SyncBatchNorm"
    assert net[1].weight is weight and net[1].running_mean.tolist() == [0.25] * 3
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(2).eval())
    assert isinstance(single, nn.SyncBatchNorm) and not single.training


@pytest.mark.parametrize(("lazy", "cls", "shape"), [
    ("LazyConv1d", "Conv1d", (2, 5, 8)), ("LazyConv2d", "Conv2d", (2, 5, 6, 6)),
    ("LazyConv3d", "Conv3d", (1, 5, 4, 4, 4)), ("LazyConv2d", "Conv2d", (5, 6, 6)),
])
def test_lazy_conv(lazy, cls, shape, devices):
    m = getattr(nn, lazy)(4, 3, padding=1, device=devices, dtype=openreg.float64)
    x = openreg.randn(*shape, dtype=openreg.float64, device=devices)
    y = m(x)
    assert type(m).__name__ == cls and m.in_channels == 5 and tuple(m.weight.shape[:2]) == (4, 5)
    assert m.weight.device == x.device and m.weight.dtype == openreg.float64 and y.shape[-1] == shape[-1]
    bound = 1 / np.sqrt(5 * 3 ** (len(shape) - 2 if len(shape) == m._nd + 2 else len(shape) - 1))
    assert float(m.weight.abs().max()) <= bound
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        getattr(nn, lazy)(4, 3, groups=2)(openreg.randn(*shape))


@pytest.mark.parametrize(("lazy", "cls", "shape"), [
    ("LazyBatchNorm1d", "BatchNorm1d", (4, 3)), ("LazyBatchNorm2d", "BatchNorm2d", (4, 3, 2, 2)),
    ("LazyBatchNorm3d", "BatchNorm3d", (2, 3, 2, 2, 2)),
])
def test_lazy_batchnorm(lazy, cls, shape, devices):
    m = getattr(nn, lazy)(device=devices)
    x = openreg.randn(*shape, device=devices)
    y = m(x)
    assert type(m).__name__ == cls and m.num_features == 3 and m.running_mean.shape == (3,)
    assert m.weight.tolist() == [1.0] * 3 and m.num_batches_tracked.item() == 1
    np.testing.assert_allclose(y.detach().cpu().numpy(), nn.functional.batch_norm(x, None, None, training=True).cpu().numpy(),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="expected"):
        getattr(nn, lazy)()(openreg.randn(2, 3, 1, 1, 1, 1))


def test_init_sparse_and_deprecated_aliases():
    w = nn.init.sparse_(openreg.empty(10, 4), sparsity=0.3, std=0.5)
    assert [int((w[:, c] == 0).sum()) for c in range(4)] == [3] * 4
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        nn.init.sparse_(openreg.empty(2, 2, 2), 0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert nn.init.eye(openreg.empty(2, 3)).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
        nn.init.dirac(openreg.empty(2, 2, 3))
    assert [str(c.message) for c in caught] == ["`nn.init.eye` is now deprecated in favor of `nn.init.eye_`.",
                                                "`nn.init.dirac` is now deprecated in favor of `nn.init.dirac_`."]


def test_fusion_equals_module_pair(devices):
    for conv, bn, x in [
        (nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), openreg.randn(2, 2, 5, 5)),
        (nn.ConvTranspose2d(2, 3, 3, bias=False), nn.BatchNorm2d(3, affine=False), openreg.randn(2, 2, 4, 4)),
    ]:
        conv, bn, x = conv.to(devices).eval(), bn.to(devices).eval(), x.to(devices)
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=isinstance(conv, nn.ConvTranspose2d))
        np.testing.assert_allclose(fused(x).detach().cpu().numpy(), bn(conv(x)).detach().cpu().numpy(), rtol=1e-4,
                                   atol=1e-5)
        assert isinstance(fused.weight, nn.Parameter) and fused is not conv
    lin, bn, x = nn.Linear(4, 3).to(devices).eval(), nn.BatchNorm1d(3).to(devices).eval(), openreg.randn(5, 4,
                                                                                                       device=devices)
    bn.running_mean.uniform_(-1, 1)
    fused = nn.utils.fuse_linear_bn_eval(lin, bn)
    np.testing.assert_allclose(fused(x).detach().cpu().numpy(), bn(lin(x)).detach().cpu().numpy(), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(2, 2), bn)
    with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(2, 2).eval(), bn)


def test_skip_init(devices):
    m = nn.utils.skip_init(nn.Linear, 5, 2, device=devices)
    assert type(m) is nn.Linear and tuple(m.weight.shape) == (2, 5) and m.weight.device.type == openreg.device(devices).type
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        nn.utils.skip_init(nn.ReLU)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int)


@needs_torch
def test_fusion_matches_pytorch():
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((3, 2, 1, 1)), rng.standard_normal(3)
    rm, rv, bw, bb = rng.standard_normal(3), rng.random(3) + 0.5, rng.standard_normal(3), rng.standard_normal(3)
    got = nn.utils.fuse_conv_bn_weights(*[openreg.tensor(v) for v in (w, b, rm, rv)], 1e-3,
                                        *[openreg.tensor(v) for v in (bw, bb)])
    ref = torch.nn.utils.fuse_conv_bn_weights(*[torch.tensor(v) for v in (w, b, rm, rv)], 1e-3,
                                              *[torch.tensor(v) for v in (bw, bb)])
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.detach().numpy(), r.detach().numpy(), rtol=1e-12)
    lw = rng.standard_normal((3, 4))
    got = nn.utils.fuse_linear_bn_weights(openreg.tensor(lw), None, *[openreg.tensor(v) for v in (rm, rv)], 1e-5,
                                          *[openreg.tensor(v) for v in (bw, bb)])
    ref = torch.nn.utils.fuse_linear_bn_weights(torch.tensor(lw), None, *[torch.tensor(v) for v in (rm, rv)], 1e-5,
                                                *[torch.tensor(v) for v in (bw, bb)])
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.detach().numpy(), r.detach().numpy(), rtol=1e-12)
