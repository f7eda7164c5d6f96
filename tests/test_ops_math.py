"""Pointwise math ops against NumPy: values, dtypes, broadcasting, 0-d, out=, in-place, operators, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import openreg
from openreg._array_bridge import host_array

aten = openreg.ops.aten
RNG = np.random.default_rng(1234)


def T(arr, device="cpu"):
    t = openreg.from_numpy(np.array(arr, order="C"))
    return t if device == "cpu" else t.to(device)


def N(t) -> np.ndarray:
    return np.array(host_array(t))


def rand(shape, dtype, lo=-3.0, hi=3.0):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        return RNG.integers(int(max(lo, 0 if dtype.kind == "u" else lo)), int(hi) + 1, size=shape).astype(dtype)
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def check(result, expected, dtype, rtol=1e-5, atol=1e-6):
    assert result.dtype is dtype, (result.dtype, dtype)
    assert tuple(result.shape) == np.shape(expected)
    np.testing.assert_allclose(N(result), np.asarray(expected), rtol=rtol, atol=atol)


# -- unary ---------------------------------------------------------------------------------------------

FLOAT_UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "reciprocal": lambda x: 1 / x,
}
SHAPES = [(), (5,), (2, 3)]


@pytest.mark.parametrize("name", sorted(FLOAT_UNARY))
def test_float_unary(devices, name):
    for dtype in (openreg.float32, openreg.float64, openreg.int64, openreg.int32):
        for shape in SHAPES:
            a = rand(shape, dtype.numpy, 1, 4)
            x = T(a, devices)
            out_dtype = dtype if dtype.is_floating_point else openreg.float32
            expected = FLOAT_UNARY[name](a.astype(out_dtype.numpy))
            check(getattr(openreg, name)(x), expected, out_dtype)
            check(getattr(x, name)(), expected, out_dtype)
            out = openreg.empty(0, dtype=out_dtype, device=devices)
            assert getattr(openreg, name)(x, out=out) is out
            check(out, expected, out_dtype)


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64, openreg.int64, openreg.int8])
@pytest.mark.parametrize("shape", SHAPES)
def test_abs_neg_relu(devices, dtype, shape):
    a = rand(shape, dtype.numpy)
    x = T(a, devices)
    check(x.abs(), np.abs(a), dtype)
    check(abs(x), np.abs(a), dtype)
    check(-x, -a, dtype)
    check(openreg.neg(x), -a, dtype)
    check(x.relu(), np.maximum(a, 0), dtype)


def test_float16_and_bfloat16_unary():
    a = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    for d in (openreg.float16, openreg.bfloat16):
        x = T(a).to(d)
        r = x.exp()
        assert r.dtype is d
        np.testing.assert_allclose(N(r), np.exp(a), rtol=1e-2)


def test_unary_inplace_and_noncontiguous(devices):
    a = rand((2, 3), np.float32, 0.5, 2)
    x = T(a, devices)
    xt = aten.as_strided.default(x, (3, 2), (1, 3))  # the transpose, a non-contiguous view
    check(xt.sqrt(), np.sqrt(a.T), openreg.float32)
    v = x._version
    assert xt.sqrt_() is xt
    assert x._version > v
    np.testing.assert_allclose(N(x), np.sqrt(a), rtol=1e-6)


def test_bitwise_logical_not():
    a = np.array([0, 5, -3], dtype=np.int32)
    check(~T(a), ~a, openreg.int32)
    b = np.array([True, False])
    check(~T(b), ~b, openreg.bool)
    check(openreg.logical_not(T(np.array([0.0, 2.0]))), [True, False], openreg.bool)
    with pytest.raises(TypeError, match="only implemented on integer and Boolean-type tensors"):
        ~openreg.ones(2)
    with pytest.raises(NotImplementedError, match="\"bitwise_not_cpu\" not implemented for 'Float'"):
        openreg.bitwise_not(openreg.ones(2))


# -- binary --------------------------------------------------------------------------------------------

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal,
}
BROADCAST = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (4,)), ((3,), ()), ((), ())]
COMPARE = {"eq", "ne", "lt", "le", "gt", "ge"}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_tensor_tensor(devices, name):
    for shapes in BROADCAST:
        for dtypes in ((np.float32, np.float32), (np.int64, np.int64), (np.int32, np.float64), (np.int8, np.int16)):
            a, b = rand(shapes[0], dtypes[0]), rand(shapes[1], dtypes[1])
            x, y = T(a, devices), T(b, devices)
            da, db = openreg.dtypes.from_numpy(a.dtype), openreg.dtypes.from_numpy(b.dtype)
            promoted = openreg.promote_types(da, db)
            if a.dtype.kind == b.dtype.kind and len(shapes[0]) != len(shapes[1]) and 0 in map(len, shapes):
                promoted = da if len(shapes[0]) else db  # the dimensioned operand decides within a category
            expected = BINARY[name](a.astype(promoted.numpy), b.astype(promoted.numpy))
            out_dtype = openreg.bool if name in COMPARE else promoted
            check(getattr(openreg, name)(x, y), expected, out_dtype)
            check(getattr(x, name)(y), expected, out_dtype)


@pytest.mark.parametrize("op, np_op", [("__add__", np.add), ("__sub__", np.subtract), ("__mul__", np.multiply),
                                       ("__truediv__", np.true_divide), ("__pow__", np.power),
                                       ("__lt__", np.less), ("__eq__", np.equal)])
@pytest.mark.parametrize("scalar", [2, 2.5, -1.5])
def test_operators_with_python_scalars(devices, op, np_op, scalar):
    a = rand((2, 3), np.float32, 0.5, 3)
    x = T(a, devices)
    expected = np_op(a, np.float32(scalar))
    r = getattr(x, op)(scalar)
    check(r, expected, openreg.bool if op in ("__lt__", "__eq__") else openreg.float32, rtol=1e-5)


def test_reflected_operators():
    a = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    x = T(a)
    check(3 + x, 3 + a, openreg.float32)
    check(3 - x, 3 - a, openreg.float32)
    check(3 * x, 3 * a, openreg.float32)
    check(3 / x, 3 / a, openreg.float32)
    check(7 // x, 7 // a, openreg.float32)
    check(7 % x, 7 % a, openreg.float32)
    check(2 ** x, 2 ** a, openreg.float32)
    i = T(np.array([1, 2, 4]))
    check(3 / i, 3 / np.array([1, 2, 4]), openreg.float32)
    check(7 // i, [7, 3, 1], openreg.int64)
    check(2 ** i, [2, 4, 16], openreg.int64)
    check(5 - i, [4, 3, 1], openreg.int64)
    check(1 & T(np.array([1, 2, 3])), [1, 0, 1], openreg.int64)


def test_inplace_operators_keep_identity():
    x = T(np.array([1.0, 2.0]))
    y = x
    x += 1
    x *= T(np.array([2.0, 3.0]))
    x -= 1
    x /= 2
    assert x is y
    np.testing.assert_allclose(N(x), [1.5, 4.0])
    x **= 2
    x //= 1
    x %= 3
    np.testing.assert_allclose(N(y), [2.0, 1.0])
    b = T(np.array([True, False]))
    b &= T(np.array([True, True]))
    b |= T(np.array([False, True]))
    b ^= T(np.array([True, True]))
    assert N(b).tolist() == [False, False]


def test_unsupported_operand_types_raise_type_error():
    x = openreg.ones(2)
    for fn in (lambda: x + "a", lambda: "a" - x, lambda: x * [1], lambda: x @ 2, lambda: x / None):
        with pytest.raises(TypeError):
            fn()
    assert (x == "a") is False
    assert (x != None) is True


def test_alpha():
    a, b = np.array([1.0, 2.0]), np.array([10.0, 20.0])
    check(openreg.add(T(a), T(b), alpha=0.5), a + 0.5 * b, openreg.float64)
    check(openreg.sub(T(a), T(b), alpha=2), a - 2 * b, openreg.float64)
    check(T(a).add(3, alpha=2), a + 6, openreg.float64)
    check(openreg.rsub(T(a), T(b), alpha=2), b - 2 * a, openreg.float64)
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        openreg.add(T(np.array([1, 2])), T(np.array([1, 2])), alpha=0.5)


def test_division_modes(devices):
    a = np.array([7, -7, 7, -7, 0], dtype=np.int64)
    b = np.array([2, 2, -2, -2, 3], dtype=np.int64)
    x, y = T(a, devices), T(b, devices)
    check(x / y, a / b, openreg.float32)
    check(openreg.div(x, y, rounding_mode="trunc"), np.trunc(a / b).astype(np.int64), openreg.int64)
    check(openreg.div(x, y, rounding_mode="floor"), a // b, openreg.int64)
    check(x // y, a // b, openreg.int64)
    check(x % y, np.remainder(a, b), openreg.int64)
    check(openreg.remainder(x, 3), np.remainder(a, 3), openreg.int64)
    check(openreg.remainder(10, y), np.remainder(10, b), openreg.int64)
    f = np.array([7.5, -7.5, 1.0, -1.0], dtype=np.float32)
    g = np.array([2.0, 2.0, 0.0, 0.0], dtype=np.float32)
    with np.errstate(all="ignore"):
        check(T(f, devices) / T(g, devices), f / g, openreg.float32)
        check(openreg.div(T(f, devices), T(g, devices), rounding_mode="trunc"), np.trunc(f / g), openreg.float32)
        check(T(f, devices) // T(g, devices), np.floor_divide(f, g), openreg.float32)
        check(T(f, devices) % T(g, devices), np.remainder(f, g), openreg.float32)
    with pytest.raises(RuntimeError, match="rounding_mode"):
        openreg.div(x, y, rounding_mode="round")


@pytest.mark.parametrize("fn", [lambda x, y: x // y, lambda x, y: x % y,
                                lambda x, y: openreg.div(x, y, rounding_mode="trunc"),
                                lambda x, y: x.floor_divide_(y)])
def test_integer_division_by_zero_raises_and_changes_nothing(fn):
    x = T(np.array([4, 5], dtype=np.int32))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(x, T(np.array([1, 0], dtype=np.int32)))
    assert N(x).tolist() == [4, 5]


@pytest.mark.parametrize("fn", [lambda x: x // 2, lambda x: openreg.floor_divide(x, x), lambda x: x.floor_divide_(2),
                                lambda x: openreg.div(x, 2, rounding_mode="floor"),
                                lambda x: openreg.div(x, x, rounding_mode="trunc")])
def test_complex_floor_and_trunc_division_not_implemented(devices, fn):
    x = T(np.array([1 + 1j, 2 - 1j], dtype=np.complex64), devices)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        fn(x)
    assert N(x).tolist() == [1 + 1j, 2 - 1j]


def test_pow_overloads(devices):
    a = np.array([1, 2, 3, -1, -2], dtype=np.int64)
    x = T(a, devices)
    check(x ** 2, a ** 2, openreg.int64)
    with np.errstate(invalid="ignore"):
        check(x.pow(0.5), np.power(a.astype(np.float32), 0.5), openreg.float32, atol=1e-6)
    check(openreg.pow(2, x.abs()), 2 ** np.abs(a), openreg.int64)
    check(openreg.pow(2.0, x), 2.0 ** a.astype(np.float32), openreg.float32)
    e = np.array([-1, -2, 3, -3, -1], dtype=np.int64)
    check(x ** T(e, devices), [1, 0, 27, -1, 0], openreg.int64)
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        x ** -1
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        x.pow_(-2)
    assert N(x).tolist() == a.tolist()
    f = T(np.array([4.0, 9.0]), devices)
    check(f ** -0.5, [0.5, 1 / 3], openreg.float64)


def test_bool_arithmetic_rules():
    t, f = T(np.array([True, False])), T(np.array([False, False]))
    with pytest.raises(RuntimeError, match=r"Subtraction, the `-` operator, with two bool tensors is not "
                                           r"supported. Use the `\^` or `logical_xor\(\)` operator instead."):
        t - f
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        t - 1
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        _ = -t
    check(t + t, [True, False], openreg.bool)
    check(t * f, [False, False], openreg.bool)
    check(t + 1, [2, 1], openreg.int64)
    check(t / t, [1.0, np.nan], openreg.float32)


def test_comparisons_promote_before_comparing():
    i = T(np.array([1, 2, 3]))
    check(i == 2.5, [False, False, False], openreg.bool)
    check(i < 2.5, [True, True, False], openreg.bool)
    check(i.eq(T(np.array([1.0, 2.5, 3.0]))), [True, False, True], openreg.bool)
    x = T(np.array([1.0, 5.0]))
    assert x.gt_(2) is x
    check(x, [0.0, 1.0], openreg.float64)


def test_bitwise_and_logical(devices):
    a, b = np.array([1, 6, 3], dtype=np.int32), np.array([3, 2, 0], dtype=np.int32)
    x, y = T(a, devices), T(b, devices)
    check(x & y, a & b, openreg.int32)
    check(x | y, a | b, openreg.int32)
    check(x ^ y, a ^ b, openreg.int32)
    check(openreg.bitwise_and(x, 2), a & 2, openreg.int32)
    check(openreg.logical_and(x, y), np.logical_and(a, b), openreg.bool)
    check(openreg.logical_or(x, y), np.logical_or(a, b), openreg.bool)
    check(openreg.logical_xor(x, y), np.logical_xor(a, b), openreg.bool)
    with pytest.raises(RuntimeError, match="not implemented for 'Float'"):
        openreg.ones(2) & openreg.ones(2)


def test_clamp_family(devices):
    a = rand((3, 4), np.float32)
    x = T(a, devices)
    check(x.clamp(-1, 1), np.clip(a, -1, 1), openreg.float32)
    check(openreg.clamp(x, min=0.5), np.maximum(a, 0.5), openreg.float32)
    check(openreg.clamp(x, max=0.5), np.minimum(a, 0.5), openreg.float32)
    lo, hi = rand((4,), np.float32, -2, -1), rand((3, 1), np.float32, 1, 2)
    check(openreg.clamp(x, T(lo, devices), T(hi, devices)), np.minimum(np.maximum(a, lo), hi), openreg.float32)
    check(x.clamp_min(0), np.maximum(a, 0), openreg.float32)
    check(x.clamp_max(T(hi, devices)), np.minimum(a, hi), openreg.float32)
    i = T(np.array([1, 2, 3]), devices)
    check(i.clamp(min=1.5), [1.5, 2.0, 3.0], openreg.float32)  # promotes, as PyTorch
    y = T(a, devices)
    assert y.clamp_(-1, 1) is y
    np.testing.assert_allclose(N(y), np.clip(a, -1, 1))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        x.clamp()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.clamp_(min=1.5)
    assert N(i).tolist() == [1, 2, 3]


def test_where(devices):
    c = np.array([[True, False, True]])
    a, b = rand((2, 3), np.float32), rand((2, 1), np.float64)
    cond = T(c, devices)
    check(openreg.where(cond, T(a, devices), T(b, devices)), np.where(c, a, b), openreg.float64)
    check(T(a, devices).where(cond, 0), np.where(c, a, 0), openreg.float32)
    check(openreg.where(cond, 1, T(b, devices)), np.where(c, 1.0, b), openreg.float64)
    check(openreg.where(cond, 1, 0), np.where(c, 1, 0), openreg.int64)
    check(openreg.where(cond, 1.0, 0), np.where(c, 1.0, 0.0), openreg.float32)
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor, but got a tensor "
                                           "with dtype Float"):
        openreg.where(T(a, devices), T(a, devices), T(a, devices))


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float32, np.complex64])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2), (0, 3)])
def test_nonzero_and_where_condition(devices, dtype, shape):
    a = rand(shape, np.float32, -1, 1)
    a = (np.where(a > 0.2, a, 0) + (1j if dtype == np.complex64 else 0)).astype(dtype) if a.size else a.astype(dtype)
    expected = np.argwhere(a)
    x = T(a, devices)
    r = openreg.nonzero(x)
    check(r, expected, openreg.int64)
    assert r.stride() == (1, max(len(expected), 0)) and r.device == x.device
    assert N(x.nonzero()).tolist() == expected.tolist()
    for got, want in zip(openreg.where(x), np.nonzero(a), strict=True):
        check(got, want, openreg.int64)
    assert [N(t).tolist() for t in x.nonzero(as_tuple=True)] == [w.tolist() for w in np.nonzero(a)]
    assert [N(t).tolist() for t in aten.where.default(x)] == [w.tolist() for w in np.nonzero(a)]
    out = openreg.empty(5, dtype=openreg.int64, device=devices)
    with pytest.warns(UserWarning, match="was resized"):
        assert openreg.nonzero(x, out=out) is out
    assert N(out).tolist() == expected.tolist()


def test_nonzero_edge_cases(devices):
    assert openreg.nonzero(T(np.float32(3.0), devices)).shape == (1, 0)
    assert openreg.nonzero(T(np.float32(0.0), devices)).shape == (0, 0)
    assert [N(t).tolist() for t in openreg.where(T(np.int64(2), devices))] == [[0]]
    bf = openreg.tensor([-0.0, 0.5, 0.0], dtype=openreg.bfloat16, device=devices)
    assert N(bf.nonzero()).tolist() == [[1]]
    with pytest.raises(RuntimeError, match="Expected out tensor to have scalar type Long"):
        openreg.nonzero(T([1, 0], devices), out=openreg.empty(0, dtype=openreg.int32, device=devices))
    with pytest.raises(RuntimeError, match="does not support the out kwarg when as_tuple is True"):
        openreg.nonzero(T([1, 0], devices), as_tuple=True, out=openreg.empty(0, dtype=openreg.int64))
    with pytest.raises(NotImplementedError, match="data-independent"):
        openreg.nonzero(openreg.ones(2, device="meta"))
    with pytest.raises(NotImplementedError, match="data-independent"):
        openreg.where(openreg.ones(2, device="meta"))
    with pytest.raises(TypeError, match="where"):
        openreg.where(T([True], devices), 1)


def test_out_variants(devices):
    a, b = rand((2, 3), np.float32), rand((3,), np.float32)
    x, y = T(a, devices), T(b, devices)
    out = openreg.empty(0, device=devices)
    assert openreg.add(x, y, out=out) is out
    check(out, a + b, openreg.float32)
    out64 = openreg.empty(0, dtype=openreg.float64, device=devices)
    openreg.mul(x, 2, out=out64)
    check(out64, (a * 2).astype(np.float64), openreg.float64, rtol=1e-6)
    outb = openreg.empty(0, dtype=openreg.bool, device=devices)
    openreg.lt(x, y, out=outb)
    check(outb, a < b, openreg.bool)
    bad = openreg.zeros(2, 3, dtype=openreg.int64, device=devices)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        openreg.add(x, y, out=bad)
    assert N(bad).tolist() == [[0, 0, 0], [0, 0, 0]]
    with pytest.warns(UserWarning, match="was resized"):
        openreg.sub(x, y, out=openreg.zeros(5, device=devices))


def test_failed_inplace_leaves_tensor_unchanged(devices):
    a = np.array([1, 2, 3], dtype=np.int64)
    x = T(a, devices)
    for fn, msg in ((lambda: x.div_(2), "result type Float can't be cast to the desired output type Long"),
                    (lambda: x.exp_(), "result type Float can't be cast"),
                    (lambda: x.add_(openreg.ones(2, 3, dtype=openreg.int64, device=devices)),
                     r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"),
                    (lambda: x.mul_(T(np.ones(4, dtype=np.int64), devices)), "must match the size")):
        with pytest.raises(RuntimeError, match=msg):
            fn()
        assert N(x).tolist() == [1, 2, 3]


@pytest.mark.parametrize("sa,sb", [((0, 3), (1, 3)), ((2, 0, 3), (1, 3)), ((1, 3), (4, 0, 1))])
def test_empty_broadcast_result_is_contiguous(devices, sa, sb):
    a, b = rand(sa, np.float32), rand(sb, np.float32)
    for r in (T(a, devices) + T(b, devices), T(b, devices) * T(a, devices), openreg.where(T(b, devices) > 0, T(a, devices), 0.0)):
        assert r.numel() == 0 and r.is_contiguous()
        assert r.stride() == openreg.empty(r.shape).stride()


@pytest.mark.parametrize("dev", ["cpu", "privateuseone", "meta"])
def test_elementwise_result_layout_follows_tensor_iterator(dev):
    a = rand((2, 3), np.float32)
    x, y = T(a, "cpu").to(dev).t(), T(a.T.copy(), "cpu").to(dev)  # same values, layouts (1, 3) and (2, 1)
    assert (x + y).stride() == (1, 3) and (y + x).stride() == (2, 1)  # the first operand decides a conflict
    assert (openreg.ones(2, device=dev) * x).stride() == (1, 3)  # broadcast operands do not vote
    p = openreg.ones(2, 3, 4, device=dev).permute(2, 0, 1)
    assert (p + openreg.ones(4, 2, 3, device=dev)).stride() == (1, 12, 4)
    assert (openreg.ones(4, 2, 3, device=dev) + p).stride() == (6, 3, 1)
    assert (x + 1).stride() == (1, 3) and (x > 0).stride() == (1, 3)
    if dev != "meta":
        np.testing.assert_allclose(N(x + y), a.T * 2)
        np.testing.assert_allclose(N(y - x), np.zeros((3, 2)))


def test_broadcast_error_names_sizes():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\) "
                                           r"at non-singleton dimension 1"):
        openreg.ones(2, 3) + openreg.ones(2, 4)
    # Several mismatching dims: PyTorch names the trailing one.
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(5\) "
                                           r"at non-singleton dimension 1"):
        openreg.ones(2, 3) + openreg.ones(4, 5)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(4\) must match the size of tensor b \(6\) "
                                           r"at non-singleton dimension 2"):
        openreg.ones(2, 3, 4) + openreg.ones(5, 3, 6)


def test_device_mismatch():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        openreg.ones(2) + openreg.ones(2, device="meta")
    # a zero-dim CPU tensor may join any device
    r = openreg.ones(2, device="meta") + T(np.array(1.0))
    assert r.device.type == "meta"


def test_non_tensor_argument_type_errors():
    x = openreg.ones(2)
    with pytest.raises(TypeError, match="add.*other"):
        aten.add.Tensor(x, "a")
    with pytest.raises(TypeError, match="maximum.*other.*Tensor"):
        openreg.maximum(x, 2)
    with pytest.raises(TypeError, match="mm.*mat2.*Tensor"):
        openreg.mm(x, [[1.0]])
    with pytest.raises(TypeError, match="add.*input.*Tensor"):
        openreg.add("a", x)
    with pytest.raises(TypeError, match="add.*other.*Number"):
        x.add("a")


def test_foreach_add(devices):
    xs = [T(rand((2,), np.float32), devices), T(rand((3, 2), np.float64), devices)]
    ys = [T(rand((2,), np.float32), devices), T(rand((2,), np.float64), devices)]
    res = openreg._foreach_add(xs, ys, alpha=2)
    for r, x, y in zip(res, xs, ys):
        np.testing.assert_allclose(N(r), N(x) + 2 * N(y), rtol=1e-6)
    before = [N(x).copy() for x in xs]
    openreg._foreach_add_(xs, ys)
    for x, b, y in zip(xs, before, ys):
        np.testing.assert_allclose(N(x), b + N(y), rtol=1e-6)
    with pytest.raises(RuntimeError, match="same number of tensors, got 2 and 1"):
        openreg._foreach_add(xs, ys[:1])
    with pytest.raises(RuntimeError, match="at least one tensor"):
        openreg._foreach_add([], [])
    ints = [T(np.array([1, 2]), devices), T(np.array([5]), devices)]
    with pytest.raises(RuntimeError, match="result type Double can't be cast to the desired output type Long"):
        openreg._foreach_add_(ints, [T(np.array([1, 1]), devices), T(np.array([0.5]), devices)])
    assert N(ints[0]).tolist() == [1, 2]  # checked before anything was written


def test_complex_basic():
    a = np.array([1 + 2j, -3 - 1j], dtype=np.complex64)
    x = T(a)
    check(x * x, a * a, openreg.complex64)
    check(x.abs(), np.abs(a), openreg.float32)
    check(x + 1.5, a + 1.5, openreg.complex64)
    with pytest.raises(RuntimeError, match="not implemented for 'ComplexFloat'"):
        x.lt(x)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int64", "complex64"])
def test_cached_ufunc_calls_are_silent_under_the_users_raise_state(dtype):
    # abs/neg run without switching NumPy's error state (they set no floating-point flag on real numbers);
    # add/mul, which can overflow, still switch it: neither may raise or warn under the user's own settings.
    np_dtype = np.dtype(dtype)
    if np_dtype.kind == "f":
        big = np.finfo(np_dtype).max
        a = np.array([np.nan, np.inf, -np.inf, -0.0, np.finfo(np_dtype).smallest_subnormal, big] * 3, np_dtype)
    elif np_dtype.kind == "c":
        big = np.finfo(np.float32).max
        a = np.array([complex(big, big), complex(np.nan, 1), -0.0, 1 + 2j] * 4, np_dtype)
    else:
        big = np.iinfo(np_dtype).max
        a = np.array([np.iinfo(np_dtype).min, -1, 0, 1, big] * 3, np_dtype)
    x = openreg.from_numpy(a)
    with np.errstate(all="ignore"):
        want = [np.abs(a), np.negative(a), a + a, a * a]
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):            # the first call resolves, the later ones take the cached ufunc
            got = [x.abs(), -x, x + x, x * x]
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g.numpy(), w)


def test_python_operators_take_tensors_numbers_and_refuse_the_rest():
    # The operators forward to the tensor overload's generated call, which answers a non-tensor through the
    # Scalar overload (numbers, NumPy scalars) or NotImplemented (so Python raises its own TypeError).
    x = openreg.tensor([1.0, 2.0])
    for _ in range(2):
        assert (x + x).tolist() == [2.0, 4.0] and (x * 3).tolist() == [3.0, 6.0]
        assert (x - np.float32(1)).tolist() == [0.0, 1.0] and (x == 2.0).tolist() == [False, True]
        assert x.__add__("a") is NotImplemented and x.__lt__([1]) is NotImplemented
        with pytest.raises(TypeError, match="unsupported operand"):
            x + "a"
        y = x.clone()
        y += x
        y *= 2
        assert y.tolist() == [4.0, 8.0]


def test_python_operators_on_a_subclass_dispatch_to_its_own_overrides():
    class Doubled(openreg.Tensor):
        def __add__(self, other):
            return "own"
    x = openreg.tensor([1.0])
    x.__class__ = Doubled
    assert x + x == "own"
    assert (x * x).tolist() == [1.0]


def test_cached_signatures_with_number_and_list_arguments_tell_values_and_types_apart():
    # A structured kernel caches its meta rule's answer per signature; options (dims, flags) count by value and
    # type (dims 0 and 1 reduce differently), numbers to compute with (2, 2.0 and True promote differently)
    # are not cached at all.
    i = openreg.tensor([[1, 2], [3, 4]])
    f = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
    for _ in range(2):
        assert (i * 2).dtype == openreg.int64 and (i * 2.0).dtype == openreg.float32
        assert (i * True).dtype == openreg.int64 and (i * 3).tolist() == [[3, 6], [9, 12]]
        assert i.sum([0]).tolist() == [4, 6] and i.sum([1]).tolist() == [3, 7]
        assert i.sum((1,)).tolist() == [3, 7]
        np.testing.assert_allclose(openreg.softmax(f, 0).numpy().sum(0), [1.0, 1.0], rtol=1e-6)
        np.testing.assert_allclose(openreg.softmax(f, 1).numpy().sum(1), [1.0, 1.0], rtol=1e-6)
        assert (f ** 2).tolist() == [[1.0, 4.0], [9.0, 16.0]] and (f ** 0.5)[1, 1].item() == 2.0
        with pytest.raises(RuntimeError, match="Boolean"):
            openreg.add(i, i, alpha=True)
