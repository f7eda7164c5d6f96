"""The keyword forms PyTorch's binding gives varargs-size methods (MAE's ``imgs.reshape(shape=(...))``,
``view(size=)``, ``permute(dims=)``, ``expand(size=)``, ``repeat(repeats=)``, ``tile(dims=)``, ``new_zeros(size=)``
...), and their errors, compared with PyTorch."""
from __future__ import annotations

import pytest

import openreg

torch = pytest.importorskip("torch")

CALLS = ["x.reshape(shape=(3, 2))", "x.reshape(shape=[6])", "L.reshape(x, shape=(3, 2))", "x.view(size=(3, 2))",
         "x.view(size=[-1])", "x.expand(size=(2, 2, 3))", "x.expand(2, 2, 3, implicit=True)", "x.permute(dims=(1, 0))",
         "L.permute(x, dims=(1, 0))", "x.repeat(repeats=(1, 2))", "x.tile(dims=(2,))", "x.new_zeros(size=(2,))",
         "x.new_ones(size=[2, 1])", "x.new_empty(size=(2,))"]
ERRORS = ["x.reshape((3, 2), shape=(3, 2))", "x.reshape(size=(3, 2))", "x.permute(dims=[1, 0], foo=1)",
          "x.reshape(shape=6)"]


@pytest.mark.parametrize("call", CALLS)
def test_size_keyword_matches_torch(call):
    shapes = []
    for L in (openreg, torch):
        x = L.arange(6.0).reshape(2, 3)
        r = eval(call)
        shapes.append(tuple(r.shape))
        if "new_empty" not in call:
            shapes.append(r.flatten().tolist())
    assert shapes[:len(shapes) // 2] == shapes[len(shapes) // 2:]


@pytest.mark.parametrize("call", ERRORS)
def test_size_keyword_errors_are_type_errors_as_in_torch(call):
    for L in (openreg, torch):
        x = L.ones(2, 3)
        with pytest.raises(TypeError):
            eval(call)
