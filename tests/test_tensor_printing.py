"""Printing tensors as PyTorch does: the same choice of fixed, integral or scientific notation, the same widths,
line breaks, summaries and suffixes (compared with PyTorch's own printout when it is installed)."""
import math

import pytest

import openreg

inf, nan = math.inf, math.nan

CASES = [
    ("tensor", [1234.5, 0.12]), ("tensor", [1.0, 10000.0]), ("tensor", [1.0, 2.0, 3.0]), ("tensor", [1e-5, 1.0]),
    ("tensor", [1e9, 1.0]), ("tensor", [0.0, -0.0]), ("tensor", [inf, nan, 1.0]), ("tensor", [nan, inf]),
    ("tensor", [1.0, 1000.0]), ("tensor", [1.0, 1001.0]), ("tensor", [-2.5, 3e-3]), ("tensor", [[1.0, 100.0], [3.5, -4.0]]),
    ("tensor", [[1, 100], [3, -4]]), ("tensor", [True, False]), ("tensor", [[1 + 2j, -3.5j], [1e5 + 0.1j, 0j]]),
    ("tensor", 3.5), ("tensor", -1e-5), ("tensor", 1 - 2j),
]


def _build(lib, kind, value, dtype=None):
    t = lib.tensor(value)
    return t if dtype is None else t.to(getattr(lib, dtype))


def _shown(lib):
    out = [repr(_build(lib, *case)) for case in CASES]
    out += [repr(_build(lib, "tensor", [1234.5, 0.12], d)) for d in ("float16", "bfloat16", "float64")]
    out += [repr(lib.arange(2000.0).view(40, 50) / 7), repr(lib.arange(3000.0).view(10, 10, 30)),
            repr(lib.arange(3000)), repr(lib.arange(30.0).view(3, 10).half().requires_grad_()),
            repr(lib.arange(24.0).view(2, 3, 4).double() / 3), repr(lib.zeros(0, 3)), repr(lib.tensor([], dtype=lib.float64)),
            repr(lib.ones(3, 2000, dtype=lib.bool)), repr(lib.arange(40.0).view(4, 10) * (1 + 1j)),
            repr(lib.ones(3, requires_grad=True) * 2), repr(lib.ones(2, 2).to_sparse())]
    try:
        lib.set_printoptions(precision=2, linewidth=40)
        out.append(repr(lib.arange(30.0).view(3, 10) / 3))
        lib.set_printoptions(profile="default", sci_mode=False)
        out.append(repr(lib.tensor([1e-6, 1e6])))
        lib.set_printoptions(profile="default", threshold=5, edgeitems=1)
        out.append(repr(lib.arange(24).view(2, 3, 4)))
    finally:
        lib.set_printoptions(profile="default", sci_mode=None)
    return [text.replace(lib.__name__ + ".", "LIB.") for text in out]


def test_notation_and_widths():
    assert repr(openreg.tensor([1234.5, 0.12])) == "tensor([1.2345e+03, 1.2000e-01])"
    assert repr(openreg.tensor([1.0, 10000.0])) == "tensor([1.0000e+00, 1.0000e+04])"
    assert repr(openreg.tensor([[1.0, 100.0], [3.5, -4.0]])) == ("tensor([[  1.0000, 100.0000],\n"
                                                                 "        [  3.5000,  -4.0000]])")
    assert repr(openreg.tensor([True, False])) == "tensor([ True, False])"
    assert repr(openreg.tensor([0.0, 0.0])) == "tensor([0., 0.])"


def test_float16_values_print_without_overflow_warnings():
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("error")
        assert repr(openreg.tensor([1234.5, 0.12], dtype=openreg.float16)) == \
            "tensor([1.2340e+03, 1.2000e-01], dtype=openreg.float16)"


def test_printing_follows_torch():
    torch = pytest.importorskip("torch")
    assert _shown(openreg) == _shown(torch)
