"""The fused pointwise updates: ``addcmul`` (``self + value * tensor1 * tensor2``), ``addcdiv``
(``self + value * tensor1 / tensor2``) and ``lerp`` (``self + weight * (end - self)``), with their in-place and
``out=`` forms.

Hand-written optimizers (Adam, RMSprop, AdaGrad copies in countless repositories) and EMA updates call them;
PyTorch's older argument order ``addcmul_(value, tensor1, tensor2)`` is accepted with its deprecation warning.
float16 and bfloat16 are computed in float32 and rounded once; ``lerp`` is float-only and evaluates from the
nearer end as PyTorch's kernel does.

>>> import openreg
>>> s, a, b = openreg.ones(2), openreg.tensor([1.0, 2.0]), openreg.tensor([4.0, 8.0])
>>> openreg.addcmul(s, a, b, value=0.5).tolist(), openreg.addcdiv(s, a, b).tolist()
([3.0, 9.0], [1.25, 1.25])
>>> openreg.lerp(openreg.zeros(2), b, 0.25).tolist()
[1.0, 2.0]
"""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from .._dispatch.ops import A
from .._quiet import quiet
from ..aten.meta_rules import Spec, broadcast_shapes, common_device, scalar_type_name
from ..tensor import TensorBase as Tensor
from ._compute import operand, upcast, xp_of
from ._pointwise import check_tensor, promote
from ._record import Deriv, Op, register
from .metadata import cpp_type_name

_ADDCDIV_INT = ("Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform "
                "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
                "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
                "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")


# -- addcmul, addcdiv ------------------------------------------------------------------------------------

def _addc_meta(name: str):
    def meta(self, tensor1, tensor2, value=1) -> Spec:
        check_tensor(name, "tensor1", tensor1)
        check_tensor(name, "tensor2", tensor2)
        dev = common_device(name, self, tensor1, tensor2)
        size = broadcast_shapes(self._size, tensor1._size, tensor2._size)
        dtype = promote(self, tensor1, tensor2)
        if dtype is _dt.bool:
            raise NotImplementedError(f"\"{name}_cpu_out\" not implemented for 'Bool'")
        if name == "addcdiv" and (not (dtype.is_floating_point or dtype.is_complex) or
                                  (tensor1._dtype.category <= _dt.INTEGRAL and
                                   tensor2._dtype.category <= _dt.INTEGRAL)):
            raise RuntimeError(_ADDCDIV_INT)     # PyTorch: integral tensor1 and tensor2, whatever input is
        return Spec(size, dtype, dev)
    return meta


def _operands(spec, *tensors):
    xp = xp_of(tensors[0])
    return xp, [upcast(operand(t, spec, xp), xp) for t in tensors]


def _fma(xp, x, y, z):
    """``x * y + z`` in float32 with one rounding (a fused multiply-add: float32 products are exact in float64),
    as PyTorch's vectorized float16/bfloat16 kernels compute ``lerp`` and ``addcmul`` before rounding to 16 bits."""
    f64 = xp.float64
    return (x.astype(f64) * y.astype(f64) + z.astype(f64)).astype(xp.float32)


def _addcmul(spec, self, tensor1, tensor2, value=1):
    xp, (s, a, b) = _operands(spec, self, tensor1, tensor2)
    with quiet():
        if spec.compute.is_reduced_float:
            return _fma(xp, xp.asarray(value).astype(a.dtype) * a, b, s)
        return s + xp.asarray(value).astype(a.dtype) * a * b


def _addcdiv(spec, self, tensor1, tensor2, value=1):
    xp, (s, a, b) = _operands(spec, self, tensor1, tensor2)
    with quiet():
        return s + xp.asarray(value).astype(a.dtype) * a / b


def _value_times(g, value):
    return g if value == 1 else g * value


def _addc_schemas(name: str) -> str:
    return f"""
    {name}(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor  [pointwise]
    {name}.out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    {name}_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)  [pointwise]
    """


def _deprecated_value_first(name: str, args: tuple, tensor1, tensor2, value):
    """``(value, tensor1, tensor2)`` given positionally (PyTorch's deprecated order) as ``(tensor1, tensor2, value)``."""
    if not args:
        return tensor1, tensor2, value
    if len(args) != 1 or isinstance(tensor1, Tensor):
        raise TypeError(f"{name}() takes 3 positional arguments but {3 + len(args)} were given")
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}(Number value, Tensor tensor1, Tensor tensor2)"
                  f"\nConsider using one of the following signatures instead:\n\t{name}(Tensor tensor1, Tensor "
                  "tensor2, *, Number value = 1)", UserWarning, stacklevel=3)
    return tensor2, args[0], tensor1


