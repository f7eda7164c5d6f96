"""Record samples of the neural-network operator families (``operators/activations.py``, ``convolution.py``,
``pooling.py``, ``normalization.py``, ``embedding.py``, ``sorting.py``, ``scan.py``, ``triangular.py``,
``special_functions.py``): merged into ``record_samples.SAMPLES``.

Kernel-only records (no structured compute) are not compared with NumPy by ``test_records.py``; their samples
feed ``test_derivatives.py`` (gradcheck in reverse and forward mode), so their ``reference`` is None. Their
numerics are compared with PyTorch in ``tests/test_nn_ops_vs_torch.py``.
"""
from __future__ import annotations

import math

import numpy as np
from record_samples import Sample

import openreg

_erf_f64 = np.vectorize(math.erf, otypes=[float])
_erfc_f64 = np.vectorize(math.erfc, otypes=[float])


def _erf(x):
    return _erf_f64(x).astype(x.dtype)


def _erfc(x):
    return _erfc_f64(x).astype(x.dtype)


def _gelu(x, approximate="none"):
    return (0.5 * x * (1 + _erf_f64(x / math.sqrt(2)))).astype(x.dtype)


def _gelu_backward(g, x, approximate="none"):
    cdf = 0.5 * (1 + _erf_f64(x / math.sqrt(2)))
    return (g * (cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))).astype(x.dtype)


def _pool_input(make):
    return make(2, 3, 5, 6)


def _max_pool_backward_inputs(make):
    x = make(2, 3, 5, 6)
    _, idx = openreg.ops.aten.max_pool2d_with_indices(x.detach(), [2, 2], [2, 1], [1, 0], [1, 1], False)
    return make(2, 3, 3, 5), x.detach(), [2, 2], [2, 1], [1, 0], [1, 1], False, idx


def _indices(like, *values):
    return openreg.tensor(list(values), device=like.device)


def _embedding_inputs(make):
    w = make(5, 3)
    return w, _indices(w, 4, 0, 4, 2)


def _embedding_backward_inputs(make):
    g = make(4, 3)
    return g, _indices(g, 4, 0, 4, 2), 5, 0, False


