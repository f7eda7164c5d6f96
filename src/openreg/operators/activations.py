"""Activation functions: ``gelu`` (+ ``gelu_backward``), ``silu`` (+ ``silu_backward``), ``softplus``,
``leaky_relu``, ``elu``.

>>> import openreg
>>> openreg.ops.aten.gelu(openreg.tensor([-1.0, 0.0, 1.0], dtype=openreg.float64)).mul(1e4).round().tolist()
[-1587.0, 0.0, 8413.0]
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, broadcast_shapes, fmt_shape
from ._compute import f32_via_f64, operand, quiet, select, upcast, xp_of
from ._record import Deriv, Op, register
from .special_functions import _AS, _AS_P, erf_array, erf_opmath

_DEVICE = "openreg.backends.privateuseone.device_ops"
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_COEF = 0.044715
_SAME_ROUNDING = (_dt.float32, _dt.float64)


def _float_only(op: str):
    def meta(self, *args, **kwargs) -> Spec:
        d = self._dtype
        if not d.is_floating_point:
            raise NotImplementedError(f"\"{op}\" not implemented for '{_name(d)}'")
        return Spec(self._size, d, self._storage.device, d)
    return meta


def _name(d) -> str:
    from ..aten.meta_rules import scalar_type_name
    return scalar_type_name(d)


def _x(spec, t):
    xp = xp_of(t)
    return xp, upcast(operand(t, spec, xp), xp)


def _check_approximate(approximate: str) -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


# -- gelu ----------------------------------------------------------------------------------------------

def _gelu_meta(self, *, approximate: str = "none") -> Spec:
    _check_approximate(approximate)
    return _float_only("GeluKernelImpl")(self)


def _normal_cdf_f32(xp, x):
    """``(Phi(x), exp(-x**2 / 2))`` for a float32 array: the normal CDF through the erfc form of Abramowitz &
    Stegun 7.1.26, ``Phi(x) = 0.5 + sign(x) (0.5 - erfc(|x| / sqrt 2) / 2)``, whose error (<= 1.5e-7 absolute)
    matches the erf path's away from zero; near zero GELU's ``x * Phi(x)`` needs no better. About 17 passes over
    the array against erf's ~40 (its series branch for small arguments), and the Gaussian factor is the same
    ``exp`` the derivative needs."""
    if x.ndim == 0:     # NumPy gives scalars for 0-d arrays, and the steps below write into their arrays
        cdf, gauss = _normal_cdf_f32(xp, x.reshape(1))
        return cdf.reshape(()), gauss.reshape(())
    f32 = xp.float32
    t = xp.abs(x)
    t *= f32(_AS_P * _INV_SQRT_2)
    t += f32(1.0)
    xp.divide(f32(1.0), t, out=t)       # the same rounded quotient as reciprocal, which NumPy runs ~2x slower
    poly = t * f32(-0.5 * _AS[-1])
    for c in _AS[-2::-1]:
        poly += f32(-0.5 * c)
        poly *= t
    gauss = xp.square(x)
    gauss *= f32(-0.5)
    xp.exp(gauss, out=gauss)
    poly *= gauss                  # -erfc(|x| / sqrt 2) / 2
    poly += f32(0.5)
    if xp is np:   # copysign on the bits: NumPy's copysign loop is ~4x slower than two integer passes
        bits, sign = poly.view(np.uint32), t.view(np.uint32)           # t is free now
        np.bitwise_and(x.view(np.uint32), np.uint32(0x80000000), out=sign)
        bits &= np.uint32(0x7FFFFFFF)
        bits |= sign
    else:
        xp.copysign(poly, x, out=poly)
    poly += f32(0.5)
    return poly, gauss


_F32_INV_SQRT_2 = np.float32(_INV_SQRT_2)
_F32_BETA = np.float32(_SQRT_2_OVER_PI)
_F32_KAPPA = np.float32(_TANH_COEF)
# PyTorch's vectorized float32 tanh (Sleef) returns +-1 exactly beyond |x| > 12.5 ln 2 (~8.6643), where the
# correctly rounded tanh is still an ulp or two inside: 1 + tanh is then 0 and GELU's far negative tail -0
_F32_TANH_SATURATES = np.float32(12.5 * math.log(2.0))


def _tanh_opmath(xp, v):
    """float32 tanh as PyTorch's vectorized kernels give it: correctly rounded, saturated beyond 12.5 ln 2."""
    t = f32_via_f64(xp, xp.tanh, v)
    with quiet():
        return xp.where(xp.abs(v) > _F32_TANH_SATURATES, xp.copysign(xp.float32(1.0), v), t)


