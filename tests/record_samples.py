"""One test sample per operator record: how to make its inputs and the NumPy function it must match.

``tests/test_records.py`` runs every sample through the record's overload, function, method, ``out=`` and
in-place variants on the CPU, the device and Meta; ``tests/test_derivatives.py`` gradchecks the record's
derivative formulas (reverse and forward mode) with the same inputs in float64 when it has no sample of its own.

``inputs(make)`` returns the operator's arguments; ``make(*shape, dtype=None, low=-3, high=3, ints=False)``
makes a random tensor (of the test's dtype unless ``dtype`` is given; ``ints`` rounds the values so that ties
and zeros occur). ``reference`` takes the same arguments as NumPy arrays. ``variants`` lists what to check.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

ALL = ("overload", "function", "method", "out", "inplace")


@dataclass(frozen=True)
class Sample:
    inputs: Callable
    reference: Callable
    dtypes: tuple = ("float32", "float64")
    variants: tuple = ALL


def _softmax(x, dim, _half):
    e = np.exp(x - x.max(dim, keepdims=True))
    return e / e.sum(dim, keepdims=True)


def _log_softmax(x, dim, _half):
    s = x - x.max(dim, keepdims=True)
    return s - np.log(np.exp(s).sum(dim, keepdims=True))


def _unary(ref, **make):
    return Sample(lambda m: (m(2, 3, **make),), ref)


def _binary(ref, dtypes=("float32", "float64"), **make):
    return Sample(lambda m: (m(2, 3, **make), m(1, 3, **make)), ref, dtypes)


_POS = {"low": 0.5, "high": 2.0}
_INTS = {"ints": True}

SAMPLES = {
    # elementary.py
    "sinh": _unary(np.sinh), "cosh": _unary(np.cosh), "asin": _unary(np.arcsin, low=-0.9, high=0.9),
    "acos": _unary(np.arccos, low=-0.9, high=0.9), "atan": _unary(np.arctan), "asinh": _unary(np.arcsinh),
    "acosh": _unary(np.arccosh, low=1.1, high=3.0), "atanh": _unary(np.arctanh, low=-0.9, high=0.9),
    "log2": _unary(np.log2, **_POS), "log10": _unary(np.log10, **_POS), "exp2": _unary(np.exp2),
    "sinc": _unary(np.sinc), "deg2rad": _unary(np.deg2rad), "rad2deg": _unary(np.rad2deg),
    "xlogy": Sample(lambda m: (m(2, 3), m(1, 3, **_POS)), lambda x, y: x * np.log(y)),
    "logaddexp": _binary(np.logaddexp), "logaddexp2": _binary(np.logaddexp2),
    "float_power": Sample(lambda m: (m(2, 3, **_POS), m(1, 3)),
                          lambda x, y: np.power(x.astype(np.float64), y.astype(np.float64)), ("float64",)),
    # unary
    "abs": _unary(np.abs), "neg": _unary(np.negative), "exp": _unary(np.exp), "log": _unary(np.log, **_POS),
    "sqrt": _unary(np.sqrt, **_POS), "rsqrt": _unary(lambda x: 1 / np.sqrt(x), **_POS), "sin": _unary(np.sin),
    "cos": _unary(np.cos), "tanh": _unary(np.tanh), "sigmoid": _unary(lambda x: 1 / (1 + np.exp(-x))),
    "reciprocal": _unary(np.reciprocal, **_POS), "relu": _unary(lambda x: np.maximum(x, 0)),
    "bitwise_not": Sample(lambda m: (m(2, 3, dtype="int64"),), np.invert, ("int64",)),
    "logical_not": _unary(np.logical_not, **_INTS),
    "floor": _unary(np.floor), "ceil": _unary(np.ceil), "trunc": _unary(np.trunc), "round": _unary(np.rint),
    "frac": _unary(lambda x: x - np.trunc(x)), "sign": _unary(np.sign),
    "isnan": Sample(lambda m: (m(2, 3),), np.isnan, variants=("overload", "function", "method")),
    "isinf": Sample(lambda m: (m(2, 3),), np.isinf, variants=("overload", "function", "method")),
    "isfinite": Sample(lambda m: (m(2, 3),), np.isfinite, variants=("overload", "function", "method")),
    "signbit": Sample(lambda m: (m(2, 3),), np.signbit, variants=("overload", "function", "method", "out")),
    # arithmetic
    "add": _binary(np.add), "sub": _binary(np.subtract), "mul": _binary(np.multiply),
    "div": _binary(np.true_divide, **_POS), "floor_divide": _binary(np.floor_divide, **_POS),
    "remainder": _binary(np.remainder, **_POS), "pow": _binary(np.power, **_POS),
    "rsub": Sample(lambda m: (m(2, 3), m(1, 3)), lambda x, y: y - x, variants=("overload", "function", "method")),
    "maximum": _binary(np.maximum), "minimum": _binary(np.minimum), "hypot": _binary(np.hypot),
    # comparisons, bitwise, logical
    **{name: _binary(getattr(np, ref), **_INTS) for name, ref in (
        ("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
        ("ge", "greater_equal"), ("logical_and", "logical_and"), ("logical_or", "logical_or"),
        ("logical_xor", "logical_xor"))},
    **{name: _binary(getattr(np, name), ("int64",), dtype="int64") for name in
       ("bitwise_and", "bitwise_or", "bitwise_xor")},
    **{name: Sample(lambda m: (m(2, 3, dtype="int64"), m(1, 3, dtype="int64", low=0, high=6)), ref, ("int64",))
       for name, ref in (("bitwise_left_shift", np.left_shift), ("bitwise_right_shift", np.right_shift))},
    # selection
    "clamp": Sample(lambda m: (m(2, 3), -1.0, 1.0), np.clip),
    "clamp_min": Sample(lambda m: (m(2, 3), 0.5), np.maximum),
    "clamp_max": Sample(lambda m: (m(2, 3), 0.5), np.minimum),
    "hardtanh": Sample(lambda m: (m(2, 3), -0.5, 0.5), np.clip, variants=("overload", "out", "inplace")),
    "hardsigmoid": Sample(lambda m: (m(2, 3, low=-4.0, high=4.0),), lambda x: np.clip(x / 6 + 0.5, 0, 1),
                          variants=("overload",)),
    "hardswish": Sample(lambda m: (m(2, 3, low=-4.0, high=4.0),), lambda x: x * np.clip(x + 3, 0, 6) / 6,
                        variants=("overload",)),
    "hardsigmoid_backward": Sample(lambda m: (m(2, 3), m(2, 3, low=-4.0, high=4.0)),
                                   lambda g, x: np.where((x > -3) & (x < 3), g / 6, 0), variants=("overload",)),
    "hardswish_backward": Sample(lambda m: (m(2, 3), m(2, 3, low=-4.0, high=4.0)),
                                 lambda g, x: np.where(x <= -3, 0, np.where(x < 3, g * (x / 3 + 0.5), g)),
                                 variants=("overload",)),
    # differences.py
    "diff": Sample(lambda m: (m(2, 5),), lambda x: np.diff(x), variants=("overload", "function", "method")),
    "count_nonzero": Sample(lambda m: (m(2, 3),), lambda x: np.asarray(np.count_nonzero(x), np.int64),
                            variants=("overload", "function", "method")),
    # diag.py
    "diag": Sample(lambda m: (m(3),), np.diag, variants=("overload", "function", "method")),
    "diag_embed": Sample(lambda m: (m(2, 3),), lambda x: np.stack([np.diag(r) for r in x]),
                         variants=("overload", "function", "method")),
    "diagflat": Sample(lambda m: (m(2, 3),), np.diagflat, variants=("overload", "function", "method")),
    "trace": Sample(lambda m: (m(3, 4),), np.trace, variants=("overload", "function", "method")),
    # addc_lerp.py
    "addcmul": Sample(lambda m: (m(2, 3), m(1, 3), m(2, 1)), lambda s, a, b: s + a * b),
    "addcdiv": Sample(lambda m: (m(2, 3), m(1, 3), m(2, 1, **_POS)), lambda s, a, b: s + a / b),
    "lerp": Sample(lambda m: (m(2, 3), m(1, 3), 0.3), lambda s, e, w: s + w * (e - s)),
    "where": Sample(lambda m: (m(2, 3) > 0, m(2, 3), m(1, 3)), np.where, variants=("overload", "function", "out")),
    # reductions
    "sum": _unary(np.sum), "mean": _unary(np.mean), "prod": Sample(lambda m: (m(2, 3),), np.prod, variants=("overload", "function", "method")), "amax": _unary(np.amax),
    "amin": _unary(np.amin), "argmax": _unary(np.argmax), "argmin": _unary(np.argmin),
    "_softmax": Sample(lambda m: (m(2, 3), 1, False), _softmax),
    "_log_softmax": Sample(lambda m: (m(2, 3), 1, False), _log_softmax),
    # matrix products
    "mm": Sample(lambda m: (m(2, 3), m(3, 4)), np.matmul),
    "bmm": Sample(lambda m: (m(2, 2, 3), m(2, 3, 4)), np.matmul),
    "addmm": Sample(lambda m: (m(2, 4), m(2, 3), m(3, 4)), lambda a, b, c: a + b @ c),
    "dot": Sample(lambda m: (m(3), m(3)), np.dot),
}


_EULER_GAMMA = 0.5772156649015329
_TERMS = np.arange(2000.0)


def _digamma_ref(x):
    """psi(x) = -gamma + sum_k (1/(k+1) - 1/(k+x)), the tail past 2000 terms by Euler-Maclaurin."""
    def one(v):
        n = len(_TERMS)
        head = np.sum(1.0 / (_TERMS + 1.0) - 1.0 / (_TERMS + v))
        def tail(z):
            return np.log(z) - 0.5 / z - 1.0 / (12.0 * z * z)
        return -_EULER_GAMMA + head + tail(n + v) - tail(n + 1.0)
    return np.vectorize(one, otypes=[float])(x.astype(np.float64)).astype(x.dtype)


def _zeta_ref(s, q):
    """Hurwitz zeta: sum_k (k+q)**-s over 2000 terms, the tail by Euler-Maclaurin."""
    def one(a, b):
        z = len(_TERMS) + b
        return np.sum((_TERMS + b) ** -a) + z ** (1 - a) / (a - 1) + 0.5 * z ** -a + a / 12 * z ** (-a - 1)
    return np.vectorize(one, otypes=[float])(s.astype(np.float64), q.astype(np.float64)).astype(s.dtype)


def _trigamma_ref(n, x):
    """psi'(x) = sum_k 1/(k+x)**2, the tail past 2000 terms by Euler-Maclaurin (only n = 1 is sampled)."""
    def one(v):
        z = len(_TERMS) + v
        return np.sum(1.0 / (_TERMS + v) ** 2) + 1.0 / z + 0.5 / z ** 2 + 1.0 / (6.0 * z ** 3)
    return np.vectorize(one, otypes=[float])(x.astype(np.float64)).astype(x.dtype)


