"""Every formula of the derivatives table is checked with gradcheck (reverse and forward mode) on CPU and
the device, through the op overload itself."""
from __future__ import annotations

import numpy as np
import pytest
from derivative_samples_indexing import INDEXING_SAMPLES
from record_samples import SAMPLES as SAMPLES_BY_RECORD

import openreg
from openreg._dispatch import dispatcher
from openreg._dispatch.ops import lookup
from openreg.aten.derivatives import DERIVATIVES
from openreg.autograd import gradcheck, gradgradcheck

A = openreg.ops.aten
RNG = np.random.default_rng(0)


def r(dev, *shape, lo=-1.0, hi=1.0, grad=True):
    arr = RNG.uniform(lo, hi, size=shape).tolist()
    return openreg.tensor(arr, dtype=openreg.float64, device=dev, requires_grad=grad)


def pos(dev, *shape):
    return r(dev, *shape, lo=0.5, hi=2.0)


def _igamma_sample(d, name):
    """``name(a, x)`` with a fixed ``a`` (PyTorch has no derivative for it) and ``x`` differentiated."""
    a = r(d, 2, 3, lo=0.5, hi=2.0, grad=False)
    overload = getattr(A, name).default
    return (lambda x: overload(a * 1, x)), [pos(d, 1, 3)]


def _zeta_sample(d):
    """``zeta(s, q)`` with a fixed ``s > 1`` (PyTorch has no derivative for it) and ``q`` differentiated."""
    s = r(d, 2, 3, lo=1.5, hi=3.0, grad=False)
    return (lambda q: A.special_zeta.default(s * 1, q)), [pos(d, 1, 3)]


def _unary(name, gen=r):
    return lambda d: (lambda x: getattr(A, name).default(x), [gen(d, 2, 3)])


def _unary_inplace(name, gen=r):
    return lambda d: (lambda x: getattr(A, name).default(x * 1), [gen(d, 2, 3)])


def _compare_inplace(cmp: str, overload: str):
    """In-place comparison on a float tensor (zero gradient for self), times y so y gets a gradient."""
    op = getattr(getattr(A, cmp + "_"), overload)

    def sample(d):
        def fn(x, y):
            return op(x * 1, 0.1 if overload == "Scalar" else y) * y
        return fn, [r(d, 2, 3), r(d, 2, 3)]
    return sample


def _well_conditioned(dev, *shape):
    n = shape[-1]
    arr = RNG.uniform(-1, 1, size=shape) + 3 * np.eye(n)
    return openreg.tensor(arr.tolist(), dtype=openreg.float64, device=dev, requires_grad=True)


def _spd(x):
    """A symmetric positive-definite matrix made of ``x`` (so the factorization's gradient is checked through
    a symmetric input, as PyTorch's tests do)."""
    return x @ x.mT + 3 * openreg.eye(x.shape[-1], dtype=x.dtype, device=x.device)


def _nll_forward_sample(d):
    """Mean reduction with class weights and an ignored class (2)."""
    w = pos(d, 4).detach()
    tgt = openreg.tensor([0, 2, 1], device=d)
    return (lambda x: A.nll_loss_forward.default(x, tgt, w, 1, 2)[0]), [r(d, 3, 4)]


def _nll_backward_sample(d):
    """No reduction; the gradient flows to grad_output (self is only read for its shape)."""
    x = r(d, 3, 4, grad=False)
    tgt = openreg.tensor([0, 2, 3], device=d)
    total = openreg.tensor(0.0, dtype=openreg.float64, device=d)
    return (lambda go: A.nll_loss_backward.default(go, x, tgt, None, 0, 2, total)), [r(d, 3)]


def _bce_logits_sample(d):
    """Mean reduction with a weight and a positive-class weight; the logits and the targets differentiated."""
    w, pw = pos(d, 4).detach(), pos(d, 1, 4).detach()
    return (lambda x, t: A.binary_cross_entropy_with_logits.default(x, t, w, pw, 1)), [r(d, 3, 4, lo=-3, hi=3),
                                                                                        r(d, 3, 4, lo=0.0)]


def _bce_sample(d):
    """Probabilities away from 0 and 1, a weight, sum reduction; the probabilities and the targets differentiated."""
    w = pos(d, 3, 4).detach()
    return (lambda x, t: A.binary_cross_entropy.default(x, t, w, 2)), [r(d, 3, 4, lo=0.1, hi=0.9),
                                                                       r(d, 3, 4, lo=0.0)]


def _pair_loss(name, *extra):
    """A loss of (self, target) without reduction, both differentiated (values spread across the kink)."""
    def sample(d):
        return (lambda x, t: getattr(A, name).default(x, t, 0, *extra)), [r(d, 3, 4, lo=-2, hi=2),
                                                                           r(d, 3, 4, lo=-0.5, hi=0.5)]
    return sample