def _gelu_opmath(xp, x, approximate):
    """GELU of float16/bfloat16 values (``x`` in float32) as PyTorch's CPU kernels compute it in float32 before
    rounding once: ``x * 0.5 * (1 + erf(x * f32(1/sqrt 2)))`` with its vectorized erf (``erf_opmath``), and
    ``0.5 * x * (1 + tanh(f32(sqrt(2/pi)) * (x + f32(0.044715) * (x * x * x))))`` (``_tanh_opmath``)."""
    f32 = xp.float32
    with quiet():
        if approximate == "tanh":
            inner = _F32_BETA * (x + _F32_KAPPA * (x * x * x))
            return f32(0.5) * x * (f32(1.0) + _tanh_opmath(xp, inner))
        return x * f32(0.5) * (f32(1.0) + erf_opmath(xp, x * _F32_INV_SQRT_2))


def _gelu_compute(spec, self, *, approximate: str = "none"):
    xp, x = _x(spec, self)
    d = spec.compute
    # float16 and the tanh form of bfloat16 (bfloat16's erf form: PyTorch takes its float32 path, which this one is)
    if d.is_reduced_float and (d.name == "float16" or approximate == "tanh"):
        return _gelu_opmath(xp, x, approximate)
    with quiet():
        if approximate == "tanh":
            return 0.5 * x * (1.0 + xp.tanh(_SQRT_2_OVER_PI * (x + _TANH_COEF * x * x * x)))
        if x.dtype == xp.float32:
            cdf, _ = _normal_cdf_f32(xp, x)
            cdf *= x
            return cdf
        return 0.5 * x * (1.0 + erf_array(xp, x * _INV_SQRT_2))


def _gelu_backward_meta(grad_output, self, *, approximate: str = "none") -> Spec:
    _check_approximate(approximate)
    spec = _float_only("GeluBackwardKernelImpl")(self)
    if tuple(grad_output._size) != tuple(self._size):
        size = broadcast_shapes(grad_output._size, self._size)
        if tuple(size) != tuple(self._size):
            raise RuntimeError(f"gelu_backward: grad_output size {fmt_shape(grad_output._size)} does not match "
                               f"input size {fmt_shape(self._size)}")
    return spec


def _gelu_backward_compute(spec, grad_output, self, *, approximate: str = "none"):
    xp, x = _x(spec, self)
    g = upcast(operand(grad_output, spec, xp), xp)
    with quiet():
        if approximate == "tanh":
            x2 = x * x
            inner = _SQRT_2_OVER_PI * (x + _TANH_COEF * x2 * x)
            t = xp.tanh(inner)
            dinner = _SQRT_2_OVER_PI * (1.0 + 3.0 * _TANH_COEF * x2)
            return g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * dinner)
        if x.dtype == xp.float32 and g.dtype == xp.float32:
            cdf, gauss = _normal_cdf_f32(xp, x)
            gauss *= xp.float32(_INV_SQRT_2PI)
            gauss *= x
            cdf += gauss
            cdf *= g
            return cdf
        cdf = 0.5 * (1.0 + erf_array(xp, x * _INV_SQRT_2))
        pdf = xp.exp(-0.5 * x * x) * _INV_SQRT_2PI
        return g * (cdf + x * pdf)


def _gelu_grad(g, a):
    return A.gelu_backward(g, a.self, approximate=a.approximate)


def _gelu_backward_grads():
    """Second derivative of gelu (for double backward): d/dx [g * gelu'(x)] = g * gelu''(x)."""
    def self_grad(gg, a):
        x = a.self
        if a.approximate == "tanh":
            x2 = x * x
            inner = (x + _TANH_COEF * x2 * x) * _SQRT_2_OVER_PI
            t = inner.tanh()
            sech2 = 1 - t * t
            dinner = (1 + 3 * _TANH_COEF * x2) * _SQRT_2_OVER_PI
            d2inner = x * (6 * _TANH_COEF * _SQRT_2_OVER_PI)
            second = sech2 * dinner + 0.5 * x * (sech2 * d2inner - 2 * t * sech2 * dinner * dinner)
        else:
            pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
            second = pdf * (2 - x * x)
        return gg * a.grad_output * second
    return {"grad_output": lambda gg, a: A.gelu_backward(gg, a.self, approximate=a.approximate),
            "self": self_grad}


