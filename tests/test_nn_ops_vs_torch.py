"""The nn operator families against PyTorch: forward values and input gradients on CPU and the device, the
shapes on Meta, and PyTorch's errors for bad arguments."""
from __future__ import annotations

import numpy as np
import pytest
from torch_compare import compare, torch

import openreg
import openreg.nn.functional as F

TF = torch.nn.functional
rng = np.random.default_rng(0)


def rand(*shape, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, shape)


# -- pointwise --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,ours,theirs", [
    ("erf", openreg.erf, torch.erf), ("erfc", openreg.erfc, torch.erfc),
    ("log1p", lambda x: openreg.log1p(x.abs()), lambda x: torch.log1p(x.abs())),
    ("expm1", openreg.expm1, torch.expm1),
    ("gelu", F.gelu, TF.gelu), ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"),
                                lambda x: TF.gelu(x, approximate="tanh")),
    ("silu", F.silu, TF.silu), ("softplus", lambda x: F.softplus(x, 2.0, 3.0), lambda x: TF.softplus(x, 2.0, 3.0)),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), lambda x: TF.leaky_relu(x, 0.2)),
    ("elu", lambda x: F.elu(x, 0.7), lambda x: TF.elu(x, 0.7)),
    ("tanh", F.tanh, torch.tanh), ("sigmoid", F.sigmoid, torch.sigmoid),
])
def test_pointwise_matches_torch(devices, name, ours, theirs):
    compare(ours, theirs, (rand(3, 7),), devices, grad=(0,), rtol=1e-9, atol=1e-12)
    compare(ours, theirs, (rand(3, 7).astype(np.float32),), devices, grad=(0,), rtol=1e-5, atol=1e-6)


def test_inplace_activations_match_torch(devices):
    for ours, theirs in ((lambda x: F.leaky_relu(x * 1, 0.1, inplace=True), lambda x: TF.leaky_relu(x * 1, 0.1, True)),
                         (lambda x: F.elu(x * 1, inplace=True), lambda x: TF.elu(x * 1, inplace=True)),
                         (lambda x: F.silu(x * 1, inplace=True), lambda x: TF.silu(x * 1, inplace=True))):
        compare(ours, theirs, (rand(4, 5),), devices, grad=(0,), rtol=1e-9, atol=1e-12)


def test_erf_tail_and_specials():
    x = np.concatenate([np.linspace(-9, 9, 2001), [0.0, 1e-300, np.inf, -np.inf, np.nan]])
    np.testing.assert_allclose(np.asarray(openreg.erf(openreg.tensor(x))), torch.erf(torch.tensor(x)).numpy(),
                               rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(np.asarray(openreg.erfc(openreg.tensor(x))), torch.erfc(torch.tensor(x)).numpy(),
                               rtol=1e-12, atol=0)


# -- convolution ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"stride": 2}, {"padding": 1}, {"dilation": 2, "padding": 2},
                                    {"groups": 2}, {"padding": "same"}, {"padding": "same", "dilation": 2},
                                    {"padding": "valid", "stride": (2, 1)}, {"stride": 3, "padding": (1, 0)}])
def test_conv2d_matches_torch(devices, kwargs):
    x, w, b = rand(2, 4, 7, 6), rand(6, 4 // kwargs.get("groups", 1), 3, 2), rand(6)
    compare(lambda a, c, d: F.conv2d(a, c, d, **kwargs), lambda a, c, d: TF.conv2d(a, c, d, **kwargs), (x, w, b),
            devices, grad=(0, 1, 2), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "padding": 1}, {"dilation": 3}, {"groups": 3, "bias": False},
                                    {"padding": "same"}])