SAMPLES = {
    "aten::binary_cross_entropy_with_logits": _bce_logits_sample,
    "aten::binary_cross_entropy": _bce_sample,
    "aten::mse_loss": _pair_loss("mse_loss"),
    "aten::smooth_l1_loss": _pair_loss("smooth_l1_loss", 0.7),
    "aten::huber_loss": _pair_loss("huber_loss", 0.6),
    "aten::abs": _unary("abs"), "aten::abs_": _unary_inplace("abs_"),
    "aten::neg": _unary("neg"), "aten::neg_": _unary_inplace("neg_"),
    "aten::exp": _unary("exp"), "aten::exp_": _unary_inplace("exp_"),
    "aten::log": _unary("log", pos), "aten::log_": _unary_inplace("log_", pos),
    "aten::sqrt": _unary("sqrt", pos), "aten::sqrt_": _unary_inplace("sqrt_", pos),
    "aten::rsqrt": _unary("rsqrt", pos), "aten::rsqrt_": _unary_inplace("rsqrt_", pos),
    "aten::sin": _unary("sin"), "aten::sin_": _unary_inplace("sin_"),
    "aten::cos": _unary("cos"), "aten::cos_": _unary_inplace("cos_"),
    "aten::tanh": _unary("tanh"), "aten::tanh_": _unary_inplace("tanh_"),
    "aten::sigmoid": _unary("sigmoid"), "aten::sigmoid_": _unary_inplace("sigmoid_"),
    "aten::relu": _unary("relu"), "aten::relu_": _unary_inplace("relu_"),
    "aten::reciprocal": _unary("reciprocal", pos), "aten::reciprocal_": _unary_inplace("reciprocal_", pos),
    "aten::clamp": lambda d: (lambda x: A.clamp.default(x, -0.5, 0.5), [r(d, 2, 3)]),
    "aten::clamp_": lambda d: (lambda x: A.clamp_.default(x * 1, -0.5, 0.5), [r(d, 2, 3)]),
    "aten::lerp.Tensor": lambda d: (lambda x, e, w: A.lerp.Tensor(x, e, w), [r(d, 2, 3), r(d, 1, 3), r(d, 2, 1)]),
    "aten::lerp_.Tensor": lambda d: (lambda x, e, w: A.lerp_.Tensor(x * 1, e, w),
                                     [r(d, 2, 3), r(d, 1, 3), r(d, 2, 1)]),
    "aten::clamp.Tensor": lambda d: (lambda x, lo, hi: A.clamp.Tensor(x, lo, hi),
                                     [r(d, 2, 3), r(d, 3, lo=-0.9, hi=-0.3), r(d, 3, lo=0.3, hi=0.9)]),
    "aten::clamp_.Tensor": lambda d: (lambda x, lo, hi: A.clamp_.Tensor(x * 1, lo, hi),
                                      [r(d, 2, 3), r(d, 3, lo=-0.9, hi=-0.3), r(d, 3, lo=0.3, hi=0.9)]),
    "aten::pow.Tensor_Scalar": lambda d: (lambda x: A.pow.Tensor_Scalar(x, 3), [r(d, 2, 3)]),
    "aten::pow_.Scalar": lambda d: (lambda x: A.pow_.Scalar(x * 1, 2.5), [pos(d, 2, 3)]),
    "aten::pow.Tensor_Tensor": lambda d: (lambda x, y: A.pow.Tensor_Tensor(x, y), [pos(d, 2, 3), r(d, 3)]),
    "aten::pow_.Tensor": lambda d: (lambda x, y: A.pow_.Tensor(x * 1, y), [pos(d, 2, 3), r(d, 3)]),
    "aten::pow.Scalar": lambda d: (lambda y: A.pow.Scalar(2.0, y), [r(d, 3)]),
    "aten::add.Tensor": lambda d: (lambda x, y: A.add.Tensor(x, y, alpha=2), [r(d, 2, 3), r(d, 3)]),
    "aten::add_.Tensor": lambda d: (lambda x, y: A.add_.Tensor(x * 1, y, alpha=2), [r(d, 2, 3), r(d, 3)]),
    "aten::add.Scalar": lambda d: (lambda x: A.add.Scalar(x, 2.0), [r(d, 3)]),
    "aten::add_.Scalar": lambda d: (lambda x: A.add_.Scalar(x * 1, 2.0), [r(d, 3)]),
    "aten::sub.Tensor": lambda d: (lambda x, y: A.sub.Tensor(x, y, alpha=3), [r(d, 2, 3), r(d, 2, 1)]),
    "aten::sub_.Tensor": lambda d: (lambda x, y: A.sub_.Tensor(x * 1, y), [r(d, 2, 3), r(d, 3)]),
    "aten::sub.Scalar": lambda d: (lambda x: A.sub.Scalar(x, 2.0), [r(d, 3)]),
    "aten::sub_.Scalar": lambda d: (lambda x: A.sub_.Scalar(x * 1, 2.0), [r(d, 3)]),
    "aten::rsub.Tensor": lambda d: (lambda x, y: A.rsub.Tensor(x, y, alpha=2), [r(d, 2, 3), r(d, 3)]),
    "aten::rsub.Scalar": lambda d: (lambda x: A.rsub.Scalar(x, 2.0), [r(d, 3)]),
    "aten::mul.Tensor": lambda d: (lambda x, y: A.mul.Tensor(x, y), [r(d, 2, 3), r(d, 3)]),
    "aten::mul_.Tensor": lambda d: (lambda x, y: A.mul_.Tensor(x * 1, y), [r(d, 2, 3), r(d, 3)]),
    "aten::mul.Scalar": lambda d: (lambda x: A.mul.Scalar(x, 3.0), [r(d, 3)]),
    "aten::mul_.Scalar": lambda d: (lambda x: A.mul_.Scalar(x * 1, 3.0), [r(d, 3)]),
    "aten::div.Tensor": lambda d: (lambda x, y: A.div.Tensor(x, y), [r(d, 2, 3), pos(d, 3)]),
    "aten::div_.Tensor": lambda d: (lambda x, y: A.div_.Tensor(x * 1, y), [r(d, 2, 3), pos(d, 3)]),
    "aten::div.Scalar": lambda d: (lambda x: A.div.Scalar(x, 3.0), [r(d, 3)]),
    "aten::div_.Scalar": lambda d: (lambda x: A.div_.Scalar(x * 1, 3.0), [r(d, 3)]),
    "aten::div.Tensor_mode": lambda d: (lambda x, y: A.div.Tensor_mode(x, y, rounding_mode=None),
                                        [r(d, 3), pos(d, 3)]),
    "aten::div_.Tensor_mode": lambda d: (lambda x, y: A.div_.Tensor_mode(x * 1, y, rounding_mode=None),
                                         [r(d, 3), pos(d, 3)]),
    "aten::maximum": lambda d: (lambda x, y: A.maximum.default(x, y), [r(d, 2, 3), r(d, 2, 3)]),
    "aten::minimum": lambda d: (lambda x, y: A.minimum.default(x, y), [r(d, 2, 3), r(d, 2, 3)]),
    "aten::where.self": lambda d: (lambda x, y: A.where.self(openreg.tensor([True, False, True], device=d), x, y),
                                   [r(d, 2, 3), r(d, 3)]),
    "aten::remainder.Tensor": lambda d: (lambda x, y: A.remainder.Tensor(x, y),
                                         [r(d, 3, lo=0.1, hi=0.4), pos(d, 3)]),
    "aten::remainder.Scalar": lambda d: (lambda x: A.remainder.Scalar(x, 1.5), [r(d, 3, lo=0.1, hi=0.9)]),
    "aten::sum": lambda d: (lambda x: A.sum.default(x), [r(d, 2, 3)]),
    "aten::sum.dim_IntList": lambda d: (lambda x: A.sum.dim_IntList(x, [1], False), [r(d, 2, 3, 2)]),
    "aten::mean": lambda d: (lambda x: A.mean.default(x), [r(d, 2, 3)]),
    "aten::mean.dim": lambda d: (lambda x: A.mean.dim(x, [0, 2], True), [r(d, 2, 3, 2)]),
    "aten::prod": lambda d: (lambda x: A.prod.default(x), [pos(d, 2, 3)]),
    "aten::prod.dim_int": lambda d: (lambda x: A.prod.dim_int(x, 1), [pos(d, 2, 3)]),
    "aten::amax": lambda d: (lambda x: A.amax.default(x, [1]), [r(d, 2, 3)]),
    "aten::amin": lambda d: (lambda x: A.amin.default(x, [0], True), [r(d, 2, 3)]),
    "aten::_softmax": lambda d: (lambda x: A._softmax.default(x, 1, False), [r(d, 2, 3)]),
    "aten::_log_softmax": lambda d: (lambda x: A._log_softmax.default(x, 1, False), [r(d, 2, 3)]),
    "aten::softmax.int": lambda d: (lambda x: A.softmax.int(x, 0), [r(d, 2, 3)]),
    "aten::log_softmax.int": lambda d: (lambda x: A.log_softmax.int(x, 0), [r(d, 2, 3)]),
    "aten::mm": lambda d: (lambda x, y: A.mm.default(x, y), [r(d, 2, 3), r(d, 3, 2)]),
    "aten::bmm": lambda d: (lambda x, y: A.bmm.default(x, y), [r(d, 2, 2, 3), r(d, 2, 3, 2)]),
    "aten::addmm": lambda d: (lambda b, x, y: A.addmm.default(b, x, y, beta=0.5, alpha=2),
                              [r(d, 2), r(d, 2, 3), r(d, 3, 2)]),
    "aten::addmm_": lambda d: (lambda b, x, y: A.addmm_.default(b * 1, x, y, beta=0.5, alpha=2),
                               [r(d, 2, 2), r(d, 2, 3), r(d, 3, 2)]),
    "aten::dot": lambda d: (lambda x, y: A.dot.default(x, y), [r(d, 3), r(d, 3)]),
    "aten::outer": lambda d: (lambda x, y: A.outer.default(x, y), [r(d, 3), r(d, 2)]),
    "aten::matmul": lambda d: (lambda x, y: A.matmul.default(x, y), [r(d, 2, 2, 3), r(d, 3)]),
    "aten::view": lambda d: (lambda x: A.view.default(x, [3, 2]), [r(d, 2, 3)]),
    "aten::_unsafe_view": lambda d: (lambda x: A._unsafe_view.default(x, [6]), [r(d, 2, 3)]),
    "aten::reshape": lambda d: (lambda x: A.reshape.default(x.t(), [6]), [r(d, 2, 3)]),
    "aten::view_as": lambda d: (lambda x: A.view_as.default(x, openreg.empty(3, 2, device=d)), [r(d, 2, 3)]),
    "aten::alias": lambda d: (lambda x: A.alias.default(x), [r(d, 2, 3)]),
    "aten::flatten.using_ints": lambda d: (lambda x: A.flatten.using_ints(x, 0, 1), [r(d, 2, 3, 2)]),
    "aten::unflatten.int": lambda d: (lambda x: A.unflatten.int(x, 1, [3, 1]), [r(d, 2, 3)]),
    "aten::t": lambda d: (lambda x: A.t.default(x), [r(d, 2, 3)]),
    "aten::transpose.int": lambda d: (lambda x: A.transpose.int(x, 0, 2), [r(d, 2, 3, 2)]),
    "aten::movedim.int": lambda d: (lambda x: A.movedim.int(x, 0, 2), [r(d, 2, 3, 2)]),
    "aten::permute": lambda d: (lambda x: A.permute.default(x, [2, 0, 1]), [r(d, 2, 3, 2)]),
    "aten::expand": lambda d: (lambda x: A.expand.default(x, [2, 2, 3]), [r(d, 1, 3)]),
    "aten::expand_as": lambda d: (lambda x: A.expand_as.default(x, openreg.empty(2, 3, device=d)), [r(d, 3)]),
    "aten::squeeze": lambda d: (lambda x: A.squeeze.default(x), [r(d, 2, 1, 3)]),
    "aten::squeeze.dim": lambda d: (lambda x: A.squeeze.dim(x, 1), [r(d, 2, 1, 3)]),
    "aten::squeeze.dims": lambda d: (lambda x: A.squeeze.dims(x, [1]), [r(d, 2, 1, 3)]),
    "aten::unsqueeze": lambda d: (lambda x: A.unsqueeze.default(x, 1), [r(d, 2, 3)]),
    "aten::narrow": lambda d: (lambda x: A.narrow.default(x, 1, 1, 2), [r(d, 2, 3)]),
    "aten::select.int": lambda d: (lambda x: A.select.int(x, 1, 2), [r(d, 2, 3)]),
    "aten::slice.Tensor": lambda d: (lambda x: A.slice.Tensor(x, 1, 0, 3, 2), [r(d, 2, 3)]),
    "aten::diagonal": lambda d: (lambda x: A.diagonal.default(x), [r(d, 3, 3)]),
    "aten::as_strided": lambda d: (lambda x: A.as_strided.default(x, [2, 2], [1, 2]), [r(d, 6)]),
    "aten::unbind.int": lambda d: (lambda x: A.unbind.int(x, 1), [r(d, 2, 3)]),
    "aten::split.Tensor": lambda d: (lambda x: A.split.Tensor(x, 2, 1), [r(d, 2, 3)]),
    "aten::split_with_sizes": lambda d: (lambda x: A.split_with_sizes.default(x, [1, 2], 1), [r(d, 2, 3)]),
    "aten::chunk": lambda d: (lambda x: A.chunk.default(x, 2, 0), [r(d, 4, 3)]),
    "aten::cat": lambda d: (lambda x, y: A.cat.default([x, y], 1), [r(d, 2, 3), r(d, 2, 1)]),
    "aten::stack": lambda d: (lambda x, y: A.stack.default([x, y], 1), [r(d, 2, 3), r(d, 2, 3)]),
    "aten::clone": lambda d: (lambda x: A.clone.default(x), [r(d, 2, 3)]),
    "aten::contiguous": lambda d: (lambda x: A.contiguous.default(x.t()), [r(d, 2, 3)]),
    "aten::_to_copy": lambda d: (lambda x: A._to_copy.default(x, dtype=openreg.float64), [r(d, 2, 3)]),
    "aten::copy_": lambda d: (lambda x, y: A.copy_.default(x * 1, y), [r(d, 2, 3), r(d, 3)]),
    "aten::fill_.Scalar": lambda d: (lambda x, y: A.fill_.Scalar(x * 1, 2.0) * y, [r(d, 3), r(d, 3)]),
    "aten::fill_.Tensor": lambda d: (lambda x, y: A.fill_.Tensor(x * 1, y), [r(d, 3), r(d)]),
    "aten::fill.Scalar": lambda d: (lambda x, y: A.fill.Scalar(x, 2.0) * y, [r(d, 3), r(d, 3)]),
    "aten::zero_": lambda d: (lambda x, y: A.zero_.default(x * 1) + y, [r(d, 3), r(d, 3)]),
    "aten::masked_fill.Scalar": lambda d: (lambda x: A.masked_fill.Scalar(
        x, openreg.tensor([True, False, True], device=d), 0.0), [r(d, 2, 3)]),
    "aten::masked_fill_.Scalar": lambda d: (lambda x: A.masked_fill_.Scalar(
        x * 1, openreg.tensor([True, False, True], device=d), 0.0), [r(d, 2, 3)]),
    "aten::index.Tensor": lambda d: (lambda x: A.index.Tensor(x, [openreg.tensor([0, 2, 0], device=d)]),
                                     [r(d, 3, 2)]),
    "aten::gather": lambda d: (lambda x: A.gather.default(x, 1, openreg.tensor([[0, 0], [1, 0]], device=d)),
                               [r(d, 2, 3)]),
    "aten::clamp_min": lambda d: (lambda x: A.clamp_min.default(x, -0.2), [r(d, 2, 3)]),
    "aten::clamp_min_": lambda d: (lambda x: A.clamp_min_.default(x * 1, -0.2), [r(d, 2, 3)]),
    "aten::clamp_max": lambda d: (lambda x: A.clamp_max.default(x, 0.2), [r(d, 2, 3)]),
    "aten::clamp_max_": lambda d: (lambda x: A.clamp_max_.default(x * 1, 0.2), [r(d, 2, 3)]),
    "aten::clamp_min.Tensor": lambda d: (lambda x, m: A.clamp_min.Tensor(x, m), [r(d, 2, 3), r(d, 3)]),
    "aten::clamp_min_.Tensor": lambda d: (lambda x, m: A.clamp_min_.Tensor(x * 1, m), [r(d, 2, 3), r(d, 3)]),
    "aten::clamp_max.Tensor": lambda d: (lambda x, m: A.clamp_max.Tensor(x, m), [r(d, 2, 3), r(d, 3)]),
    "aten::clamp_max_.Tensor": lambda d: (lambda x, m: A.clamp_max_.Tensor(x * 1, m), [r(d, 2, 3), r(d, 3)]),
    "aten::div.Scalar_mode": lambda d: (lambda x: A.div.Scalar_mode(x, 2.0, rounding_mode=None), [r(d, 3)]),
    "aten::div_.Scalar_mode": lambda d: (lambda x: A.div_.Scalar_mode(x * 1, 2.0, rounding_mode=None), [r(d, 3)]),
    "aten::where.ScalarOther": lambda d: (lambda x: A.where.ScalarOther(
        openreg.tensor([True, False, True], device=d), x, 2.0), [r(d, 2, 3)]),
    "aten::where.ScalarSelf": lambda d: (lambda x: A.where.ScalarSelf(
        openreg.tensor([True, False, True], device=d), 2.0, x), [r(d, 2, 3)]),
    "aten::remainder_.Tensor": lambda d: (lambda x, y: A.remainder_.Tensor(x * 1, y),
                                          [r(d, 3, lo=0.1, hi=0.4), pos(d, 3)]),
    "aten::remainder_.Scalar": lambda d: (lambda x: A.remainder_.Scalar(x * 1, 1.5), [r(d, 3, lo=0.1, hi=0.9)]),
    "aten::remainder.Scalar_Tensor": lambda d: (lambda y: A.remainder.Scalar_Tensor(0.3, y), [r(d, 3, lo=0.5, hi=0.9)]),
    "aten::xlogy.Scalar_Other": lambda d: (lambda x: A.xlogy.Scalar_Other(x, 2.5), [r(d, 2, 3)]),
    "aten::xlogy_.Scalar_Other": lambda d: (lambda x: A.xlogy_.Scalar_Other(x * 1, 2.5), [r(d, 2, 3)]),
    "aten::xlogy.Scalar_Self": lambda d: (lambda y: A.xlogy.Scalar_Self(1.5, y), [pos(d, 3)]),
    "aten::float_power.Tensor_Scalar": lambda d: (lambda x: A.float_power.Tensor_Scalar(x, 3), [r(d, 2, 3)]),
    "aten::float_power_.Scalar": lambda d: (lambda x: A.float_power_.Scalar(x * 1, 2.5), [pos(d, 2, 3)]),
    "aten::float_power.Scalar": lambda d: (lambda y: A.float_power.Scalar(2.0, y), [r(d, 3)]),
    # selection.py: values picked along a dim (random inputs: no ties)
    "aten::median": lambda d: (lambda x: A.median.default(x), [r(d, 3, 4)]),
    "aten::median.dim": lambda d: (lambda x: A.median.dim(x, 1)[0], [r(d, 3, 4)]),
    "aten::nanmedian": lambda d: (lambda x: A.nanmedian.default(x), [r(d, 3, 4)]),
    "aten::nanmedian.dim": lambda d: (lambda x: A.nanmedian.dim(x, 0, True)[0], [r(d, 3, 4)]),
    "aten::kthvalue": lambda d: (lambda x: A.kthvalue.default(x, 2, 1)[0], [r(d, 3, 4)]),
    "aten::max.dim": lambda d: (lambda x: A.max.dim(x, 1)[0], [r(d, 3, 4)]),
    "aten::min.dim": lambda d: (lambda x: A.min.dim(x, 0, True)[0], [r(d, 3, 4)]),
    "aten::mode": lambda d: (lambda x: A.mode.default(x, 0)[0], [r(d, 3, 4)]),
    "aten::cummax": lambda d: (lambda x: A.cummax.default(x, 1)[0], [r(d, 3, 4)]),
    "aten::cummin": lambda d: (lambda x: A.cummin.default(x, 0)[0], [r(d, 3, 4)]),
    "aten::logcumsumexp": lambda d: (lambda x: A.logcumsumexp.default(x, 1), [r(d, 3, 4)]),
    # linalg_decompositions.py: well-conditioned (and symmetric positive-definite) matrices
    "aten::linalg_inv": lambda d: (lambda x: A.linalg_inv.default(x), [_well_conditioned(d, 2, 3, 3)]),
    "aten::linalg_det": lambda d: (lambda x: A.linalg_det.default(x), [_well_conditioned(d, 3, 3)]),
    "aten::linalg_slogdet": lambda d: (lambda x: A.linalg_slogdet.default(x)[1], [_well_conditioned(d, 2, 3, 3)]),
    "aten::linalg_cholesky": lambda d: (lambda x: A.linalg_cholesky.default(_spd(x)), [r(d, 3, 3)]),
    "aten::linalg_qr": lambda d: (lambda x: A.linalg_qr.default(x), [r(d, 4, 3)]),
    "aten::linalg_svd": lambda d: (lambda x: A.linalg_svd.default(x, False), [r(d, 4, 3)]),
    "aten::linalg_eigh": lambda d: (lambda x: A.linalg_eigh.default(_spd(x)), [r(d, 3, 3)]),
    # distinct real eigenvalues; outputs the loss may depend on (not the eigenvectors' phases)
    "aten::linalg_eig": lambda d: (lambda x: _eig_phase_free(A.linalg_eig.default(
        x + openreg.tensor([0.0, 3.0, 6.0], dtype=x.dtype, device=x.device).diag())), [r(d, 3, 3)]),
    "aten::copysign.Scalar": lambda d: (lambda x: A.copysign.Scalar(x, -1.5), [r(d, 2, 3)]),
    "aten::copysign_.Scalar": lambda d: (lambda x: A.copysign_.Scalar(x * 1, -1.5), [r(d, 2, 3)]),
    "aten::fmod.Scalar": lambda d: (lambda x: A.fmod.Scalar(x, 1.5), [r(d, 3, lo=0.1, hi=0.9)]),
    "aten::fmod_.Scalar": lambda d: (lambda x: A.fmod_.Scalar(x * 1, 1.5), [r(d, 3, lo=0.1, hi=0.9)]),
    "aten::lerp.Scalar": lambda d: (lambda x, y: A.lerp.Scalar(x, y, 0.3), [r(d, 2, 3), r(d, 1, 3)]),
    "aten::lerp_.Scalar": lambda d: (lambda x, y: A.lerp_.Scalar(x * 1, y, 0.7), [r(d, 2, 3), r(d, 1, 3)]),
    "aten::index_put": lambda d: (lambda x, v: A.index_put.default(x, [openreg.tensor([0, 2], device=d)], v),
                                  [r(d, 3, 2), r(d, 2)]),
    "aten::index_put_": lambda d: (lambda x, v: A.index_put_.default(
        x * 1, [openreg.tensor([0, 2, 0], device=d)], v, True), [r(d, 3, 2), r(d, 3, 2)]),
    "aten::t_": lambda d: (lambda x: A.t_.default(x * 1), [r(d, 2, 3)]),
    "aten::transpose_": lambda d: (lambda x: A.transpose_.default(x * 1, 0, 1), [r(d, 2, 3)]),
    "aten::squeeze_": lambda d: (lambda x: A.squeeze_.default(x * 1), [r(d, 2, 1, 3)]),
    "aten::squeeze_.dim": lambda d: (lambda x: A.squeeze_.dim(x * 1, 1), [r(d, 2, 1, 3)]),
    "aten::squeeze_.dims": lambda d: (lambda x: A.squeeze_.dims(x * 1, [1]), [r(d, 2, 1, 3)]),
    "aten::unsqueeze_": lambda d: (lambda x: A.unsqueeze_.default(x * 1, 0), [r(d, 2, 3)]),
    "aten::as_strided_": lambda d: (lambda x: A.as_strided_.default(x * 1, [2, 2], [1, 2]), [r(d, 6)]),
    # igamma/igammac: differentiable in `other` only (PyTorch: "not implemented" for the input)
    "aten::igamma": lambda d: _igamma_sample(d, "igamma"),
    "aten::igamma_": lambda d: _igamma_sample(d, "igamma_"),
    "aten::igammac": lambda d: _igamma_sample(d, "igammac"),
    "aten::igammac_": lambda d: _igamma_sample(d, "igammac_"),
    # round with decimals: a keyword-only option the record sample does not pass
    "aten::round.decimals": lambda d: (lambda x: A.round.decimals(x, decimals=2), [r(d, 2, 3)]),
    "aten::round_.decimals": lambda d: (lambda x: A.round_.decimals(x * 1, decimals=2), [r(d, 2, 3)]),
    # hardsigmoid_backward: differentiable in grad_output only (PyTorch: "not implemented" for self)
    "aten::hardsigmoid_backward": lambda d: ((lambda g: A.hardsigmoid_backward.default(
        g, openreg.tensor([[-3.5, -1.0, 0.5], [2.0, 3.5, -0.2]], dtype=openreg.float64, device=d))), [r(d, 2, 3)]),
    # zeta: differentiable in `other` only (PyTorch: "not implemented" for the input)
    "aten::special_zeta": lambda d: _zeta_sample(d),
    "aten::special_zeta.self_scalar": lambda d: ((lambda q: A.special_zeta.self_scalar(2.5, q)), [pos(d, 2, 3)]),
    "aten::native_dropout": lambda d: (lambda x: A.native_dropout.default(x, 0.0, True)[0], [r(d, 2, 3)]),
    "aten::fill.Tensor": lambda d: (lambda x, v: A.fill.Tensor(x, v) * x, [r(d, 3), r(d)]),
    # masked_fill.Tensor is CompositeImplicitAutograd (value read with .item()): only self is differentiable
    "aten::masked_fill.Tensor": lambda d: (lambda x, v: A.masked_fill.Tensor(
        x, openreg.tensor([True, False, True], device=d), v), [r(d, 2, 3), r(d, grad=False)]),
    "aten::masked_fill_.Tensor": lambda d: (lambda x, v: A.masked_fill_.Tensor(
        x * 1, openreg.tensor([True, False, True], device=d), v), [r(d, 2, 3), r(d)]),
    "aten::index_select": lambda d: (lambda x: A.index_select.default(x, 1, openreg.tensor([2, 0, 2], device=d)),
                                     [r(d, 2, 3)]),
    "aten::scatter_add": lambda d: (lambda x, s: A.scatter_add.default(
        x, 1, openreg.tensor([[0, 2], [1, 1]], device=d), s), [r(d, 2, 3), r(d, 2, 2)]),
    "aten::scatter_add_": lambda d: (lambda x, s: A.scatter_add_.default(
        x * 1, 1, openreg.tensor([[0, 2], [1, 1]], device=d), s), [r(d, 2, 3), r(d, 2, 2)]),
    "aten::nll_loss_forward": lambda d: _nll_forward_sample(d),
    "aten::nll_loss_backward": lambda d: _nll_backward_sample(d),
    "aten::_log_softmax_backward_data": lambda d: (lambda go, out: A._log_softmax_backward_data.default(
        go, out, 1, openreg.float64), [r(d, 2, 3), r(d, 2, 3)]),
    "aten::_softmax_backward_data": lambda d: (lambda go, out: A._softmax_backward_data.default(
        go, out, 1, openreg.float64), [r(d, 2, 3), r(d, 2, 3)]),
    "aten::movedim.intlist": lambda d: (lambda x: A.movedim.intlist(x, [0, 1], [2, 0]), [r(d, 2, 3, 2)]),
    "aten::narrow.Tensor": lambda d: (lambda x: A.narrow.Tensor(x, 1, openreg.tensor(1, device=d), 2),
                                      [r(d, 2, 3)]),
    "aten::split": lambda d: (lambda x: A.split.default(x, [1, 2], 1), [r(d, 2, 3)]),
    "aten::split.sizes": lambda d: (lambda x: A.split.sizes(x, [2, 1], 1), [r(d, 2, 3)]),
    **{f"aten::{c}_.{ov}": _compare_inplace(c, ov) for c in ("eq", "ne", "lt", "le", "gt", "ge")
       for ov in ("Scalar", "Tensor")},
    # attention: the output only (the weights / log-sum-exp outputs are not differentiated)
    "aten::_scaled_dot_product_attention_math": lambda d: (lambda q, k, v, m: A._scaled_dot_product_attention_math(
        q, k, v, m)[0], [r(d, 2, 3, 4), r(d, 2, 5, 4), r(d, 2, 5, 3), r(d, 3, 5)]),
    "aten::_scaled_dot_product_flash_attention_for_cpu": lambda d: (       # a CPU kernel only, as in PyTorch
        lambda q, k, v: A._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=True)[0],
        [r("cpu", 1, 2, 3, 4), r("cpu", 1, 2, 5, 4), r("cpu", 1, 2, 5, 4)]),
    "aten::_scaled_dot_product_fused_attention_overrideable": lambda d: (
        lambda q, k, v, m: A._scaled_dot_product_fused_attention_overrideable(q, k, v, m)[0],
        [r(d, 2, 3, 4), r(d, 2, 5, 4), r(d, 2, 5, 3), r(d, 3, 5)]),
    # the convolution's backward (its double backward: gradient penalties through convolutions)
    "aten::convolution_backward": lambda d: (lambda g, x, w: A.convolution_backward(
        g, x, w, [3], [1], [1], [1], False, [0], 1, [True, True, True]), [r(d, 1, 3, 5), r(d, 1, 2, 5), r(d, 3, 2, 3)]),
    # fused recurrent cells: the workspace output is not differentiable
    "aten::_thnn_fused_lstm_cell": lambda d: (lambda ig, hg, c, ib, hb: A._thnn_fused_lstm_cell(
        ig, hg, c, ib, hb)[:2], [r(d, 2, 8), r(d, 2, 8), r(d, 2, 2), r(d, 8), r(d, 8)]),
    "aten::_thnn_fused_gru_cell": lambda d: (lambda ig, hg, h, ib, hb: A._thnn_fused_gru_cell(
        ig, hg, h, ib, hb)[0], [r(d, 2, 6), r(d, 2, 6), r(d, 2, 2), r(d, 6), r(d, 6)]),
}