gelu = Op(
    "gelu",
    """
    gelu(Tensor self, *, str approximate='none') -> Tensor  [core, pointwise]
    gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)  [pointwise]
    gelu_(Tensor(a!) self, *, str approximate='none') -> Tensor(a!)  [pointwise]
    """,
    meta=_gelu_meta, compute=_gelu_compute, elementwise=True,
    overrides={"privateuseone": f"{_DEVICE}:gelu_compute"},          # bfloat16: bf16.cu
    derivatives={"gelu": Deriv(save="self approximate", pointwise=True, self=_gelu_grad)},
    doc="""Gaussian error linear unit ``x * Phi(x)``; ``approximate="tanh"`` uses
    ``0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))``.

    >>> import openreg
    >>> openreg.ops.aten.gelu(openreg.tensor([1.0]), approximate="tanh").mul(1e4).round().item()
    8412.0
    """,
)

gelu_backward = Op(
    "gelu_backward",
    """
    gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor  [pointwise]
    gelu_backward.grad_input(Tensor grad_output, Tensor self, *, str approximate='none', Tensor(a!) grad_input) -> Tensor(a!)  [pointwise]
    """,
    meta=_gelu_backward_meta, compute=_gelu_backward_compute, elementwise=True,
    overrides={"privateuseone": f"{_DEVICE}:gelu_backward_compute"},
    derivatives={"gelu_backward": Deriv(save="grad_output self approximate", pointwise=True,
                                        **_gelu_backward_grads())},
    function=False, method=False,
    doc="""``grad_output * gelu'(self)``: the gradient of ``gelu``.

    >>> import openreg
    >>> openreg.ops.aten.gelu_backward(openreg.ones(1), openreg.zeros(1)).tolist()
    [0.5]
    """,
)


# -- silu, softplus ----------------------------------------------------------------------------------------

def _silu_compute(spec, self):
    xp, x = _x(spec, self)
    with quiet():
        if spec.compute.is_reduced_float:
            # PyTorch's float16/bfloat16 kernel: x / (1 + exp(-x)) in float32 (its exp within an ulp: float64's
            # rounded, where NumPy's float32 exp can be an ulp off and move the 16-bit rounding)
            return x / (xp.float32(1.0) + f32_via_f64(xp, xp.exp, -x))
        return x / (1.0 + xp.exp(-x))


def _silu_grad(g, a):
    """``g * s * (1 + x * (1 - s))`` with ``s = sigmoid(x)``: the fused ``silu_backward`` where it rounds as the
    separate ops do (float32/float64, one dtype and size), the ops otherwise (half precision rounds after each)."""
    x = a.self
    if g._dtype is x._dtype and x._dtype in _SAME_ROUNDING and g._size == x._size:
        return A.silu_backward(g, x)
    s = x.sigmoid()
    return g * s * (1 + x * (1 - s))


def _silu_backward_meta(grad_output, self) -> Spec:
    spec = _float_only("silu_backward")(self)
    if tuple(broadcast_shapes(grad_output._size, self._size)) != tuple(self._size):
        raise RuntimeError(f"silu_backward: grad_output size {fmt_shape(grad_output._size)} does not match input "
                           f"size {fmt_shape(self._size)}")
    return spec


def _silu_backward_compute(spec, grad_output, self):
    xp, x = _x(spec, self)
    g = upcast(operand(grad_output, spec, xp), xp)
    with quiet():
        s = 1 / (1 + xp.exp(-x))             # sigmoid's own formula: bitwise the separate ops' result
        return g * s * (1 + x * (1 - s))


def _silu_second(gg, a):
    """d/dx [g * silu'(x)] = g * s * (1 - s) * (2 + x * (1 - 2 * s))."""
    x = a.self
    s = x.sigmoid()
    return gg * a.grad_output * s * (1 - s) * (2 + x * (1 - 2 * s))


silu = Op(
    "silu",
    """
    silu(Tensor self) -> Tensor  [core, pointwise]
    silu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    silu_(Tensor(a!) self) -> Tensor(a!)  [pointwise]
    """,
    meta=_float_only("silu"), compute=_silu_compute, elementwise=True,
    derivatives={"silu": Deriv(save="self", pointwise=True, self=_silu_grad)},
    function=False, method=False,
    doc="""``x * sigmoid(x)`` (swish).

    >>> import openreg
    >>> openreg.ops.aten.silu(openreg.zeros(2)).tolist()
    [0.0, 0.0]
    """,
)