def _erfinv_ref(y):
    """Bisection on math.erf to full double precision."""
    def one(v):
        lo, hi = -6.0, 6.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if math.erf(mid) < v else (lo, mid)
        return 0.5 * (lo + hi)
    return np.vectorize(one, otypes=[float])(y.astype(np.float64)).astype(y.dtype)


def _lgamma_ref(x):
    return np.vectorize(math.lgamma, otypes=[float])(x.astype(np.float64)).astype(x.dtype)


def _igamma_ref(a, x, upper=False):
    """P(a, x) = exp(-x) sum_k x^(a+k) / Gamma(a+k+1) in Python floats (all terms positive for these inputs)."""
    def one(av, xv):
        total, k = 0.0, 0
        while True:
            term = math.exp((av + k) * math.log(xv) - xv - math.lgamma(av + k + 1))
            total += term
            if term < 1e-18 * total and k > xv:
                return 1.0 - total if upper else total
            k += 1
    a, x = np.broadcast_arrays(a, x)
    return np.vectorize(one, otypes=[float])(a.astype(np.float64), x.astype(np.float64)).astype(a.dtype)


SAMPLES.update({
    # incomplete_gamma.py
    "igamma": _binary(_igamma_ref, low=0.2, high=4.0),
    "igammac": _binary(lambda a, x: _igamma_ref(a, x, upper=True), low=0.2, high=4.0),
    # pointwise_math.py
    "tan": _unary(np.tan, low=-1.2, high=1.2), "atan2": _binary(np.arctan2), "copysign": _binary(np.copysign),
    "fmod": Sample(lambda m: (m(2, 3), m(1, 3, **_POS)), np.fmod), "sgn": _unary(np.sign),
    "logit": Sample(lambda m: (m(2, 3, low=0.05, high=0.95),), lambda x: np.log(x / (1 - x))),
    "heaviside": Sample(lambda m: (m(2, 3, ints=True), m(1, 3)), np.heaviside),
    "fmax": _binary(np.fmax), "fmin": _binary(np.fmin),
    "isin": Sample(lambda m: (m(2, 3, ints=True), m(4, ints=True)), np.isin, variants=("overload", "function", "out")),
    "isneginf": Sample(lambda m: (m(2, 3) / 0,), np.isneginf, variants=("overload", "function", "method", "out")),
    "isposinf": Sample(lambda m: (m(2, 3) / 0,), np.isposinf, variants=("overload", "function", "method", "out")),
    # gamma_functions.py
    "lgamma": _unary(_lgamma_ref, low=-2.5, high=4.0), "digamma": _unary(_digamma_ref, low=0.1, high=4.0),
    "polygamma": Sample(lambda m: (1, m(2, 3, low=0.2, high=4.0)), _trigamma_ref,
                        variants=("overload", "function", "out")),
    "erfinv": _unary(_erfinv_ref, low=-0.95, high=0.95),
    "special_zeta": Sample(lambda m: (m(2, 3, low=1.5, high=4.0), m(1, 3, low=0.3, high=3.0)), _zeta_ref,
                           variants=("overload", "out")),
    # complex.py (float inputs; the complex cases are in tests/test_complex_views.py)
    "complex": Sample(lambda m: (m(2, 3), m(1, 3)), lambda a, b: a + 1j * b, variants=("overload", "function", "out")),
    "polar": Sample(lambda m: (m(2, 3, low=0.1), m(1, 3)), lambda r, t: r * np.exp(1j * t),
                    variants=("overload", "function", "out")),
    "conj_physical": _unary(np.conj),
    # fft.py (the public transforms are checked in tests/test_fft.py)
    "_fft_r2c": Sample(lambda m: (m(2, 5), [1], 1, True), lambda x, dim, norm, onesided: np.fft.rfft(x, norm="ortho"),
                       variants=("overload", "out")),
    "_fft_c2r": Sample(lambda m: (m(2, 4) * (1 + 0.5j), [1], 2, 6),
                       lambda x, dim, norm, n: np.fft.irfft(x, n=6), variants=("overload", "out")),
    "_fft_c2c": Sample(lambda m: (m(3, 4) * (1 - 2j), [0, 1], 0, True), lambda x, dim, norm, fwd: np.fft.fft2(x),
                       variants=("overload", "out")),
    "angle": Sample(lambda m: (m(2, 3, ints=True),), lambda x: np.where(x < 0, np.pi, 0.0).astype(x.dtype),
                    variants=("overload", "function", "method", "out")),
})