def _addc_variants(name: str):
    functional, out_overload, inplace = (f"{name}", f"{name}__out", f"{name}_")

    def function(input: Tensor, tensor1, tensor2, *args, value=1, out: Tensor | None = None) -> Tensor:
        tensor1, tensor2, value = _deprecated_value_first(name, args, tensor1, tensor2, value)
        if out is not None:
            return getattr(A, out_overload)(input, tensor1, tensor2, value=value, out=out)
        return getattr(A, functional)(input, tensor1, tensor2, value=value)

    def method(self, tensor1, tensor2, *args, value=1) -> Tensor:
        tensor1, tensor2, value = _deprecated_value_first(name, args, tensor1, tensor2, value)
        return getattr(A, functional)(self, tensor1, tensor2, value=value)

    def method_(self, tensor1, tensor2, *args, value=1) -> Tensor:
        tensor1, tensor2, value = _deprecated_value_first(name + "_", args, tensor1, tensor2, value)
        return getattr(A, inplace)(self, tensor1, tensor2, value=value)

    function.__name__ = function.__qualname__ = name
    method.__name__ = method.__qualname__ = name
    method_.__name__ = method_.__qualname__ = name + "_"
    return function, {name: method, name + "_": method_}


_addcmul_function, _addcmul_methods = _addc_variants("addcmul")
_addcdiv_function, _addcdiv_methods = _addc_variants("addcdiv")
_addcmul_function.__doc__ = """``input + value * tensor1 * tensor2`` (broadcast together).

    >>> import openreg
    >>> openreg.addcmul(openreg.zeros(2), openreg.tensor([1.0, 2.0]), openreg.tensor([3.0, 4.0]), value=2).tolist()
    [6.0, 16.0]
    """
_addcdiv_function.__doc__ = """``input + value * tensor1 / tensor2`` (broadcast together; floating types only).

    >>> import openreg
    >>> openreg.addcdiv(openreg.ones(2), openreg.tensor([1.0, 3.0]), openreg.tensor([2.0, 4.0])).tolist()
    [1.5, 1.75]
    """

addcmul = Op(
    "addcmul", _addc_schemas("addcmul"), meta=_addc_meta("addcmul"), compute=_addcmul, elementwise=True,
    derivatives={"addcmul": Deriv(save="tensor1 tensor2 value", pointwise=True, self=lambda g, a: g,
                                  tensor1=lambda g, a: _value_times(g * a.tensor2, a.value),
                                  tensor2=lambda g, a: _value_times(g * a.tensor1, a.value))},
    function=_addcmul_function, method=False, extra_methods=_addcmul_methods)

addcdiv = Op(
    "addcdiv", _addc_schemas("addcdiv"), meta=_addc_meta("addcdiv"), compute=_addcdiv, elementwise=True,
    derivatives={"addcdiv": Deriv(save="tensor1 tensor2 value", pointwise=True, self=lambda g, a: g,
                                  tensor1=lambda g, a: _value_times(g / a.tensor2, a.value),
                                  tensor2=lambda g, a: -_value_times(g * a.tensor1 / (a.tensor2 * a.tensor2),
                                                                     a.value))},
    function=_addcdiv_function, method=False, extra_methods=_addcdiv_methods)


# -- lerp ------------------------------------------------------------------------------------------------

def _lerp_meta(self, end, weight) -> Spec:
    check_tensor("lerp", "end", end)
    if end._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {cpp_type_name(self._dtype)} for `end` but got dtype "
                           f"{cpp_type_name(end._dtype)}")
    tensors = [self, end]
    if isinstance(weight, Tensor):
        if weight._dtype is not self._dtype and weight.dim() > 0:
            raise RuntimeError(f"expected dtype {cpp_type_name(self._dtype)} for `weight` but got dtype "
                               f"{cpp_type_name(weight._dtype)}")
        tensors.append(weight)
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(self._dtype)}'")
    dev = common_device("lerp", *tensors)
    size = broadcast_shapes(*(t._size for t in tensors))
    return Spec(size, self._dtype, dev)


def _lerp(spec, self, end, weight):
    xp, (s, e) = _operands(spec, self, end)
    w = upcast(operand(weight, spec, xp), xp) if isinstance(weight, Tensor) else xp.asarray(weight).astype(s.dtype)
    with quiet():
        diff = e - s
        if spec.compute.is_reduced_float:
            return xp.where(xp.abs(w) < 0.5, _fma(xp, w, diff, s), _fma(xp, -diff, 1 - w, e))
        return xp.where(xp.abs(w) < 0.5, s + w * diff, e - diff * (1 - w))


lerp = Op(
    "lerp",
    """
    lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor  [pointwise]
    lerp.Scalar_out(Tensor self, Tensor end, Scalar weight, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)  [pointwise]
    lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor  [pointwise]
    lerp.Tensor_out(Tensor self, Tensor end, Tensor weight, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)  [pointwise]
    """,
    meta=_lerp_meta, compute=_lerp, elementwise=True,
    derivatives={
        "lerp.Scalar": Deriv(save="weight", pointwise=True, self=lambda g, a: g * (1 - a.weight),
                             end=lambda g, a: g * a.weight),
        "lerp.Tensor": Deriv(save="self end weight", pointwise=True, self=lambda g, a: g * (1 - a.weight),
                             end=lambda g, a: g * a.weight, weight=lambda g, a: g * (a.end - a.self))},
    doc="""``input + weight * (end - input)`` (``weight`` a number or a tensor, broadcast together).

    >>> import openreg
    >>> openreg.lerp(openreg.zeros(2), openreg.tensor([4.0, 8.0]), openreg.tensor([0.5, 0.25])).tolist()
    [2.0, 2.0]
    """)

register(addcmul, addcdiv, lerp)
