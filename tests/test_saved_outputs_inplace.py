"""Ops with a values and an indices output save only the indices for backward (PyTorch's result1), and their
outputs are no views: an in-place op on the values afterwards (``nn.ReLU(inplace=True)`` after ``nn.MaxPool2d``,
as in the spatial transformer tutorial's localization net) leaves the gradient intact."""
import numpy as np
import pytest

import openreg


def _inplace_grad(fn, x_np):
    x = openreg.tensor(x_np, requires_grad=True)
    v = fn(x)[0]
    v.relu_()                      # modifies output 0 after the op saved what it needs
    (v * 2.0).sum().backward()
    return x.grad.numpy()


def _onehot_grad(x_np, axis, pick):
    """2 * (picked value > 0) at the picked position along axis."""
    g = np.zeros_like(x_np)
    idx = np.expand_dims(pick(x_np, axis), axis)
    vals = np.take_along_axis(x_np, idx, axis)
    np.put_along_axis(g, idx, 2.0 * (vals > 0), axis)
    return g


X = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)


@pytest.mark.parametrize("name,fn,pick", [
    ("max", lambda x: x.max(1), np.argmax),
    ("min", lambda x: x.min(1), np.argmin),
    ("kthvalue", lambda x: x.kthvalue(1, 1), np.argmin),
    ("median", lambda x: x.median(1), lambda a, ax: np.argsort(a, ax, kind="stable")[:, (a.shape[1] - 1) // 2]),
])
def test_values_output_modified_in_place(name, fn, pick):
    np.testing.assert_allclose(_inplace_grad(fn, X), _onehot_grad(X, 1, pick))


def test_sort_and_topk_values_modified_in_place():
    g = _inplace_grad(lambda x: x.sort(1), X)
    np.testing.assert_allclose(g, 2.0 * (X > 0))
    g = _inplace_grad(lambda x: x.topk(1, 1), X)
    np.testing.assert_allclose(g, _onehot_grad(X, 1, np.argmax))


def test_kthvalue_values_are_no_view():
    v, i = openreg.tensor(X).kthvalue(2, 1)
    assert v._base is None and i._base is None


def test_max_pool_then_inplace_relu():
    x_np = np.random.default_rng(1).standard_normal((2, 3, 4, 4)).astype(np.float32)
    x = openreg.tensor(x_np, requires_grad=True)
    y = openreg.nn.functional.max_pool2d(x, 2)
    openreg.nn.ReLU(inplace=True)(y).sum().backward()
    win = x_np.reshape(2, 3, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 2, 2, 4)
    arg = win.argmax(-1)
    g = np.zeros_like(win)
    np.put_along_axis(g, arg[..., None], (np.take_along_axis(win, arg[..., None], -1) > 0).astype(np.float32), -1)
    g = g.reshape(2, 3, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 4, 4)
    np.testing.assert_allclose(x.grad.numpy(), g)