def test_conv1d_matches_torch(devices, kwargs):
    kwargs = dict(kwargs)
    use_bias = kwargs.pop("bias", True)
    x, w = rand(2, 6, 11).astype(np.float32), rand(3, 6 // kwargs.get("groups", 1), 4).astype(np.float32)
    if use_bias:
        compare(lambda a, c, d: F.conv1d(a, c, d, **kwargs), lambda a, c, d: TF.conv1d(a, c, d, **kwargs),
                (x, w, rand(3).astype(np.float32)), devices, grad=(0, 1, 2), rtol=1e-5, atol=1e-5)
    else:
        compare(lambda a, c: F.conv1d(a, c, **kwargs), lambda a, c: TF.conv1d(a, c, **kwargs), (x, w), devices,
                grad=(0, 1), rtol=1e-5, atol=1e-5)


def test_conv_unbatched_and_meta():
    x, w = openreg.ones(3, 5, 5), openreg.ones(2, 3, 3, 3)
    assert F.conv2d(x, w).shape == (2, 3, 3)
    out = F.conv2d(openreg.empty(4, 3, 9, 9, device="meta"), openreg.empty(8, 3, 3, 3, device="meta"), stride=2)
    assert out.device.type == "meta" and out.shape == (4, 8, 4, 4)


@pytest.mark.parametrize("call,message", [
    (lambda: F.conv2d(openreg.ones(2, 4, 8, 8), openreg.ones(6, 3, 3, 3)),
     r"Given groups=1, weight of size \[6, 3, 3, 3\], expected input\[2, 4, 8, 8\] to have 3 channels, but got 4"),
    (lambda: F.conv2d(openreg.ones(8, 8), openreg.ones(6, 3, 3, 3)),
     r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[8, 8\]"),
    (lambda: F.conv2d(openreg.ones(1, 3, 2, 2), openreg.ones(6, 3, 3, 3)),
     r"Calculated padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\)"),
    (lambda: F.conv2d(openreg.ones(1, 4, 5, 5), openreg.ones(3, 2, 3, 3), groups=2),
     r"expected weight to be divisible by 2 at dimension 0, but got weight of size \[\[3, 2, 3, 3\]\]"),
    (lambda: F.conv2d(openreg.ones(1, 16, 2, 2), openreg.ones(0, 16, 1, 1)),     # nn.Conv2d(16, 0, 1)
     r"Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size \[0, 16, 1, 1\]"),
    (lambda: F.conv_transpose2d(openreg.ones(1, 0, 5, 5), openreg.ones(0, 2, 3, 3), groups=2),
     r"Given groups=2, expected weight to be at least 2 at dimension 0, but got weight of size \[0, 2, 3, 3\]"),
    (lambda: F.conv2d(openreg.ones(1, 3, 5, 5), openreg.ones(6, 3, 3, 3), openreg.ones(5)),
     "expected bias to be 1-dimensional with 6 elements, but got bias of size \\[5\\]"),
    (lambda: F.conv2d(openreg.ones(1, 3, 5, 5), openreg.ones(6, 3, 3, 3), stride=0), "non-positive stride"),
    (lambda: F.conv2d(openreg.ones(1, 3, 5, 5), openreg.ones(6, 3, 3, 3), padding="same", stride=2),
     "padding='same' is not supported for strided convolutions"),
    (lambda: F.conv1d(openreg.ones(1, 3, 5, 5), openreg.ones(6, 3, 3)), "Expected 2D \\(unbatched\\) or 3D"),
    (lambda: F.conv2d(openreg.ones(1, 3, 5, 5), openreg.ones(6, 3, 3, 3, dtype=openreg.float64)),
     "expected scalar type Float but found Double"),
    (lambda: F.max_pool2d(openreg.ones(1, 3, 5, 5), 3, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda: F.max_pool2d(openreg.ones(5), 3), "non-empty 3D or 4D \\(batch mode\\) tensor expected for input"),
    (lambda: F.max_pool2d(openreg.ones(1, 1, 2, 2), 3),
     r"Given input size: \(1x2x2\). Calculated output size: \(1x0x0\). Output size is too small"),
    (lambda: F.avg_pool2d(openreg.ones(1, 1, 2, 2), 3), "Output size is too small"),
    (lambda: F.adaptive_avg_pool2d(openreg.ones(2), 3), r"adaptive_avg_pool2d\(\): Expected 3D or 4D tensor"),
    (lambda: F.layer_norm(openreg.ones(2, 3), (4,)),
     r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], but got input of size\[2, 3\]"),
    (lambda: F.group_norm(openreg.ones(2, 3, 4), 2),
     "Expected number of channels in input to be divisible by num_groups"),
    (lambda: F.batch_norm(openreg.ones(2, 3), openreg.ones(4), openreg.ones(4)),
     "running_mean should contain 3 elements not 4"),
])
def test_errors_match_torch(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_embedding_and_loss_errors():
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(openreg.tensor([5]), openreg.ones(3, 2))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(openreg.tensor([1]), openreg.ones(3, 2), padding_idx=3)
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have one of the following"):
        F.embedding(openreg.tensor([1.0]), openreg.ones(3, 2))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(openreg.ones(1, 3), None, None, training=True)


# -- pooling ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                    {"kernel_size": (2, 3), "stride": (2, 1), "dilation": (2, 1)},
                                    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
                                    {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True}])
def test_max_pool2d_matches_torch(devices, kwargs):
    x = rand(2, 3, 9, 8)
    compare(lambda a: F.max_pool2d(a, **kwargs), lambda a: TF.max_pool2d(a, **kwargs), (x,), devices, grad=(0,))
    ours = F.max_pool2d(openreg.tensor(x, device=devices), return_indices=True, **kwargs)[1]
    theirs = TF.max_pool2d(torch.tensor(x), return_indices=True, **kwargs)[1]
    np.testing.assert_array_equal(np.asarray(ours.cpu()), theirs.numpy())


@pytest.mark.parametrize("kwargs", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
                                    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
                                    {"kernel_size": (3, 2), "padding": (1, 1), "ceil_mode": True,
                                     "count_include_pad": False},
                                    {"kernel_size": 2, "divisor_override": 3}])
def test_avg_pool2d_matches_torch(devices, kwargs):
    compare(lambda a: F.avg_pool2d(a, **kwargs), lambda a: TF.avg_pool2d(a, **kwargs), (rand(2, 3, 9, 8),), devices,
            grad=(0,), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("size", [1, (3, 3), (4, 5), (9, 8), (5, 2), (None, 3)])
def test_adaptive_avg_pool2d_matches_torch(devices, size):
    compare(lambda a: F.adaptive_avg_pool2d(a, size), lambda a: TF.adaptive_avg_pool2d(a, size), (rand(2, 3, 9, 8),),
            devices, grad=(0,), rtol=1e-9, atol=1e-12)


def test_pool1d_matches_torch(devices):
    x = rand(2, 3, 11)
    compare(lambda a: F.max_pool1d(a, 3, 2, 1), lambda a: TF.max_pool1d(a, 3, 2, 1), (x,), devices, grad=(0,))
    compare(lambda a: F.avg_pool1d(a, 3, 2, 1), lambda a: TF.avg_pool1d(a, 3, 2, 1), (x,), devices, grad=(0,))
    compare(lambda a: F.adaptive_avg_pool1d(a, 4), lambda a: TF.adaptive_avg_pool1d(a, 4), (x,), devices, grad=(0,))


# -- normalization ----------------------------------------------------------------------------------------------

def test_layer_and_group_norm_match_torch(devices):
    x = rand(3, 4, 5, 6)
    compare(lambda a, w, b: F.layer_norm(a, (5, 6), w, b), lambda a, w, b: TF.layer_norm(a, (5, 6), w, b),
            (x, rand(5, 6), rand(5, 6)), devices, grad=(0, 1, 2), rtol=1e-8, atol=1e-10)
    compare(lambda a: F.layer_norm(a, (6,)), lambda a: TF.layer_norm(a, (6,)), (x.astype(np.float32),), devices,
            grad=(0,), rtol=1e-4, atol=1e-5)
    compare(lambda a, w, b: F.group_norm(a, 2, w, b, 1e-3), lambda a, w, b: TF.group_norm(a, 2, w, b, 1e-3),
            (x, rand(4), rand(4)), devices, grad=(0, 1, 2), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_torch(devices, training):
    x, w, b = rand(4, 3, 5), rand(3), rand(3)
    rm, rv = rand(3), rand(3, lo=0.5, hi=2.0)
    ours_rm, ours_rv = openreg.tensor(rm, device=devices), openreg.tensor(rv, device=devices)
    theirs_rm, theirs_rv = torch.tensor(rm), torch.tensor(rv)
    compare(lambda a, c, d: F.batch_norm(a, ours_rm, ours_rv, c, d, training, 0.3, 1e-4),
            lambda a, c, d: TF.batch_norm(a, theirs_rm, theirs_rv, c, d, training, 0.3, 1e-4),
            (x, w, b), devices, grad=(0, 1, 2), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.asarray(ours_rm.cpu()), theirs_rm.numpy(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ours_rv.cpu()), theirs_rv.numpy(), rtol=1e-12)


def test_normalize_matches_torch(devices):
    x = rand(3, 4)
    x[1] = 0.0
    for p in (2.0, 1.0, 3.0):
        compare(lambda a, q=p: F.normalize(a, q, 1), lambda a, q=p: TF.normalize(a, q, 1), (x,), devices, grad=(0,))


# -- embedding, losses ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"padding_idx": -1, "scale_grad_by_freq": True}])
def test_embedding_matches_torch(devices, kwargs):
    idx = np.array([[1, 4, 1], [0, 3, 4]])
    compare(lambda w, i: F.embedding(i, w, **kwargs), lambda w, i: TF.embedding(i, w, **kwargs), (rand(5, 3), idx),
            devices, grad=(0,))


def test_cross_entropy_with_probabilities_and_smoothing(devices):
    logits, probs = rand(4, 5), np.abs(rand(4, 5))
    probs = probs / probs.sum(1, keepdims=True)
    for kw in ({}, {"label_smoothing": 0.2}, {"reduction": "sum"}):
        compare(lambda a, t, k=kw: F.cross_entropy(a, t, **k), lambda a, t, k=kw: TF.cross_entropy(a, t, **k),
                (logits, probs), devices, grad=(0, 1), rtol=1e-9, atol=1e-10)


# -- tensor ops -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,ours,theirs", [
    ("tril", lambda x: x.tril(1), lambda x: x.tril(1)), ("triu", lambda x: openreg.triu(x, -1), lambda x: x.triu(-1)),
    ("cumsum", lambda x: x.cumsum(1), lambda x: x.cumsum(1)), ("cumprod", lambda x: x.cumprod(0),
                                                                 lambda x: x.cumprod(0)),
    ("logsumexp", lambda x: x.logsumexp(1), lambda x: x.logsumexp(1)),
    ("std", lambda x: x.std(1), lambda x: x.std(1)), ("var0", lambda x: x.var(0, unbiased=False),
                                                        lambda x: x.var(0, unbiased=False)),
    ("var_corr", lambda x: openreg.var(x, 1, correction=2, keepdim=True),
     lambda x: torch.var(x, 1, correction=2, keepdim=True)),
    ("norm", lambda x: x.norm(), lambda x: x.norm()), ("norm1", lambda x: x.norm(1, 0), lambda x: x.norm(1, 0)),
    ("vnorm_inf", lambda x: openreg.ops.aten.linalg_vector_norm(x, float("inf"), [1]),
     lambda x: torch.linalg.vector_norm(x, float("inf"), 1)),
    ("max_dim", lambda x: x.max(1).values, lambda x: x.max(1).values),
    ("min_dim", lambda x: x.min(0, keepdim=True)[0], lambda x: x.min(0, keepdim=True)[0]),
    ("max_all", lambda x: x.max(), lambda x: x.max()),
    ("sort", lambda x: x.sort(1, descending=True).values, lambda x: x.sort(1, descending=True).values),
    ("topk", lambda x: x.topk(2, 0).values, lambda x: x.topk(2, 0).values),
    ("topk_small", lambda x: x.topk(3, largest=False).values, lambda x: x.topk(3, largest=False).values),
    ("repeat", lambda x: x.repeat(2, 1, 3), lambda x: x.repeat(2, 1, 3)),
    ("repeat_interleave", lambda x: x.repeat_interleave(2, 1), lambda x: x.repeat_interleave(2, 1)),
    ("roll", lambda x: x.roll((1, -2), (0, 1)), lambda x: x.roll((1, -2), (0, 1))),
    ("roll_flat", lambda x: x.roll(3), lambda x: x.roll(3)),
    ("flip", lambda x: x.flip(0, 1), lambda x: x.flip(0, 1)),
    ("einsum", lambda x: openreg.einsum("ij,kj->ik", x, x), lambda x: torch.einsum("ij,kj->ik", x, x)),
    ("einsum_trace", lambda x: openreg.einsum("ii", x[:, :4]), lambda x: torch.einsum("ii", x[:, :4])),
    ("einsum_ellipsis", lambda x: openreg.einsum("...j,j->...", x, x[0]), lambda x: torch.einsum("...j,j->...", x, x[0])),
    ("baddbmm", lambda x: openreg.baddbmm(x[:2, :2].unsqueeze(0), x[:2].unsqueeze(0), x.T[:, :2].unsqueeze(0),
                                          beta=0.5, alpha=2.0),
     lambda x: torch.baddbmm(x[:2, :2].unsqueeze(0), x[:2].unsqueeze(0), x.T[:, :2].unsqueeze(0), beta=0.5, alpha=2.0)),
    ("nan_to_num", lambda x: (x / (x > 0)).nan_to_num(posinf=5.0), lambda x: (x / (x > 0)).nan_to_num(posinf=5.0)),
    ("pad_reflect", lambda x: F.pad(x.unsqueeze(0), (2, 1, 1, 2), "reflect"),
     lambda x: TF.pad(x.unsqueeze(0), (2, 1, 1, 2), "reflect")),
    ("pad_replicate", lambda x: F.pad(x.unsqueeze(0), (3, 1), "replicate"),
     lambda x: TF.pad(x.unsqueeze(0), (3, 1), "replicate")),
    ("pad_circular", lambda x: F.pad(x.unsqueeze(0), (2, 1), "circular"),
     lambda x: TF.pad(x.unsqueeze(0), (2, 1), "circular")),
    ("pad_constant", lambda x: F.pad(x, (1, -1, 2, 0), value=3.0), lambda x: TF.pad(x, (1, -1, 2, 0), value=3.0)),
])
def test_tensor_ops_match_torch(devices, name, ours, theirs):
    compare(ours, theirs, (rand(4, 5),), devices, grad=(0,), rtol=1e-9, atol=1e-10)


def test_indices_and_bools_match_torch(devices):
    x = np.array([[3.0, 1.0, 3.0, 2.0], [0.0, 0.0, -1.0, 5.0]])
    o, t = openreg.tensor(x, device=devices), torch.tensor(x)
    np.testing.assert_array_equal(np.asarray(o.sort(dim=1, stable=True).indices.cpu()),
                                  t.sort(dim=1, stable=True).indices.numpy())
    np.testing.assert_array_equal(np.asarray(o.sort(1, descending=True).indices.cpu()),
                                  t.sort(dim=1, descending=True, stable=True).indices.numpy())
    np.testing.assert_array_equal(np.asarray(o.all(1).cpu()), t.all(1).numpy())
    np.testing.assert_array_equal(np.asarray(o.any(0).cpu()), t.any(0).numpy())
    assert o.all().item() is False and o.any().item() is True
    assert openreg.allclose(o, o + 1e-9) and not openreg.allclose(o, o + 1e-3)
    np.testing.assert_array_equal(np.asarray(F.one_hot(openreg.tensor([0, 3, 1], device=devices), 5).cpu()),
                                  TF.one_hot(torch.tensor([0, 3, 1]), 5).numpy())
    np.testing.assert_array_equal(np.asarray(openreg.tensor([1, 2, 3], device=devices).cumsum(0).cpu()), [1, 3, 6])
    assert openreg.tensor([1, 2], device=devices).cumsum(0).dtype == openreg.int64
    counts = openreg.tensor([2, 0, 1], device=devices)
    assert openreg.repeat_interleave(counts).tolist() == [0, 0, 2]


def test_cumprod_gradient_with_zeros(devices):
    x = np.array([[2.0, 0.0, 3.0, 0.0, 1.5], [1.0, 2.0, 0.0, 4.0, 5.0]])
    compare(lambda a: a.cumprod(1), lambda a: a.cumprod(1), (x,), devices, grad=(0,), rtol=1e-12, atol=1e-12)


def test_sort_nan_order(devices):
    x = np.array([2.0, np.nan, 1.0, np.nan, -1.0])
    for desc in (False, True):
        ours = openreg.tensor(x, device=devices).sort(descending=desc)
        theirs = torch.tensor(x).sort(descending=desc, stable=True)
        np.testing.assert_array_equal(np.asarray(ours.values.cpu()), theirs.values.numpy())
        np.testing.assert_array_equal(np.asarray(ours.indices.cpu()), theirs.indices.numpy())


META_CALLS = [
    lambda x, w: F.conv2d(x, w, stride=2, padding=1),
    lambda x, w: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
    lambda x, w: F.max_pool2d(x, 2, return_indices=True)[1],
    lambda x, w: F.avg_pool2d(x, 3, 2, 1),
    lambda x, w: F.adaptive_avg_pool2d(x, (3, 2)),
    lambda x, w: F.layer_norm(x, (8,)),
    lambda x, w: F.group_norm(x, 2),
    lambda x, w: F.batch_norm(x, None, None, training=True),
    lambda x, w: F.gelu(x), lambda x, w: F.silu(x), lambda x, w: F.softplus(x), lambda x, w: F.elu(x),
    lambda x, w: F.leaky_relu(x), lambda x, w: openreg.erf(x), lambda x, w: x.cumsum(2), lambda x, w: x.tril(),
    lambda x, w: x.sort(1).values, lambda x, w: x.topk(2).indices, lambda x, w: F.pad(x, (1, 2, 0, 1), "reflect"),
    lambda x, w: x.logsumexp(1), lambda x, w: x.std(1), lambda x, w: x.norm(), lambda x, w: x.max(1).indices,
    lambda x, w: x.repeat(1, 2, 1, 1), lambda x, w: x.flip(3), lambda x, w: x.roll(1, 2),
    lambda x, w: openreg.einsum("nchw,chw->n", x, x[0]),
]


@pytest.mark.parametrize("call", META_CALLS)
def test_meta_shapes_and_dtypes_match_cpu(call):
    x, w = openreg.randn(2, 4, 8, 8), openreg.randn(6, 4, 3, 3)
    cpu = call(x, w)
    meta = call(x.to("meta"), w.to("meta"))
    assert meta.device.type == "meta"
    assert (tuple(meta.shape), meta.dtype) == (tuple(cpu.shape), cpu.dtype)


@pytest.mark.parametrize("ours,theirs", [
    (lambda x: openreg.linalg.vector_norm(x), lambda x: torch.linalg.vector_norm(x)),
    (lambda x: openreg.linalg.vector_norm(x, 3, dim=1, keepdim=True),
     lambda x: torch.linalg.vector_norm(x, 3, dim=1, keepdim=True)),
    (lambda x: openreg.linalg.vector_norm(x, 0.5, dim=(0, 1)), lambda x: torch.linalg.vector_norm(x, 0.5, dim=(0, 1))),
    (lambda x: openreg.linalg.norm(x, dim=0), lambda x: torch.linalg.norm(x, dim=0)),
    (lambda x: openreg.linalg.matrix_norm(x), lambda x: torch.linalg.matrix_norm(x)),
])
def test_linalg_norms_match_torch(devices, ours, theirs):
    compare(ours, theirs, (rand(4, 5),), devices, grad=(0,), rtol=1e-9, atol=1e-10)