# Kernel-only (composite or unstructured) records of the later families: no NumPy comparison here (their values
# are compared with PyTorch in tests/test_selection_and_products_vs_torch.py and
# tests/test_linalg_decompositions_vs_torch.py); the samples name each record's inputs.
_KERNEL_ONLY = {
    "square": lambda m: (m(2, 3),), "median": lambda m: (m(3, 4), 1), "nanmedian": lambda m: (m(3, 4), 1),
    "kthvalue": lambda m: (m(3, 4), 2, 1), "mode": lambda m: (m(3, 4), 1), "cummax": lambda m: (m(3, 4), 1),
    "cummin": lambda m: (m(3, 4), 1), "logcumsumexp": lambda m: (m(3, 4), 1),
    "quantile": lambda m: (m(3, 4), 0.3, 1), "nanquantile": lambda m: (m(3, 4), 0.3, 1),
    "take_along_dim": lambda m: (m(3, 4), m(3, 2, dtype="int64", low=0, high=3), 1),
    "put": lambda m: (m(2, 3), m(6).argsort()[:2], m(2)),     # distinct flat indices
    "_unique2": lambda m: (m(3, 4, ints=True),), "unique_dim": lambda m: (m(3, 4, ints=True), 0),
    "unique_consecutive": lambda m: (m(3, 4, ints=True),), "searchsorted": lambda m: (m(5).sort()[0], m(3)),
    "bucketize": lambda m: (m(3), m(5).sort()[0]), "bincount": lambda m: (m(5, dtype="int64", low=0, high=4),),
    "histc": lambda m: (m(6), 4), "histogram": lambda m: (m(6), 4), "mv": lambda m: (m(2, 3), m(3)), "addmv": lambda m: (m(2), m(2, 3), m(3)),
    "addr": lambda m: (m(2, 3), m(2), m(3)), "addbmm": lambda m: (m(2, 4), m(3, 2, 5), m(3, 5, 4)),
    "tensordot": lambda m: (m(2, 3), m(3, 4), [1], [0]), "inner": lambda m: (m(2, 3), m(4, 3)),
    "kron": lambda m: (m(2, 3), m(2)), "linalg_cross": lambda m: (m(2, 3), m(2, 3)),
    "cross": lambda m: (m(2, 3), m(2, 3), 1), "dist": lambda m: (m(2, 3), m(3)), "cdist": lambda m: (m(4, 3), m(5, 3)),
    "block_diag": lambda m: ([m(2, 3), m(1, 2)],),
    "cartesian_prod": lambda m: ([m(2), m(3)],),
    "combinations": lambda m: (m(4),), "rot90": lambda m: (m(2, 3),), "fliplr": lambda m: (m(2, 3),),
    "flipud": lambda m: (m(2, 3),), "ravel": lambda m: (m(2, 3),), "numel": lambda m: (m(2, 3),),
    "is_nonzero": lambda m: (m(1),), "logspace": lambda m: (0, 2, 3),
    "linalg_inv": lambda m: (m(3, 3),), "inverse": lambda m: (m(3, 3),), "linalg_det": lambda m: (m(3, 3),),
    "det": lambda m: (m(3, 3),), "linalg_slogdet": lambda m: (m(3, 3),), "slogdet": lambda m: (m(3, 3),),
    "logdet": lambda m: (m(3, 3),), "linalg_cholesky": lambda m: (m(3, 3),), "cholesky": lambda m: (m(3, 3),),
    "linalg_qr": lambda m: (m(4, 3),), "qr": lambda m: (m(4, 3),), "linalg_svd": lambda m: (m(4, 3), False),
    "svd": lambda m: (m(4, 3),), "linalg_svdvals": lambda m: (m(4, 3),), "linalg_eigh": lambda m: (m(3, 3),),
    "linalg_eigvalsh": lambda m: (m(3, 3),), "linalg_solve": lambda m: (m(3, 3), m(3, 2)),
    "linalg_pinv": lambda m: (m(4, 3),), "pinverse": lambda m: (m(4, 3),),
    "linalg_matrix_power": lambda m: (m(3, 3), 2), "matrix_power": lambda m: (m(3, 3), 2),
    "linalg_matrix_exp": lambda m: (m(3, 3),), "matrix_exp": lambda m: (m(3, 3),),
    "slice_scatter": lambda m: (m(3, 4), m(3, 2), 1, 0, None, 2), "select_scatter": lambda m: (m(3, 4), m(4), 0, 1),
    "diagonal_scatter": lambda m: (m(3, 4), m(3),), "as_strided_scatter": lambda m: (m(6), m(2, 2), [2, 2], [1, 2]),
    "cholesky_solve": lambda m: (m(3, 2), m(3, 3).tril() + 3 * m(3, 3).new_ones(3).diag()),
    "cholesky_inverse": lambda m: (m(3, 3).triu() + 3 * m(3, 3).new_ones(3).diag(), True),
    "linalg_eig": lambda m: (m(3, 3),), "linalg_eigvals": lambda m: (m(3, 3),),
    "triangular_solve": lambda m: (m(3, 2), m(3, 3).triu() + 3 * m(3, 3).new_ones(3).diag()),
    "geqrf": lambda m: (m(4, 3),), "ormqr": lambda m: (m(4, 3), m(2), m(4, 2)),
    "linalg_householder_product": lambda m: (m(4, 3), m(2)), "orgqr": lambda m: (m(4, 3), m(3)),
    # a reversed LSTM layer without a workspace (train=False: the backward recomputes it)
    "mkldnn_rnn_layer": lambda m: (m(3, 2, 2), m(8, 2), m(8, 2), m(8), m(8), m(2, 2), m(2, 2), True, [], 2, 2, 1,
                                   True, False, False, False),
}
SAMPLES.update({name: Sample(inputs, None) for name, inputs in _KERNEL_ONLY.items()})


def _merge_family_samples() -> None:
    from record_samples_nn import NN_SAMPLES
    SAMPLES.update(NN_SAMPLES)


_merge_family_samples()
