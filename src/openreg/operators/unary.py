"""Elementwise unary operators: ``abs``, ``neg``, the float functions (``exp``, ``log``, ``sqrt``, ``rsqrt``,
``sin``, ``cos``, ``tanh``, ``sigmoid``, ``reciprocal``), ``relu``, ``bitwise_not`` and ``logical_not``.

Integer inputs of the float functions give the default float dtype; float16 is computed in float32.

>>> import openreg
>>> x = openreg.tensor([-1.0, 4.0])
>>> x.abs().sqrt().tolist(), (-x).relu().tolist(), (~openreg.tensor([0, 5])).tolist()
([1.0, 2.0], [1.0, 0.0], [-1, -6])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import to_compute, wrap_array
from .._dispatch.ops import A
from .._quiet import enter_quiet, leave_quiet
from ..aten.meta_rules import Spec, scalar_type_name
from ._compute import as_compute, f32_via_f64, pair, quiet, select, upcast, with_constant, xp_of
from ._formulas import holomorphic, sign
from ._host_path import plain_cpu_arrays
from ._pointwise import binary_spec, float_spec, is_integral
from ._record import Deriv, Op, register, sparse_kernels

# The device runs bfloat16 abs/neg/relu and the float functions but reciprocal as a raw kernel widening per element
# (bf16.cu)
_DEVICE = "openreg.backends.privateuseone.device_ops"


def _schemas(name: str, out: bool = True, inplace_tags: str = "pointwise", out_tags: str = "pointwise") -> str:
    return f"""
    {name}(Tensor self) -> Tensor  [core, pointwise]
    {name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [{out_tags}]
    {name}_(Tensor(a!) self) -> Tensor(a!)  [{inplace_tags}]
    """


def _doc(name: str, example_in: str, example_out: str) -> str:
    return (f"Elementwise ``{name}`` (``aten::{name}``), optionally into ``out``.\n\n"
            f">>> import openreg\n>>> openreg.{name}(openreg.tensor({example_in})).tolist()\n{example_out}\n")


# -- abs and neg ---------------------------------------------------------------------------------------

def _abs_meta(self) -> Spec:
    d = self._dtype
    if d is _dt.bool:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return Spec(self._size, d.to_real() if d.is_complex else d, self._storage.device)


def _abs(spec, self):
    arr = to_compute(self) if self._dtype.is_narrow_float else self._array()
    return self._storage._backend.array_module.abs(arr)


def _neg_meta(self) -> Spec:
    if self._dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return Spec(self._size, self._dtype, self._storage.device)


def _neg(spec, self):
    arr = to_compute(self) if self._dtype.is_narrow_float else self._array()
    return self._storage._backend.array_module.negative(arr)


def _pos(self):
    if self._dtype is _dt.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _abs_grad(g, a):
    x = a.self
    return g * (A.sgn(x) if x._dtype.is_complex else sign(x))     # PyTorch: grad * self.sgn()


def _abs_jvp(t, a):
    x = a.self
    return A.real(t * A.conj_physical(A.sgn(x))) if x._dtype.is_complex else t * sign(x)


abs = Op("abs", _schemas("abs", inplace_tags=""), meta=_abs_meta, compute=_abs, elementwise=True, ufunc="abs",
         overrides={"privateuseone": f"{_DEVICE}:abs_compute"},
         derivatives={"abs": Deriv(save="self", self=_abs_grad, jvp={"self": _abs_jvp})},
         extra_methods={"__abs__": "abs"}, doc=_doc("abs", "[-1.5, 2.0]", "[1.5, 2.0]"))
neg = Op("neg", _schemas("neg"), meta=_neg_meta, compute=_neg, elementwise=True, ufunc="negative",
         kernels={"neg": sparse_kernels("neg_sparse")},
         overrides={"privateuseone": f"{_DEVICE}:neg_compute"},
         derivatives={"neg": Deriv(pointwise=True, self=lambda g, a: -g)},
         extra_methods={"negative": "neg", "__neg__": "neg", "__pos__": _pos}, extra_functions={"negative": "neg"},
         doc=_doc("neg", "[-1.5, 2.0]", "[1.5, -2.0]"))


# -- sigmoid_backward, tanh_backward: the gradients of sigmoid and tanh in one pass ------------------------

_SAME_ROUNDING = (_dt.float32, _dt.float64)


def _sigmoid_grad_ops(g, y):
    return g * y * (1 - y)


def _tanh_grad_ops(g, y):
    return g * (1 - y * y)


def _fused_grad(fused, g, y, ops, arrays_fn):
    """The gradient of sigmoid/tanh from their result ``y``: the fused op (one kernel instead of three) where it
    rounds exactly as the separate ops do (float32/float64, one dtype), the ops otherwise (half precision rounds
    after each op; autocast mixes dtypes). In a backward pass on the CPU (``plain_cpu_arrays``) the fused op's
    computation ``arrays_fn`` runs on the arrays of a row-major ``y`` and a row-major or fully broadcast ``g``
    (a scalar loss's gradient), whose result the kernel also lays out row-major."""
    if g._dtype is y._dtype and y._dtype in _SAME_ROUNDING and g._size == y._size:
        src = g._base
        if src is None or src._size or g._offset != src._offset or any(g._stride):
            src = g     # else a broadcast scalar (a full sum's gradient): its 0-d array gives the same products
        arrays = plain_cpu_arrays(fused, src, y)
        if arrays is not None and arrays[1].flags.c_contiguous and \
                (arrays[0].flags.c_contiguous or not any(src._stride)):
            token = enter_quiet()
            try:
                return wrap_array(np.asarray(arrays_fn(np, arrays[0], arrays[1])), g._dtype)
            finally:
                leave_quiet(token)
        return fused(g, y)
    return ops(g, y)


def _sigmoid_grad_arrays(xp, g, y):
    """``g * y * (1 - y)``, the product written into its first factor (an array: NumPy makes 0-d results
    scalars)."""
    out = xp.asarray(g * y)
    return xp.multiply(out, 1 - y, out=out)


def _tanh_grad_arrays(xp, g, y):
    return g * (1 - y * y)


def _sigmoid_backward_compute(spec, grad_output, output):
    xp, g, y = pair(spec, grad_output, output)
    with quiet():
        return _sigmoid_grad_arrays(xp, upcast(g, xp), upcast(y, xp))


def _tanh_backward_compute(spec, grad_output, output):
    xp, g, y = pair(spec, grad_output, output)
    with quiet():
        return _tanh_grad_arrays(xp, upcast(g, xp), upcast(y, xp))


def _backward_op(name: str, compute, grads: dict, example: str) -> Op:
    return Op(
        name,
        f"""
        {name}.grad_input(Tensor grad_output, Tensor output, *, Tensor(a!) grad_input) -> Tensor(a!)  [pointwise]
        {name}(Tensor grad_output, Tensor output) -> Tensor  [pointwise]
        """,
        meta=lambda grad_output, output: float_spec(name, grad_output, output), compute=compute, elementwise=True,
        derivatives={name: Deriv(save="grad_output output", pointwise=True, **grads)},
        function=False, method=False,
        doc=f"""The gradient of ``{name[:-9]}`` from its result ``output``: {example}""")


sigmoid_backward = _backward_op(
    "sigmoid_backward", _sigmoid_backward_compute,
    {"grad_output": lambda gg, a: A.sigmoid_backward(gg, a.output),
     "output": lambda gg, a: gg * a.grad_output * (1 - 2 * a.output)},
    """``grad_output * output * (1 - output)``.

    >>> import openreg
    >>> openreg.ops.aten.sigmoid_backward(openreg.tensor([2.0]), openreg.tensor([0.25])).tolist()
    [0.375]
    """)
tanh_backward = _backward_op(
    "tanh_backward", _tanh_backward_compute,
    {"grad_output": lambda gg, a: A.tanh_backward(gg, a.output),
     "output": lambda gg, a: gg * a.grad_output * (-2 * a.output)},
    """``grad_output * (1 - output**2)``.

    >>> import openreg
    >>> openreg.ops.aten.tanh_backward(openreg.tensor([2.0]), openreg.tensor([0.5])).tolist()
    [1.5]
    """)


def _threshold_backward_compute(spec, grad_output, self, threshold):
    xp, g, x = pair(spec, grad_output, self)
    return _threshold_backward_arrays(xp, g, x, threshold)


def _threshold_backward_arrays(xp, g, x, threshold):
    with quiet():   # x <= threshold is False for NaN: a NaN input passes its gradient, as in PyTorch
        return select(xp, x <= threshold, xp.zeros((), dtype=g.dtype), g)


threshold_backward = Op(
    "threshold_backward",
    """
    threshold_backward.grad_input(Tensor grad_output, Tensor self, Scalar threshold, *, Tensor(a!) grad_input) -> Tensor(a!)  [pointwise]
    threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor  [pointwise]
    """,
    meta=lambda grad_output, self, threshold: binary_spec("threshold_backward", grad_output, self),
    compute=_threshold_backward_compute, elementwise=True, scalar_options=True,
    derivatives={"threshold_backward": Deriv(
        save="self threshold", pointwise=True,
        grad_output=lambda gg, a: A.threshold_backward(gg, a.self, a.threshold),
        self=lambda gg, a: A.zeros_like(gg))},
    function=False, method=False,
    doc="""``grad_output`` where ``self > threshold``, else 0: the gradient of ``relu``/``threshold`` in one pass.

    >>> import openreg
    >>> openreg.ops.aten.threshold_backward(openreg.tensor([1.0, 2.0]), openreg.tensor([-1.0, 3.0]), 0).tolist()
    [0.0, 2.0]
    """)


# -- float functions -------------------------------------------------------------------------------------

def _float_meta(self) -> Spec:
    d = self._dtype
    if d.category <= _dt.INTEGRAL:
        return Spec(self._size, _dt.get_default_dtype(), self._storage.device)
    return Spec(self._size, d, self._storage.device)


def _float_compute(fn, reduced_fn=None):
    def compute(spec, self):
        xp = xp_of(self)
        x = upcast(as_compute(self, spec, xp), xp)
        with quiet():
            if reduced_fn is not None and spec.compute.is_reduced_float:
                return reduced_fn(xp, x)
            return fn(xp, x)
    return compute


def _float_op(name: str, fn, save: str, grad, example: tuple, device_override: bool = False,
              reduced_fn=None) -> Op:
    """A float unary record; ``reduced_fn`` (if given) computes float16/bfloat16 inputs (float32 values)."""
    return Op(name, _schemas(name), meta=_float_meta, compute=_float_compute(fn, reduced_fn), elementwise=True,
              overrides={"privateuseone": f"{_DEVICE}:{name}_compute"} if device_override else None,
              derivatives={name: Deriv(save=save, self=holomorphic(grad), jvp={"self": grad})},
              doc=_doc(name, *example))


# float16/bfloat16 exp: PyTorch's float32 Sleef exp (within an ulp), here float64's rounded to float32
exp = _float_op("exp", lambda xp, x: xp.exp(x), "result", lambda g, a: g * a.result, ("[0.0]", "[1.0]"), True,
                reduced_fn=lambda xp, x: f32_via_f64(xp, xp.exp, x))
log = _float_op("log", lambda xp, x: xp.log(x), "self", lambda g, a: g / a.self, ("[1.0]", "[0.0]"), True)
sqrt = _float_op("sqrt", lambda xp, x: xp.sqrt(x), "result", lambda g, a: g / (a.result * 2),
                 ("[4.0, 9.0]", "[2.0, 3.0]"), True)
rsqrt = _float_op("rsqrt", lambda xp, x: 1 / xp.sqrt(x), "result",
                  lambda g, a: g * a.result * a.result * a.result * -0.5, ("[4.0, 0.25]", "[0.5, 2.0]"), True)
sin = _float_op("sin", lambda xp, x: xp.sin(x), "self", lambda g, a: g * a.self.cos(), ("[0.0]", "[0.0]"), True)
cos = _float_op("cos", lambda xp, x: xp.cos(x), "self", lambda g, a: -(g * a.self.sin()), ("[0.0]", "[1.0]"),
                True)
tanh = _float_op("tanh", lambda xp, x: xp.tanh(x), "result",
                 lambda g, a: _fused_grad(A.tanh_backward, g, a.result, _tanh_grad_ops, _tanh_grad_arrays),
                 ("[0.0]", "[0.0]"), True)
def _sigmoid_values(xp, x):
    """``1 / (1 + exp(-x))``, each step written into the first one's result (the same operations, one array)."""
    out = xp.asarray(xp.negative(x))    # an array to write into (NumPy makes a 0-d result a scalar)
    xp.exp(out, out=out)
    xp.add(out, 1, out=out)
    return xp.divide(1, out, out=out)


sigmoid = _float_op("sigmoid", _sigmoid_values, "result",
                    lambda g, a: _fused_grad(A.sigmoid_backward, g, a.result, _sigmoid_grad_ops,
                                             _sigmoid_grad_arrays),
                    ("[0.0]", "[0.5]"), True)
reciprocal = _float_op("reciprocal", lambda xp, x: 1 / x, "result", lambda g, a: -(g * a.result * a.result),
                       ("[4.0]", "[0.25]"))


# -- relu, bitwise_not, logical_not ----------------------------------------------------------------------

def _relu_meta(self) -> Spec:
    if self._dtype is _dt.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    if self._dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    return Spec(self._size, self._dtype, self._storage.device)


def _relu(spec, self):
    xp = xp_of(self)
    x = to_compute(self)
    # max(0, x), in this order: -0.0 stays -0.0 and NaN stays NaN, as PyTorch's relu gives
    return with_constant(xp, xp.maximum, x, xp.zeros((), dtype=x.dtype), constant_first=True)


def _bitwise_not_meta(self) -> Spec:
    if not is_integral(self._dtype):
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{scalar_type_name(self._dtype)}'")
    return Spec(self._size, self._dtype, self._storage.device)


def _bitwise_not(spec, self):
    xp = xp_of(self)
    x = to_compute(self)
    return xp.logical_not(x) if x.dtype == np.bool_ else xp.invert(x)


def _invert(self):
    if self._dtype.is_floating_point or self._dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return A.bitwise_not(self)


def _relu_grad(g, result):
    """``threshold_backward(g, result, 0)`` (one pass) for float32/float64 gradients of the result's dtype and
    size; otherwise (16-bit types, which the cuda driver's ``where`` selects without widening; broadcast
    gradients) the same selection through ``where``."""
    if g._dtype is result._dtype and result._dtype in _SAME_ROUNDING and g._size == result._size:
        arrays = plain_cpu_arrays(A.threshold_backward, g, result)
        if arrays is not None and arrays[0].flags.c_contiguous and arrays[1].flags.c_contiguous:
            # a backward pass on the CPU: the operator's computation on the arrays (a dense result either way)
            return wrap_array(_threshold_backward_arrays(np, arrays[0], arrays[1], 0), g._dtype)
        return A.threshold_backward(g, result, 0)
    return A.where__ScalarSelf(result <= 0, 0, g)


def _logical_not(spec, self):
    return xp_of(self).logical_not(to_compute(self))


relu = Op("relu", _schemas("relu", out_tags=""), meta=_relu_meta, compute=_relu, elementwise=True,
          overrides={"privateuseone": f"{_DEVICE}:relu_compute"},
          derivatives={"relu": Deriv(save="result", pointwise=True,
                                     self=lambda g, a: _relu_grad(g, a.result))},
          doc=_doc("relu", "[-1.0, 2.0]", "[0.0, 2.0]"))
bitwise_not = Op("bitwise_not", _schemas("bitwise_not"), meta=_bitwise_not_meta, compute=_bitwise_not,
                 elementwise=True, extra_methods={"__invert__": _invert}, doc=_doc("bitwise_not", "[0, 5]", "[-1, -6]"))
logical_not = Op("logical_not", _schemas("logical_not"), compute=_logical_not, elementwise=True,
                 meta=lambda self: Spec(self._size, _dt.bool, self._storage.device, self._dtype),
                 doc=_doc("logical_not", "[0.0, 2.0]", "[True, False]"))

register(abs, neg, exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, reciprocal, relu, bitwise_not, logical_not,
         sigmoid_backward, tanh_backward, threshold_backward)
