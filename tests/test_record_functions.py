"""``openreg.<fn>`` of the factory, view, shape and copy operators are their records' ``function=`` callables
(written in the family files), not a separate hand-written module; their documented examples run."""
from __future__ import annotations

import doctest

import pytest

import openreg
from openreg.operators import _loader

RECORD_FUNCTIONS = (
    "empty", "empty_strided", "zeros", "ones", "full", "arange", "linspace", "eye", "empty_like", "zeros_like",
    "ones_like", "full_like", "triu_indices", "tril_indices", "scalar_tensor",
    "reshape", "transpose", "swapaxes", "swapdims", "permute", "squeeze", "unsqueeze", "flatten", "unflatten",
    "narrow", "select", "diagonal", "movedim", "moveaxis", "t", "clone", "detach", "as_strided",
    "cat", "concat", "concatenate", "stack", "unbind", "split", "chunk",
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d",
)


def test_public_functions_come_from_the_records():
    published = _loader.functions()
    for name in RECORD_FUNCTIONS:
        assert published[name] is getattr(openreg, name), name
        assert getattr(openreg, name).__module__.startswith("openreg.operators."), name


def test_the_old_hand_written_modules_are_gone():
    import importlib.util
    assert importlib.util.find_spec("openreg.functions_tensor") is None
    assert importlib.util.find_spec("openreg.factories") is None


def test_every_record_function_example_runs():
    """--doctest-modules finds functions by the module they are assigned in; these examples are checked here."""
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    ran = 0
    for name in RECORD_FUNCTIONS:
        for test in finder.find(getattr(openreg, name), f"openreg.{name}", globs={}):
            ran += len(test.examples)
            runner.run(test)
    assert runner.failures == 0
    assert ran >= 2 * len(RECORD_FUNCTIONS)


def test_function_forms_accept_the_method_forms():
    x = openreg.arange(6)
    assert openreg.reshape(x, (2, 3)).shape == (2, 3)
    assert openreg.permute(openreg.zeros(2, 3, 4), (2, 0, 1)).shape == (4, 2, 3)
    assert openreg.squeeze(openreg.zeros(1, 3, 1), (0, 2)).shape == (3,)
    assert openreg.concat([x, x]).shape == (12,)
    with pytest.raises(TypeError, match="must be Tensor"):
        openreg.reshape([1, 2], (2,))


def test_nn_functional_convolutions_are_the_record_functions():
    import openreg.nn.functional as F
    assert F.conv1d is openreg.conv1d and F.conv2d is openreg.conv2d
    assert F.conv_transpose1d is openreg.conv_transpose1d and F.conv_transpose2d is openreg.conv_transpose2d
    x = openreg.ones(1, 1, 5)
    assert openreg.conv1d(x, openreg.ones(1, 1, 3), padding="same").shape == (1, 1, 5)
    assert openreg.conv1d(x, openreg.ones(1, 1, 3), padding=(1,), stride=2).shape == (1, 1, 3)
