"""Gradcheck samples (``test_derivatives.py``) of the index-writing, take and window records: their index
arguments are integer tensors, which the generic record samples cannot make."""
from __future__ import annotations

import numpy as np

import openreg

A = openreg.ops.aten
RNG = np.random.default_rng(1)


def r(dev, *shape, lo=-1.0, hi=1.0):
    return openreg.tensor(RNG.uniform(lo, hi, size=shape).tolist(), dtype=openreg.float64, device=dev,
                          requires_grad=True)


def idx(dev, values):
    return openreg.tensor(values, device=dev)


def _distinct(dev, *shape):
    """Values far apart, so amax/amin have no ties that finite differences would cross."""
    n = int(np.prod(shape))
    vals = RNG.permutation(n) * 0.5 + RNG.uniform(-0.1, 0.1, n)
    return openreg.tensor(vals.reshape(shape).tolist(), dtype=openreg.float64, device=dev, requires_grad=True)


def _scatter_reduce(reduce: str, include_self: bool, inplace: bool, gen=r):
    op = A.scatter_reduce_.two if inplace else A.scatter_reduce.two

    def sample(d):
        index = idx(d, [[0, 0, 2], [1, 1, 1]])
        return (lambda x, s: op(x * 1 if inplace else x, 1, index, s, reduce, include_self=include_self),
                [gen(d, 2, 3), gen(d, 2, 3)])
    return sample


def _pos(d, *shape):
    return r(d, *shape, lo=0.5, hi=2.0)


INDEXING_SAMPLES = {
    "aten::index_add": lambda d: (lambda x, s: A.index_add.default(x, 0, idx(d, [2, 0, 2]), s, alpha=2),
                                  [r(d, 3, 2), r(d, 3, 2)]),
    "aten::index_add_": lambda d: (lambda x, s: A.index_add_.default(x * 1, 1, idx(d, [1]), s),
                                   [r(d, 3, 2), r(d, 3, 1)]),
    "aten::index_copy": lambda d: (lambda x, s: A.index_copy.default(x, 0, idx(d, [2, 0]), s),
                                   [r(d, 3, 2), r(d, 2, 2)]),
    "aten::index_copy_": lambda d: (lambda x, s: A.index_copy_.default(x * 1, 1, idx(d, [0]), s),
                                    [r(d, 3, 2), r(d, 3, 1)]),
    "aten::index_fill.int_Scalar": lambda d: (lambda x: A.index_fill.int_Scalar(x, 1, idx(d, [0, -1]), 2.0),
                                              [r(d, 2, 3)]),
    "aten::index_fill_.int_Scalar": lambda d: (lambda x: A.index_fill_.int_Scalar(x * 1, 0, idx(d, [1]), 2.0),
                                               [r(d, 2, 3)]),
    "aten::scatter.src": lambda d: (lambda x, s: A.scatter.src(x, 1, idx(d, [[2, 0], [1, 2]]), s),
                                    [r(d, 2, 3), r(d, 2, 2)]),
    "aten::scatter_.src": lambda d: (lambda x, s: A.scatter_.src(x * 1, 0, idx(d, [[1, 0, 1]]), s),
                                     [r(d, 2, 3), r(d, 1, 3)]),
    "aten::scatter.value": lambda d: (lambda x: A.scatter.value(x, 1, idx(d, [[2], [0]]), 1.5), [r(d, 2, 3)]),
    "aten::scatter_.value": lambda d: (lambda x: A.scatter_.value(x * 1, 1, idx(d, [[1]]), 1.5), [r(d, 2, 3)]),
    "aten::scatter_reduce.two": _scatter_reduce("sum", True, False),
    "aten::scatter_reduce_.two": _scatter_reduce("mean", False, True),
    "aten::take": lambda d: (lambda x: A.take.default(x, idx(d, [[0, -1], [4, 4]])), [r(d, 2, 3)]),
    "aten::fill_diagonal_": lambda d: (lambda x: A.fill_diagonal_.default(x * 1, 3.0, True), [r(d, 7, 3)]),
    "aten::unfold": lambda d: (lambda x: A.unfold.default(x, 1, 2, 1), [r(d, 2, 4)]),
}

# every reduction of scatter_reduce, with and without the targets' own values (gradcheck only)
REDUCTION_SAMPLES = {
    (reduce, include_self): _scatter_reduce(reduce, include_self, False,
                                            _distinct if reduce in ("amax", "amin") else _pos)
    for reduce in ("sum", "prod", "mean", "amax", "amin") for include_self in (True, False)}
