"""PyTorch type promotion through the math ops: tensor/tensor, tensor/scalar, zero-dim vs dimensioned."""
from __future__ import annotations

import math

import numpy as np
import pytest

import openreg as o


def full(shape, dtype):
    return o.ones(*shape, dtype=dtype) if shape else o.from_numpy(np.array(1, dtype=dtype.numpy))


# (lhs dtype, lhs shape, rhs dtype or Python scalar, rhs shape, expected) -- from PyTorch's documented rules
CASES = [
    (o.int32, (2,), o.int64, (2,), o.int64),
    (o.uint8, (2,), o.int8, (2,), o.int16),
    (o.int64, (2,), o.float16, (2,), o.float16),
    (o.float16, (2,), o.bfloat16, (2,), o.float32),
    (o.bool, (2,), o.int8, (2,), o.int8),
    (o.float32, (2,), o.float64, (2,), o.float64),
    (o.float64, (2,), o.complex64, (2,), o.complex128),
    # zero-dim tensors only matter when their category is higher
    (o.int32, (2,), o.int64, (), o.int32),
    (o.float16, (2,), o.float64, (), o.float16),
    (o.int32, (2,), o.float64, (), o.float64),
    (o.int32, (), o.int64, (), o.int64),
    (o.uint8, (2,), o.int64, (), o.uint8),
    # Python scalars: same rule, with int -> int64, float -> default dtype
    (o.int32, (2,), 5, None, o.int32),
    (o.uint8, (2,), 1000 - 999, None, o.uint8),
    (o.int32, (2,), 2.5, None, o.float32),
    (o.float16, (2,), 2.5, None, o.float16),
    (o.bool, (2,), 1, None, o.int64),
    (o.bool, (2,), True, None, o.bool),
    (o.int64, (), 2.5, None, o.float32),
    (o.float64, (2,), 1j, None, o.complex128),
    (o.float32, (2,), 1j, None, o.complex64),
]


@pytest.mark.parametrize("lhs, lshape, rhs, rshape, expected", CASES)
def test_add_mul_result_dtype(lhs, lshape, rhs, rshape, expected):
    a = full(lshape, lhs)
    b = rhs if rshape is None else full(rshape, rhs)
    assert (a + b).dtype is expected
    assert (a * b).dtype is expected
    assert o.ops.aten.add.Tensor(a, b).dtype is expected if rshape is not None else True
    # the meta backend agrees
    am = a.to("meta")
    bm = b if rshape is None else (b if len(rshape) == 0 else b.to("meta"))
    assert (am + bm).dtype is expected