def _record_sample(op: str):
    """The gradcheck sample of a record's overload from its ``record_samples`` entry (float64 inputs)."""
    from openreg.operators._loader import declared_overloads
    record = declared_overloads()[op]
    overload = lookup(op)
    inplace = overload._schema.arguments[0].is_write

    def sample(d):
        def make(*shape, dtype=None, low=None, high=None, ints=False):
            if dtype is not None and "float" not in dtype:      # an index or mask argument: not differentiated
                values = np.round(RNG.uniform(-3, 3, size=shape)).tolist()
                return openreg.tensor(values, dtype=getattr(openreg, dtype), device=d)
            return r(d, *shape, lo=-1.0 if low is None else low, hi=1.0 if high is None else high)
        args = SAMPLES_BY_RECORD[record.name].inputs(make)
        tensors = [i for i, a in enumerate(args) if isinstance(a, openreg.Tensor)]

        def fn(*ts):
            call = list(args)
            for i, t in zip(tensors, ts):
                call[i] = t
            if inplace:
                call[0] = call[0] * 1
            return overload(*call)
        return fn, [args[i] for i in tensors]
    return sample

SAMPLES.update(INDEXING_SAMPLES)


def _complex_samples() -> dict:
    """Complex-valued ops checked through real views (gradcheck compares real inputs and outputs): RoPE's
    ``view_as_real(view_as_complex(x) * w)`` with a complex multiplier, ``complex`` and ``polar``."""
    def rope(d):
        w = A.polar(openreg.ones(3, dtype=openreg.float64, device=d), r(d, 3, grad=False))
        return (lambda x: A.view_as_real(A.view_as_complex(x) * w), [r(d, 2, 3, 2)])

    def conj(d):
        return (lambda x: A.view_as_real(A.conj_physical(A.view_as_complex(x))), [r(d, 3, 2)])
    return {
        "aten::view_as_real": rope, "aten::view_as_complex": rope, "aten::conj_physical": conj,
        "aten::complex": lambda d: (lambda a, b: A.view_as_real(A.complex(a, b)), [r(d, 2, 3), r(d, 1, 3)]),
        "aten::polar": lambda d: (lambda a, b: A.view_as_real(A.polar(a, b)), [r(d, 2, 3), r(d, 1, 3)]),
        # the FFT primitives: one-sided real-to-complex (odd length), complex-to-real to an even length (the
        # doubled conjugate-symmetric entries), complex-to-complex inverse over two dimensions
        "aten::_fft_r2c": lambda d: (lambda x: A.view_as_real(A._fft_r2c(x, [1], 1, True)), [r(d, 2, 5)]),
        "aten::_fft_c2r": lambda d: (lambda x: A._fft_c2r(A.view_as_complex(x), [1], 0, 6), [r(d, 2, 4, 2)]),
        "aten::_fft_c2c": lambda d: (lambda x: A.view_as_real(A._fft_c2c(A.view_as_complex(x), [0, 1], 2, False)),
                                     [r(d, 3, 4, 2)]),
    }


