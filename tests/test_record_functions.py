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


# Generated (function=True) or the method's function form: PyTorch has torch.<name> for each.
GENERATED = ("batch_norm", "constant_pad_nd", "convolution", "embedding", "fill", "group_norm", "layer_norm",
             "max_pool2d", "native_batch_norm", "native_group_norm", "native_layer_norm", "resize_as_",
             "split_with_sizes", "zero_")


def test_public_functions_come_from_the_records():
    published = _loader.functions()
    for name in RECORD_FUNCTIONS:   # written in the family files
        assert published[name] is getattr(openreg, name), name
        assert getattr(openreg, name).__module__.startswith("openreg.operators."), name
    for name in GENERATED:          # generated anew by each functions() call
        assert name in published and getattr(openreg, name).__name__ == name, name


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


def test_no_record_hides_a_function_pytorch_has():
    torch = pytest.importorskip("torch", reason="compares with PyTorch's public functions")
    hidden = sorted(name for name, record in _loader._catalog().items()
                    if record.function is False and not name.startswith("_") and hasattr(torch, name))
    assert hidden == []


def test_generated_functions_equal_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    import numpy as np
    rng = np.random.default_rng(0)
    x = rng.random((2, 3, 4, 4), dtype=np.float32)
    w, b = rng.random(3, dtype=np.float32), rng.random(3, dtype=np.float32)
    cases = [
        ("batch_norm", (x, w, b, np.zeros(3, "float32"), np.ones(3, "float32"), True, 0.1, 1e-5, False)),
        ("constant_pad_nd", (x, [1, 2], 3.0)),
        ("convolution", (x, rng.random((2, 3, 2, 2), dtype=np.float32), None, [1, 1], [0, 0], [1, 1], False,
                         [0, 0], 1)),
        ("embedding", (rng.random((5, 3), dtype=np.float32), np.array([0, 4, 2]))),
        ("fill", (x, 2.5)),
        ("group_norm", (x, 3, w, b)),
        ("layer_norm", (x, [4, 4])),
        ("max_pool2d", (x, [2, 2])),
        ("native_layer_norm", (x, [4], None, None, 1e-5)),
        ("native_group_norm", (x, w, b, 2, 3, 16, 3, 1e-5)),
        ("native_batch_norm", (x, w, b, None, None, True, 0.1, 1e-5)),
        ("split_with_sizes", (x, [1, 2], 1)),
    ]
    for name, args in cases:
        ours = getattr(openreg, name)(*[openreg.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        theirs = getattr(torch, name)(*[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        if not isinstance(theirs, (tuple, list)):
            ours, theirs = (ours,), (theirs,)
        assert type(ours) is type(theirs) or name != "split_with_sizes", name
        for o, t in zip(ours, theirs):
            assert tuple(o.shape) == tuple(t.shape), name
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    t = openreg.ones(3)
    assert openreg.zero_(t) is t and t.tolist() == [0.0, 0.0, 0.0]
    assert openreg.resize_as_(openreg.ones(2), openreg.zeros(3)).shape == (3,)
