"""Argument checking of operator calls: every schema type is checked before a kernel runs, wrong values raise
PyTorch's error types and wording, and the generated calling code cannot be confused by argument names."""
import itertools

import numpy as np
import pytest

import openreg
from openreg.library import Library

A = openreg.ops.aten
_counter = itertools.count()


def test_non_tensor_for_optional_tensor_raises_type_error():
    x = openreg.ones(3)
    with pytest.raises(TypeError, match=r"clamp\(\): argument 'max' \(position 3\) must be Tensor, not int"):
        A.clamp.Tensor(x, None, 5)
    with pytest.raises(TypeError, match=r"nll_loss_forward\(\): argument 'weight' \(position 3\) must be Tensor, "
                                        r"not float"):
        A.nll_loss_forward.default(openreg.ones(3, 2), openreg.tensor([0, 1, 0]), 1.0, 1, -100)
    assert A.clamp.Tensor(x, None, openreg.tensor(0.5)).tolist() == [0.5, 0.5, 0.5]


def test_keyword_named_schema_arguments_are_checked_too():
    # uniform_'s ``from`` is a Python keyword: its overload binds generically, with the same checks.
    g = openreg.Generator()
    with pytest.raises(TypeError, match=r"uniform_\(\): argument 'self' \(position 1\) must be Tensor, not float"):
        A.uniform_.default(1.0, 0.0, 1.0, generator=g)
    x = openreg.zeros(4)
    with pytest.raises(TypeError, match=r"argument 'generator' must be torch.Generator, not int"):
        A.uniform_.default(x, 0.0, 1.0, generator=5)
    with pytest.raises(TypeError, match="argument 'to'"):
        A.uniform_.default(x, 0.0, "one")
    assert x.tolist() == [0.0] * 4 and x._version == 0
    A.uniform_.default(x, 2.0, 3.0, generator=g)
    assert all(2.0 <= v <= 3.0 for v in x.tolist())


def test_generator_argument_is_checked_by_the_binding():
    with pytest.raises(TypeError, match=r"randn\(\): argument 'generator' must be torch.Generator, not str"):
        A.randn.generator([2], generator="seed")


def test_tensor_list_elements_are_checked_with_pytorch_wording():
    x = openreg.ones(2)
    with pytest.raises(TypeError, match="expected Tensor as element 1 in argument 0, but got int"):
        A.cat.default([x, 1])
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 0, but got NoneType"):
        A.stack.default((None, x))
    with pytest.raises(TypeError, match=r"cat\(\): argument 'tensors' \(position 1\) must be tuple of Tensors, "
                                        r"not int"):
        A.cat.default(5)
    with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
        A.cat.default(x)
    assert A.cat.default((x, x)).tolist() == [1.0] * 4
    # Tensor?[] takes None elements.
    assert A.index.Tensor(openreg.arange(6).view(2, 3), [None, openreg.tensor([2])]).tolist() == [[2], [5]]


def test_numpy_arrays_are_not_ints():
    x = openreg.ones(2, 3)
    with pytest.raises(TypeError, match=r"argmax\(\): argument 'dim' \(position 2\) must be int, not ndarray"):
        A.argmax.default(x, np.array([0, 1]))
    with pytest.raises(TypeError, match="must be tuple of ints"):
        A.sum.dim_IntList(x, [np.array([0, 1])])
    assert A.argmax.default(x, np.int64(1)).tolist() == [0, 0]


def test_out_of_range_ints_raise_as_pytorch():
    x = openreg.ones(2, 3)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        A.select.int(x, 0, 2 ** 64)
    with pytest.raises(TypeError, match="argument 'dim' failed to unpack the object at pos 1 with error "
                                        "\"Overflow when unpacking long long"):
        A.sum.dim_IntList(x, [2 ** 63])
    # A Scalar holds int64 or uint64: Python's OverflowError outside, with PyTorch's messages.
    with pytest.raises(OverflowError, match="int too big to convert"):
        A.add.Scalar(x, 2 ** 64)
    with pytest.raises(OverflowError, match="can't convert negative int to unsigned"):
        A.mul.Scalar(x, -2 ** 63 - 1)
    assert A.add.Scalar(x, -2 ** 63).dtype == openreg.float32


def test_messages_match_pytorch_where_it_has_them():
    torch = pytest.importorskip("torch", reason="comparing wording needs PyTorch")
    cases = [(lambda m: m.cat([m.ones(2), 1]), "cat"), (lambda m: m.add(m.ones(2), 2 ** 64), "add"),
             (lambda m: m.select(m.ones(2), 0, 2 ** 64), "select")]
    for fn, what in cases:
        errors = []
        for mod in (torch, openreg):
            with pytest.raises(Exception) as info:
                fn(mod)
            errors.append(info.value)
        assert type(errors[0]) is type(errors[1]), what
        assert str(errors[0]).split("\n")[0].replace("torch.", "") in str(errors[1]).replace("openreg.", ""), what


INTERNAL_NAMES = ["_ks", "_fn", "_wk", "_key", "_state", "_cache", "_resolve", "_entry", "_t", "_opks",
                  "_op_fn", "_d1", "_c1", "_a1", "type", "isinstance", "int", "list", "AttributeError"]


@pytest.mark.parametrize("arg", INTERNAL_NAMES)
def test_argument_names_cannot_collide_with_the_generated_code(arg):
    ns = f"argnames_{next(_counter)}"
    lib = Library(ns, "DEF")
    try:
        lib.define(f"g(Tensor x, int {arg}) -> int")
        lib.define(f"h(Tensor x, Scalar {arg}=3) -> Scalar")
        lib.define(f"k(Tensor x, *, Tensor? {arg}=None) -> Tensor")
        lib.impl("g", lambda x, n: n, "CPU")
        lib.impl("h", lambda x, n=3: n, "CPU")
        lib.impl("k", lambda x, **kw: x if kw[arg] is None else kw[arg], "CPU")
        ops = getattr(openreg.ops, ns)
        x = openreg.zeros(2)
        assert ops.g.default(x, 5) == 5
        assert ops.g.default(x, **{arg: 7}) == 7
        assert ops.h.default(x) == 3
        assert ops.h.default(x, 2.5) == 2.5
        y = openreg.ones(3)
        assert ops.k.default(x, **{arg: y}) is y
        assert ops.k.default(x) is x
        with pytest.raises(TypeError, match=f"argument '{arg}' must be Tensor, not int"):
            ops.k.default(x, **{arg: 1})
        with pytest.raises(TypeError, match=f"argument '{arg}' \\(position 2\\) must be int, not str"):
            ops.g.default(x, "5")
    finally:
        lib._destroy()