SAMPLES.update(_complex_samples())

def _sparse_samples() -> dict:
    """The sparse COO records (operators/sparse.py), each checked through ``to_dense`` (gradcheck compares dense
    outputs); the indices have a duplicate, the inputs no zeros (``to_sparse`` keeps the pattern)."""
    idx = [[1, 0, 1, 0], [0, 2, 0, 1]]

    def indices(d):
        return openreg.tensor(idx, dtype=openreg.int64, device=d)
    return {
        "aten::_sparse_coo_tensor_with_dims_and_tensors": lambda d: (
            lambda v: A._sparse_coo_tensor_with_dims_and_tensors(2, 0, [2, 3], indices(d), v).to_dense(), [r(d, 4)]),
        "aten::_to_dense": lambda d: (
            lambda v: A._to_dense(openreg.sparse_coo_tensor(indices(d), v, (2, 3))), [r(d, 4)]),
        "aten::to_sparse": lambda d: (lambda x: A.to_sparse(x).to_dense(), [r(d, 2, 3)]),
        "aten::to_sparse.sparse_dim": lambda d: (lambda x: A.to_sparse.sparse_dim(x, 1).to_dense(), [r(d, 2, 3)]),
        "aten::sparse_mask": lambda d: (
            lambda x: A.sparse_mask(x, openreg.sparse_coo_tensor(indices(d), openreg.ones(4, device=d), (2, 3))
                                    ).to_dense(), [r(d, 2, 3)]),
    }


