"""A device="meta" tensor goes through every math op: sizes, strides and dtype equal the CPU result's."""
from __future__ import annotations

import pytest

import openreg as o

F32, I64, BOOL = o.float32, o.int64, o.bool


def maker(device: str):
    def make(*shape, dtype=F32):
        t = o.empty(shape, dtype=dtype, device=device)
        return t.fill_(1) if device == "cpu" else t
    return make


CASES = {
    # unary
    "abs": lambda m: m(2, 3).abs(), "neg": lambda m: -m(2, 3, dtype=I64), "exp_int": lambda m: m(4, dtype=I64).exp(),
    "log": lambda m: m(2, 3).log(), "sqrt": lambda m: o.sqrt(m()), "rsqrt": lambda m: m(3).rsqrt(),
    "sin": lambda m: m(3).sin(), "cos": lambda m: m(3).cos(), "tanh": lambda m: m(3).tanh(),
    "sigmoid": lambda m: m(3).sigmoid(), "relu": lambda m: m(2, 2).relu(), "reciprocal": lambda m: m(3).reciprocal(),
    "bitwise_not": lambda m: ~m(3, dtype=BOOL), "logical_not": lambda m: o.logical_not(m(3)),
    "abs_": lambda m: m(2, 3).abs_(),
    # binary, broadcasting, promotion
    "add": lambda m: m(2, 1) + m(3), "add_scalar": lambda m: m(3, dtype=I64) + 2.5,
    "sub_alpha": lambda m: o.sub(m(2, 3), m(3), alpha=2), "rsub": lambda m: 1 - m(3),
    "mul": lambda m: m(4, 1, 3) * m(2, 1), "div": lambda m: m(3, dtype=I64) / m(3, dtype=I64),
    "div_floor": lambda m: o.div(m(3, dtype=I64), 2, rounding_mode="floor"), "floordiv": lambda m: m(2, 3) // 2,
    "remainder": lambda m: m(2, 3, dtype=I64) % m(3, dtype=I64), "rmod": lambda m: 3 % m(2),
    "pow": lambda m: m(2, 3) ** 2, "pow_tt": lambda m: m(2, 3) ** m(3), "rpow": lambda m: 2 ** m(3),
    "maximum": lambda m: o.maximum(m(2, 3), m(1, 3, dtype=o.float64)), "minimum": lambda m: o.minimum(m(3), m(3)),
    "eq": lambda m: m(2, 3) == m(3), "lt_scalar": lambda m: m(2, 3) < 1, "ge": lambda m: m(3).ge(m(3)),
    "bitwise_and": lambda m: m(3, dtype=I64) & m(3, dtype=I64), "logical_or": lambda m: o.logical_or(m(3), m(3)),
    "mul_": lambda m: m(2, 3).mul_(m(3)), "add_": lambda m: m(2, 3).add_(1), "eq_": lambda m: m(3).eq_(1),
    # clamp, where
    "clamp": lambda m: m(2, 3).clamp(0, 1), "clamp_t": lambda m: o.clamp(m(2, 3), m(3), m(2, 1)),
    "clamp_promote": lambda m: m(3, dtype=I64).clamp(min=0.5), "clamp_": lambda m: m(3).clamp_(max=0),
    "where": lambda m: o.where(m(3, dtype=BOOL), m(2, 3), m(1, dtype=o.float64)),
    "where_scalar": lambda m: o.where(m(2, 1, dtype=BOOL), 1.0, m(3)),
    # reductions
    "sum": lambda m: m(2, 3).sum(), "sum_dim": lambda m: m(2, 3, 4).sum((0, 2), keepdim=True),
    "sum_int": lambda m: m(2, 3, dtype=o.int8).sum(1), "sum_dtype": lambda m: m(2, 3).sum(0, dtype=o.float64),
    "mean": lambda m: m(2, 3).mean(-1), "prod": lambda m: m(2, 3, dtype=BOOL).prod(),
    "prod_dim": lambda m: m(2, 3).prod(1, keepdim=True), "amax": lambda m: m(2, 3, 4).amax((1, 2)),
    "amin": lambda m: m(2, 3).amin(), "argmax": lambda m: m(2, 3).argmax(), "argmax_dim": lambda m: m(2, 3).argmax(1, True),
    "argmin": lambda m: m(2, 3).argmin(0), "softmax": lambda m: m(2, 3).softmax(1),
    "softmax_dtype": lambda m: m(2, 3).softmax(0, dtype=o.float64), "log_softmax": lambda m: o.log_softmax(m(4), 0),
    # matrix products
    "mm": lambda m: m(2, 3).mm(m(3, 4)), "bmm": lambda m: o.bmm(m(5, 2, 3), m(5, 3, 4)),
    "matmul_1d": lambda m: m(3) @ m(3), "matmul_mv": lambda m: m(2, 3) @ m(3), "matmul_vm": lambda m: m(3) @ m(3, 4),
    "matmul_fold": lambda m: m(5, 2, 3) @ m(3, 4), "matmul_batched": lambda m: m(5, 1, 2, 3) @ m(4, 3, 2),
    "addmm": lambda m: o.addmm(m(4), m(2, 3), m(3, 4), beta=2), "addmm_": lambda m: m(2, 4).addmm_(m(2, 3), m(3, 4)),
    "dot": lambda m: o.dot(m(3), m(3)), "outer": lambda m: o.outer(m(3), m(4, dtype=o.float64)),
    "foreach": lambda m: o._foreach_add([m(2), m(3, 1)], [m(2), m(3)]),
}


def _signature(result):
    if isinstance(result, (list, tuple)):
        return [_signature(r) for r in result]
    return tuple(result.shape), result.stride(), result.dtype


@pytest.mark.parametrize("name", sorted(CASES))
def test_meta_matches_cpu(name):
    cpu = CASES[name](maker("cpu"))
    meta = CASES[name](maker("meta"))
    assert _signature(meta) == _signature(cpu)
    for r in meta if isinstance(meta, list) else [meta]:
        assert r.device.type == "meta"


def test_out_variants_on_meta():
    m = maker("meta")
    out = o.empty(0, device="meta")
    assert o.add(m(2, 3), m(3), out=out) is out and out.shape == (2, 3)
    out = o.empty(0, device="meta")
    o.sum(m(2, 3), 0, out=out)
    assert out.shape == (3,)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        o.mul(m(2), m(2), out=o.empty(0, dtype=I64, device="meta"))


def test_meta_raises_the_same_errors():
    m = maker("meta")
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        m(2, 3) @ m(4, 5)
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        m(3, dtype=I64).mean()
    with pytest.raises(IndexError, match="Dimension out of range"):
        m(2, 3).sum(2)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        m(2, 3) + m(4)
    with pytest.raises(RuntimeError, match="with two bool tensors is not supported"):
        m(2, dtype=BOOL) - m(2, dtype=BOOL)
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        m(2, dtype=I64) ** -1
