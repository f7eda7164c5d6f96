"""Folding an eval-mode BatchNorm into the convolution or linear layer before it, as ``torch.nn.utils.fusion``:
``fuse_conv_bn_eval``/``fuse_linear_bn_eval`` return a new module whose output equals ``bn(conv(x))``;
``fuse_conv_bn_weights``/``fuse_linear_bn_weights`` compute the folded parameters.

>>> import openreg
>>> conv, bn = openreg.nn.Conv2d(2, 3, 1).eval(), openreg.nn.BatchNorm2d(3).eval()
>>> bn.running_mean.fill_(0.5)
tensor([0.5000, 0.5000, 0.5000])
>>> x = openreg.randn(1, 2, 2, 2)
>>> fused = openreg.nn.utils.fuse_conv_bn_eval(conv, bn)
>>> bool((fused(x) - bn(conv(x))).abs().max() < 1e-5)
True
"""
from __future__ import annotations

import copy

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of ``conv`` with ``bn`` (both in eval mode) folded into its weight and bias."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose: bool = False):
    """The convolution ``(weight, bias)`` Parameters that apply ``bn`` after ``conv`` (the channel dimension of
    the weight is 1 for transposed convolutions)."""
    import openreg

    from ..parameter import Parameter
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    if conv_b is None:
        conv_b = openreg.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = openreg.ones_like(bn_rm)
    if bn_b is None:
        bn_b = openreg.zeros_like(bn_rm)
    rsqrt = openreg.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
    w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
    b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(w, conv_w.requires_grad), Parameter(b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` with ``bn`` (both in eval mode; ``bn.num_features`` equal to ``out_features`` or 1)
    folded into its weight and bias."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(f"To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The linear ``(weight, bias)`` Parameters that apply ``bn`` after the linear layer."""
    import openreg

    from ..parameter import Parameter
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    if linear_b is None:
        linear_b = openreg.zeros_like(bn_rm)
    scale = bn_w * openreg.rsqrt(bn_rv + bn_eps)
    w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(w, linear_w.requires_grad), Parameter(b, linear_b.requires_grad)