def _eig_phase_free(result):
    L, V = result
    return A.view_as_real(L), V.abs()


SAMPLES.update(_sparse_samples())
# Sparse COO: no forward-mode formulas yet.
_SPARSE_NO_FORWARD = set(_sparse_samples())

for _op, _f in DERIVATIVES.items():
    if _f.bwd and not _f.nondiff and _op not in SAMPLES and all(
            fn.__module__.startswith("openreg.operators.") for fn in _f.bwd.values()):
        SAMPLES[_op] = _record_sample(_op)

NO_FORWARD = {"aten::squeeze_", "aten::squeeze_.dim", "aten::squeeze_.dims", "aten::unsqueeze_", "aten::as_strided_",
              # as in PyTorch, the attention kernels have no forward-mode derivative
              "aten::_scaled_dot_product_attention_math", "aten::_scaled_dot_product_flash_attention_for_cpu",
              "aten::_scaled_dot_product_fused_attention_overrideable"} | _SPARSE_NO_FORWARD
NO_FORWARD |= {"aten::linalg_qr", "aten::linalg_svd", "aten::linalg_eigh", "aten::linalg_eig"}   # reverse mode only (openreg)
NO_SECOND_ORDER = {"aten::remainder.Tensor"}
# A sampler's derivative is no derivative of the sampling function at fixed random draws: _standard_gamma's
# implicit reparameterization gradient is checked against the gamma CDF in test_distributions_sampled.py.
SAMPLERS = {"aten::_standard_gamma"}
TESTED = sorted(op for op, f in DERIVATIVES.items() if op not in SAMPLERS and not f.nondiff and f.bwd and all(
    fn.__module__ == "openreg.aten.derivatives" or fn.__module__.startswith("openreg.operators.")
    for fn in f.bwd.values()))