silu_backward = Op(
    "silu_backward",
    """
    silu_backward.grad_input(Tensor grad_output, Tensor self, *, Tensor(a!) grad_input) -> Tensor(a!)  [pointwise]
    silu_backward(Tensor grad_output, Tensor self) -> Tensor  [pointwise]
    """,
    meta=_silu_backward_meta, compute=_silu_backward_compute, elementwise=True,
    derivatives={"silu_backward": Deriv(save="grad_output self", pointwise=True,
                                        grad_output=lambda gg, a: A.silu_backward(gg, a.self), self=_silu_second)},
    function=False, method=False,
    doc="""``grad_output * silu'(self)``: the gradient of ``silu`` in one pass.

    >>> import openreg
    >>> openreg.ops.aten.silu_backward(openreg.ones(1), openreg.zeros(1)).tolist()
    [0.5]
    """,
)


def _softplus_compute(spec, self, beta=1, threshold=20):
    xp, x = _x(spec, self)
    with quiet():
        bx = x * beta
        return select(xp, bx > threshold, x, xp.log1p(xp.exp(xp.minimum(bx, threshold))) / beta)


def _softplus_grad(g, a):
    bx = a.self * a.beta
    return g * A.where__ScalarSelf(bx > a.threshold, 1.0, bx.sigmoid())


softplus = Op(
    "softplus",
    """
    softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor  [pointwise]
    softplus.out(Tensor self, Scalar beta=1, Scalar threshold=20, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    """,
    meta=_float_only("softplus"), compute=_softplus_compute, elementwise=True,
    derivatives={"softplus": Deriv(save="self beta threshold", pointwise=True, self=_softplus_grad)},
    function=False, method=False,
    doc="""``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``.

    >>> import openreg
    >>> openreg.ops.aten.softplus(openreg.tensor([30.0]), 1, 20).tolist()
    [30.0]
    """,
)


# -- leaky_relu, elu: their gradients read the result, so the in-place variants keep working -----------------

def _leaky_relu_compute(spec, self, negative_slope=0.01):
    xp, x = _x(spec, self)
    return select(xp, x > 0, x, x * negative_slope)



def _leaky_relu_grad(g, a):
    return A.where__self(a.result > 0, g, g * float(a.negative_slope))


leaky_relu = Op(
    "leaky_relu",
    """
    leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor  [core, pointwise]
    leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)  [pointwise]
    """,
    meta=_float_only("leaky_relu"), compute=_leaky_relu_compute, elementwise=True,
    derivatives={"leaky_relu": Deriv(save="result negative_slope", pointwise=True,
                                     self=_leaky_relu_grad)},
    function=False, method=False,
    doc="""``x`` where positive, ``negative_slope * x`` elsewhere.

    >>> import openreg
    >>> openreg.ops.aten.leaky_relu(openreg.tensor([-2.0, 1.0]), 0.5).tolist()
    [-1.0, 1.0]
    """,
)


def _elu_compute(spec, self, alpha=1, scale=1, input_scale=1):
    xp, x = _x(spec, self)
    with quiet():
        if spec.compute.is_reduced_float:
            # PyTorch's float16/bfloat16 kernel: the parameters in float32, alpha * scale multiplied in float32,
            # expm1 in float32 (float64's rounded), one rounding to 16 bits
            f32 = xp.float32
            neg = f32(alpha) * f32(scale)
            return select(xp, x >= 0, x * f32(scale), f32_via_f64(xp, xp.expm1, x * f32(input_scale)) * neg)
        return select(xp, x > 0, x * scale, xp.expm1(xp.minimum(x, 0) * input_scale) * (alpha * scale))


def _elu_grad(g, a):
    neg = (a.result + float(a.alpha) * float(a.scale)) * float(a.input_scale)
    return g * A.where__ScalarSelf(a.result > 0, float(a.scale), neg)


elu = Op(
    "elu",
    """
    elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor  [core, pointwise]
    elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)  [pointwise]
    """,
    meta=_float_only("elu"), compute=_elu_compute, elementwise=True,
    derivatives={"elu": Deriv(save="result alpha scale input_scale", pointwise=True, self=_elu_grad)},
    function=False, method=False,
    doc="""``scale * x`` where positive, ``alpha * scale * (exp(input_scale * x) - 1)`` elsewhere.

    >>> import openreg
    >>> openreg.ops.aten.elu(openreg.tensor([0.0, 2.0])).tolist()
    [0.0, 2.0]
    """,
)

register(gelu, gelu_backward, silu, silu_backward, softplus, leaky_relu, elu)
