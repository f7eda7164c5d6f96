"""``openreg.nn.grad``: the gradients of a convolution with respect to its input (``conv{1,2,3}d_input``) and
its weight (``conv{1,2,3}d_weight``) for a given ``grad_output``, through the ``convolution_backward`` operator.

>>> import openreg
>>> from openreg.nn import grad
>>> w = openreg.ones(1, 1, 3)
>>> grad.conv1d_input((1, 1, 5), w, openreg.ones(1, 1, 3)).tolist()
[[[1.0, 2.0, 3.0, 2.0, 1.0]]]
"""
from __future__ import annotations

from .._dispatch.ops import A

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _tuple(value, n: int) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value] * n


def _grad(which: int, nd: int, input, weight, grad_output, stride, padding, dilation, groups):
    mask = [which == 0, which == 1, False]
    return A.convolution_backward(grad_output, input, weight, None, _tuple(stride, nd), _tuple(padding, nd),
                                  _tuple(dilation, nd), False, [0] * nd, groups, mask)[which]


def _input_grad(nd: int):
    def fn(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        input = grad_output.new_empty(1).expand(tuple(input_size))
        return _grad(0, nd, input, weight, grad_output, stride, padding, dilation, groups)
    fn.__name__ = fn.__qualname__ = f"conv{nd}d_input"
    fn.__doc__ = (f"The gradient of ``conv{nd}d`` with respect to an input of ``input_size``, given ``weight`` and "
                  f"``grad_output``.")
    return fn


def _weight_grad(nd: int):
    def fn(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        weight = grad_output.new_empty(1).expand(tuple(weight_size))
        return _grad(1, nd, input, weight, grad_output, stride, padding, dilation, groups)
    fn.__name__ = fn.__qualname__ = f"conv{nd}d_weight"
    fn.__doc__ = (f"The gradient of ``conv{nd}d`` with respect to a weight of ``weight_size``, given ``input`` and "
                  f"``grad_output``.")
    return fn


conv1d_input, conv2d_input, conv3d_input = (_input_grad(n) for n in (1, 2, 3))
conv1d_weight, conv2d_weight, conv3d_weight = (_weight_grad(n) for n in (1, 2, 3))