def test_every_formula_has_a_sample():
    missing = [op for op in TESTED if op not in SAMPLES]
    assert not missing, missing


@pytest.mark.parametrize("op", TESTED)
def test_gradcheck_formula(op, devices):
    if dispatcher.find(op) is None:
        pytest.skip(f"{op} is not defined yet")
    fn, inputs = SAMPLES[op](devices)
    assert gradcheck(fn, inputs, check_forward_ad=op not in NO_FORWARD)


def test_as_strided_overlapping_input_and_output(devices):
    x = r(devices, 3)
    assert gradcheck(lambda t: A.as_strided.default(t.expand(2, 3), [3, 2], [1, 0]), (x,))
    assert gradcheck(lambda t: A.as_strided.default(t, [2, 2], [1, 1]), (x,))


def test_resize_and_set_refuse_grad(devices):
    x = r(devices, 3)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        (x * 1).resize_(2)


SECOND_ORDER = ["aten::mul.Tensor", "aten::exp", "aten::tanh", "aten::sigmoid", "aten::mm", "aten::_softmax",
                "aten::sum.dim_IntList", "aten::div.Tensor", "aten::pow.Tensor_Scalar", "aten::select.int",
                "aten::mul_.Tensor", "aten::log", "aten::cat", "aten::nll_loss_forward",
                "aten::_log_softmax_backward_data", "aten::_softmax_backward_data",
                "aten::binary_cross_entropy_with_logits", "aten::binary_cross_entropy", "aten::mse_loss"]


@pytest.mark.parametrize("op", SECOND_ORDER)
def test_gradgradcheck_formula(op, devices):
    if dispatcher.find(op) is None:
        pytest.skip(f"{op} is not defined yet")
    fn, inputs = SAMPLES[op](devices)
    assert gradgradcheck(fn, inputs)


def test_gradcheck_detects_a_wrong_formula():
    class Wrong(openreg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = r("cpu", 3)
    with pytest.raises(openreg.autograd.GradcheckError, match="Jacobian mismatch"):
        gradcheck(Wrong.apply, (x,))
    assert gradcheck(Wrong.apply, (x,), raise_exception=False) is False


def test_relu_backward_is_threshold_backward():
    """Zero where the result is <= 0 (a NaN result passes its gradient, a NaN gradient at a clamped element
    gives 0), as PyTorch's threshold_backward."""
    x = openreg.tensor([float("nan"), -1.0, 2.0, 0.0], requires_grad=True)
    openreg.relu(x).backward(openreg.tensor([1.0, float("nan"), 3.0, 5.0]))
    np.testing.assert_array_equal(x.grad.numpy(), np.array([1.0, 0.0, 3.0, 0.0], dtype=np.float32))