def test_promotion_is_symmetric_for_reflected_scalars():
    i = o.ones(2, dtype=o.int32)
    assert (2.5 + i).dtype is o.float32
    assert (2 - i).dtype is o.int32
    assert (2.5 / i).dtype is o.float32
    assert (7 // i).dtype is o.int32
    assert (7.0 // i).dtype is o.float32
    assert (2 ** i).dtype is o.int32
    assert (2.0 ** i).dtype is o.float32
    assert (3 % i).dtype is o.int32
    z = o.from_numpy(np.array(3, dtype=np.int16))
    assert (1 / z).dtype is o.float32
    assert (1 // z).dtype is o.int16


def test_true_division_and_unary_float_ops_give_default_dtype():
    i = o.ones(3, dtype=o.int16)
    assert (i / i).dtype is o.float32
    assert i.sqrt().dtype is o.float32
    assert o.ones(2, dtype=o.bool).exp().dtype is o.float32
    o.set_default_dtype(o.float64)
    try:
        assert (i / i).dtype is o.float64
        assert (i + 1.5).dtype is o.float64
        assert i.sigmoid().dtype is o.float64
        assert (o.ones(2, dtype=o.float32) + 1.5).dtype is o.float32
    finally:
        o.set_default_dtype(o.float32)


def test_comparisons_give_bool_and_compare_in_promoted_dtype():
    i = o.from_numpy(np.array([2, 3]))
    r = i == 2.5
    assert r.dtype is o.bool and r.tolist() == [False, False]
    u = o.from_numpy(np.array([200], dtype=np.uint8))
    assert (u + 300).dtype is o.uint8 and (u + 300).tolist() == [(200 + 300) % 256]  # wraps like a C cast


def test_rounding_division_keeps_integer_dtype():
    i = o.from_numpy(np.array([7, -7], dtype=np.int16))
    assert o.div(i, 2, rounding_mode="floor").dtype is o.int16
    assert o.div(i, 2.0, rounding_mode="trunc").dtype is o.float32


def test_out_dtype_must_be_castable():
    f = o.ones(2)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        o.add(f, f, out=o.empty(0, dtype=o.int64))
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        o.add(o.ones(2, dtype=o.int64), 1, out=o.empty(0, dtype=o.bool))
    r = o.add(o.ones(2, dtype=o.int64), 1, out=o.empty(0, dtype=o.float64))
    assert r.dtype is o.float64 and r.tolist() == [2.0, 2.0]


def test_inplace_result_must_fit_self():
    i = o.ones(2, dtype=o.int32)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Int"):
        i += 1.5
    assert i.tolist() == [1, 1]
    i += o.ones(2, dtype=o.int64)  # int64 result is cast back to int32
    assert i.dtype is o.int32 and i.tolist() == [2, 2]
    f = o.ones(2, dtype=o.float16)
    f *= o.ones(2, dtype=o.float64)
    assert f.dtype is o.float16


def test_where_and_clamp_promote():
    c = o.from_numpy(np.array([True, False]))
    assert o.where(c, o.ones(2, dtype=o.int32), o.ones(2, dtype=o.float16)).dtype is o.float16
    assert o.where(c, o.ones(2, dtype=o.int32), 2).dtype is o.int32
    assert o.where(c, o.ones(2, dtype=o.int32), 2.5).dtype is o.float32
    assert o.clamp(o.ones(2, dtype=o.int32), 0, 5).dtype is o.int32
    assert o.maximum(o.ones(2, dtype=o.int32), o.ones(2, dtype=o.float64)).dtype is o.float64


def test_wrapped_scalars_keep_their_value():
    u = o.from_numpy(np.array([1, 4], dtype=np.uint8))
    r = -1 / u  # the scalar is not squeezed into uint8 first
    assert r.dtype is o.float32 and r.tolist() == [-1.0, -0.25]
    r = o.add(u, 2.5, out=o.empty(0))
    assert r.tolist() == [3.5, 6.5]
    i8 = o.from_numpy(np.array([3], dtype=np.int8))
    assert (7 // i8).dtype is o.int8 and (7 // i8).tolist() == [2]


def test_bool_rules_for_alpha_pow_and_rounding():
    b = o.from_numpy(np.array([True, False]))
    assert o.add(b, b, alpha=2).tolist() == [True, False]
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results."):
        o.add(o.ones(2), o.ones(2), alpha=True)
    assert (b ** True).dtype is o.bool and (b ** False).tolist() == [True, True]
    with pytest.raises(NotImplementedError, match="\"pow\" not implemented for 'Bool'"):
        b ** b
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        b ** -1
    with pytest.raises(NotImplementedError, match="\"div_floor_cpu\" not implemented for 'Bool'"):
        b // b
    assert o.clamp(b, b, b).dtype is o.bool



def test_python_floats_are_double_wrapped_numbers():
    """``math.pi / float64_tensor`` (the reflected operators wrap the number) keeps the double value; float32
    results stay float32."""
    t = o.tensor([0.5], dtype=o.float64)
    assert (math.pi / t).item() == math.pi / 0.5 and (math.pi - t).item() == math.pi - 0.5
    assert (math.pi / o.tensor([0.5])).dtype == o.float32
    assert (0.1 + o.tensor([1], dtype=o.float16)).dtype == o.float16


def test_number_divided_by_tensor_is_reciprocal_times_number():
    """``c / t`` is PyTorch's ``t.reciprocal() * c`` (Tensor.__rdiv__): the same bits as that product, int and bool
    tensors promoted by reciprocal, and the graph MulBackward0 over ReciprocalBackward0."""
    rng = np.random.default_rng(5)
    x = o.tensor((rng.standard_normal(4096) * 3).astype(np.float32))
    for c in (np.pi, 3, 0.1):
        ours = (c / x).numpy()
        expected = (np.float32(1) / x.numpy()) * np.float32(c)
        assert ours.view(np.uint32).tobytes() == expected.astype(np.float32).view(np.uint32).tobytes()
    ints = o.tensor([1, 2, 4])
    assert (3 / ints).dtype is o.float32 and (3 / ints).tolist() == [3.0, 1.5, 0.75]
    assert (1 / o.tensor([True, False])).tolist() == [1.0, float("inf")]
    w = o.tensor([2.0, 4.0], requires_grad=True)
    y = 2.0 / w
    assert y.grad_fn.name() == "MulBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "ReciprocalBackward0"
    y.sum().backward()
    assert w.grad.tolist() == [-0.5, -0.125]
    with pytest.raises(TypeError):
        "a" / w
