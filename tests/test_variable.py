"""openreg.autograd.Variable: PyTorch's legacy wrapper (a function returning a leaf tensor sharing memory).

Programs written for PyTorch 0.3 and their many copies (yunjey/pytorch-tutorial's older versions, the original
char-RNN tutorials) call ``Variable(x)`` and ``Variable(x, requires_grad=True)``.
"""
from __future__ import annotations

import pytest

import openreg
from openreg.autograd import Variable


def test_variable_is_a_new_leaf_sharing_memory():
    x = openreg.ones(2, requires_grad=True)
    y = x * 2
    v = Variable(y)
    assert not v.requires_grad and v.is_leaf and v.grad_fn is None and v.data_ptr() == y.data_ptr()
    w = Variable(y, requires_grad=True)
    assert w.requires_grad and w.is_leaf
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0] and x.grad is None
    assert type(v) is openreg.Tensor


def test_isinstance_and_empty_and_volatile():
    assert isinstance(openreg.zeros(1), Variable) and not isinstance([1], Variable)
    assert Variable().shape == (0,)
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert not Variable(openreg.ones(1), volatile=True).requires_grad


def test_errors():
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1, 2])
    with pytest.raises(RuntimeError, match="floating point"):
        Variable(openreg.ones(2, dtype=openreg.int64), requires_grad=True)
