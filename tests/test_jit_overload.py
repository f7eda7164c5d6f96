"""``torch.jit._overload_method``/``_overload`` declarations (torchvision's DenseNet): the declarations are
recorded, the real definition runs, and a declaration with a body is refused as PyTorch refuses it."""
from __future__ import annotations

import pytest

import openreg


def _declare(lib):
    class Layer(lib.nn.Module):
        @lib.jit._overload_method  # noqa: F811
        def forward(self, x: list) -> int:
            pass

        @lib.jit._overload_method  # noqa: F811
        def forward(self, x: int) -> int:  # noqa: F811
            ...

        def forward(self, x):  # noqa: F811
            return len(x) if isinstance(x, list) else x

    @lib.jit._overload
    def f(x: int) -> int:
        pass

    def f(x):  # noqa: F811
        return x + 1

    return Layer(), f


@pytest.mark.parametrize("lib_name", ["openreg", "torch"])
def test_overload_declarations_then_the_definition_runs(lib_name):
    lib = openreg if lib_name == "openreg" else pytest.importorskip("torch")
    layer, f = _declare(lib)
    assert layer([1, 2, 3]) == 3 and layer(4) == 4 and f(1) == 2


@pytest.mark.parametrize("lib_name", ["openreg", "torch"])
def test_overload_with_a_body_is_refused(lib_name):
    lib = openreg if lib_name == "openreg" else pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="Only `pass` statement or `...` can be the body of overload declaration"):
        @lib.jit._overload
        def g(x: int) -> int:
            return x