NN_SAMPLES = {
    "erf": Sample(lambda make: (make(2, 3),), _erf),
    "erfc": Sample(lambda make: (make(2, 3),), _erfc),
    "log1p": Sample(lambda make: (make(2, 3).abs(),), np.log1p),
    "expm1": Sample(lambda make: (make(2, 3),), np.expm1),
    "gelu": Sample(lambda make: (make(2, 3),), _gelu),
    "gelu_backward": Sample(lambda make: (make(2, 3), make(2, 3)), _gelu_backward),
    "sigmoid_backward": Sample(lambda make: (make(2, 3), make(2, 3)), lambda g, y: g * y * (1 - y)),
    "tanh_backward": Sample(lambda make: (make(2, 3), make(1, 3)), lambda g, y: g * (1 - y * y)),
    "threshold_backward": Sample(lambda make: (make(2, 3), make(2, 3), 0.1), lambda g, x, t: np.where(x <= t, 0, g)),
    "silu": Sample(lambda make: (make(2, 3),), lambda x: x / (1 + np.exp(-x))),
    "silu_backward": Sample(lambda make: (make(2, 3), make(2, 3)),
                            lambda g, x: g / (1 + np.exp(-x)) * (1 + x * (1 - 1 / (1 + np.exp(-x))))),
    "softplus": Sample(lambda make: (make(2, 3), 2.0, 3.0),
                       lambda x, b, t: np.where(x * b > t, x, np.log1p(np.exp(x * b)) / b)),
    "leaky_relu": Sample(lambda make: (make(2, 3), 0.2), lambda x, s: np.where(x > 0, x, x * s)),
    "elu": Sample(lambda make: (make(2, 3), 1.5), lambda x, a: np.where(x > 0, x, a * np.expm1(x))),
    "cumsum": Sample(lambda make: (make(3, 4), 1), lambda x, d: np.cumsum(x, axis=d)),
    "cumprod": Sample(lambda make: (make(3, 4), 1), lambda x, d: np.cumprod(x, axis=d)),
    "tril": Sample(lambda make: (make(2, 3, 4), 1), lambda x, k: np.tril(x, k)),
    "triu": Sample(lambda make: (make(2, 3, 4), -1), lambda x, k: np.triu(x, k)),
    "convolution": Sample(lambda make: (make(2, 4, 5, 4), make(6, 2, 3, 2), make(6), [2, 1], [1, 1], [1, 2], False,
                                        [0, 0], 2), None),
    "max_pool2d_with_indices": Sample(lambda make: (_pool_input(make), [2, 2], [2, 1], [1, 0], [1, 1], True), None),
    "max_pool2d_with_indices_backward": Sample(_max_pool_backward_inputs, None),
    "avg_pool2d": Sample(lambda make: (_pool_input(make), [3, 2], [2, 2], [1, 1], True, False, None), None),
    "avg_pool2d_backward": Sample(lambda make: (make(2, 3, 3, 4), _pool_input(make).detach(), [3, 2], [2, 2],
                                                [1, 1], True, False, None), None),
    "_adaptive_avg_pool2d": Sample(lambda make: (_pool_input(make), [3, 4]), None),
    "_adaptive_avg_pool2d_backward": Sample(lambda make: (make(2, 3, 3, 4), _pool_input(make).detach()), None),
    "native_layer_norm": Sample(lambda make: (make(3, 2, 4), [2, 4], make(2, 4), make(2, 4), 1e-5), None),
    "native_group_norm": Sample(lambda make: (make(2, 4, 3), make(4), make(4), 2, 4, 3, 2, 1e-5), None),
    "native_batch_norm": Sample(lambda make: (make(4, 3, 2), make(3), make(3), None, None, True, 0.1, 1e-5), None),
    "embedding": Sample(_embedding_inputs, None),
    "embedding_dense_backward": Sample(_embedding_backward_inputs, None),
    "upsample_nearest1d": Sample(lambda make: (make(2, 3, 4), [7], None), None),
    "upsample_nearest1d_backward": Sample(lambda make: (make(2, 3, 7), [7], [2, 3, 4], None), None),
    "upsample_nearest2d": Sample(lambda make: (make(2, 3, 4, 5), [7, 3], 1.8, None), None),
    "upsample_nearest2d_backward": Sample(lambda make: (make(2, 3, 7, 3), [7, 3], [2, 3, 4, 5], 1.8, None), None),
    "_upsample_nearest_exact1d": Sample(lambda make: (make(2, 3, 4), [9], None), None),
    "_upsample_nearest_exact1d_backward": Sample(lambda make: (make(2, 3, 9), [9], [2, 3, 4], None), None),
    "_upsample_nearest_exact2d": Sample(lambda make: (make(2, 3, 4, 5), [3, 8], None, None), None),
    "_upsample_nearest_exact2d_backward": Sample(lambda make: (make(2, 3, 3, 8), [3, 8], [2, 3, 4, 5], None, None),
                                                 None),
    "upsample_linear1d": Sample(lambda make: (make(2, 3, 4), [7], False, None), None),
    "upsample_linear1d_backward": Sample(lambda make: (make(2, 3, 7), [7], [2, 3, 4], True, None), None),
    "upsample_bilinear2d": Sample(lambda make: (make(2, 3, 4, 5), [7, 3], False, 1.75, None), None),
    "upsample_bilinear2d_backward": Sample(lambda make: (make(2, 3, 7, 3), [7, 3], [2, 3, 4, 5], True, None, None),
                                           None),
    "upsample_nearest3d": Sample(lambda make: (make(2, 3, 2, 4, 5), [3, 7, 3], 1.5, None, 0.6), None),
    "upsample_nearest3d_backward": Sample(lambda make: (make(2, 3, 3, 7, 3), [3, 7, 3], [2, 3, 2, 4, 5], 1.5, None,
                                                        0.6), None),
    "_upsample_nearest_exact3d": Sample(lambda make: (make(2, 3, 2, 4, 5), [3, 3, 8], None, None, None), None),
    "_upsample_nearest_exact3d_backward": Sample(lambda make: (make(2, 3, 3, 3, 8), [3, 3, 8], [2, 3, 2, 4, 5], None,
                                                               None, None), None),
    "upsample_trilinear3d": Sample(lambda make: (make(2, 3, 2, 4, 5), [3, 7, 3], False, None, 1.75, None), None),
    "upsample_trilinear3d_backward": Sample(lambda make: (make(2, 3, 3, 7, 3), [3, 7, 3], [2, 3, 2, 4, 5], True, None,
                                                          None, None), None),
    "_upsample_bilinear2d_aa": Sample(lambda make: (make(2, 3, 8, 5), [3, 7], False, None, None), None),
    "_upsample_bilinear2d_aa_backward": Sample(lambda make: (make(2, 3, 3, 7), [3, 7], [2, 3, 8, 5], True, None,
                                                             None), None),
    "_upsample_bicubic2d_aa": Sample(lambda make: (make(2, 3, 8, 5), [3, 7], False, 0.4, None), None),
    "_upsample_bicubic2d_aa_backward": Sample(lambda make: (make(2, 3, 3, 7), [3, 7], [2, 3, 8, 5], False, None,
                                                            None), None),
    "upsample_bicubic2d": Sample(lambda make: (make(2, 3, 4, 5), [7, 3], False, None, None), None),
    "upsample_bicubic2d_backward": Sample(lambda make: (make(2, 3, 7, 3), [7, 3], [2, 3, 4, 5], True, None, None),
                                          None),
    "sort": Sample(lambda make: (make(3, 5), 1, True), None),
    "topk": Sample(lambda make: (make(3, 5), 2, 1), None),
}
