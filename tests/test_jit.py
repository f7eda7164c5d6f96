"""openreg.jit runs TorchScript-decorated code eagerly, as PyTorch's eager mode computes it."""
# ruff: noqa: UP006, UP045  (TorchScript programs spell their types with typing's aliases)
from __future__ import annotations

import typing

import pytest

import openreg


def test_script_and_trace_give_back_what_they_are_handed():
    def f(x):
        return x * 2
    m = openreg.nn.Linear(2, 3)
    assert openreg.jit.script(f) is f and openreg.jit.script(m) is m
    assert openreg.jit.trace(m, openreg.ones(1, 2)) is m and openreg.jit.trace_module(m, {"forward": ()}) is m

    @openreg.jit.script
    def g(x):
        return x + 1
    assert g(openreg.ones(2)).tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="expected a function or an nn.Module"):
        openreg.jit.script(3)


def test_markers_and_queries():
    class M(openreg.nn.Module):
        @openreg.jit.ignore
        def helper(self):
            return 1

        @openreg.jit.unused
        def other(self):
            return 2

        @openreg.jit.export
        def exported(self):
            return 3

        @openreg.jit.ignore(drop=True)
        def dropped(self):
            return 4
    m = M()
    assert (m.helper(), m.other(), m.exported(), m.dropped()) == (1, 2, 3, 4)
    assert openreg.jit.is_scripting() is False and openreg.jit.is_tracing() is False
    assert openreg.jit.annotate(typing.List[int], []) == []
    fut = openreg.jit.fork(lambda a, b: a + b, 2, b=3)
    assert openreg.jit.wait(fut) == 5 and fut.wait() == 5


def test_jit_isinstance_checks_containers():
    t = openreg.ones(1)
    assert openreg.jit.isinstance([t, t], typing.List[openreg.Tensor])
    assert not openreg.jit.isinstance([t, 1], typing.List[openreg.Tensor])
    assert openreg.jit.isinstance({"a": 1}, typing.Dict[str, int])
    assert openreg.jit.isinstance((1, "x"), typing.Tuple[int, str])
    assert openreg.jit.isinstance(None, typing.Optional[int])
    assert not openreg.jit.isinstance("x", int)
    assert openreg.jit.isinstance(None, int | None) and openreg.jit.isinstance([1], list[int])


def test_archives_raise_naming_the_feature(tmp_path):
    with pytest.raises(NotImplementedError, match="TorchScript"):
        openreg.jit.save(openreg.nn.Linear(1, 1), tmp_path / "m.pt")
    with pytest.raises(NotImplementedError, match="TorchScript"):
        openreg.jit.load(tmp_path / "m.pt")


def test_same_queries_as_torch():
    torch = pytest.importorskip("torch")
    assert torch.jit.is_scripting() == openreg.jit.is_scripting()


def _recurrent_cell(lib):
    """The older TorchScript API: a ScriptModule subclass with @script_method methods and in-place state updates
    (BlinkDL's RWKV_in_150_lines is written this way)."""
    class Cell(lib.jit.ScriptModule):
        def __init__(self, w):
            super().__init__()
            self.eval()
            self.w = w

        @lib.jit.script_method
        def mix(self, x, state, i: int):
            out = lib.sigmoid(self.w @ (x + state[i]))
            state[i] = x
            return out

        def forward(self, x, state):
            with lib.no_grad():
                for i in range(state.shape[0]):
                    x = self.mix(x, state, i)
                return x, state
    return Cell


def test_script_module_subclasses_are_modules_run_eagerly_as_pytorchs():
    torch = pytest.importorskip("torch")
    import numpy as np
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal((4, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    outs = []
    for lib in (torch, openreg):
        cell = _recurrent_cell(lib)(lib.tensor(w))
        assert isinstance(cell, lib.nn.Module) and not cell.training
        y, state = cell(lib.tensor(x), lib.zeros(3, 4))
        outs.append((y.numpy(), state.numpy()))
    for o, t in zip(outs[1], outs[0]):
        np.testing.assert_allclose(o, t, rtol=1e-6)
    assert not isinstance(openreg.nn.Linear(1, 1), openreg.jit.ScriptModule)
    assert not isinstance(torch.nn.Linear(1, 1), torch.jit.ScriptModule)
