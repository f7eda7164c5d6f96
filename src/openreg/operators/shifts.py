"""Bit shifts: ``bitwise_left_shift``/``bitwise_right_shift`` (``<<``, ``>>``, ``<<=``, ``>>=``) on integer tensors.

As PyTorch's kernels: a left shift by a negative amount or by at least the type's width gives 0 (bits shifted out
are dropped, signed values wrap); a right shift by a negative amount or by the width or more fills with the sign
bit (0 or -1 for signed types, 0 for unsigned).

>>> import openreg
>>> x = openreg.tensor([1, -8, 100], dtype=openreg.int8)
>>> (x << 3).tolist(), (x >> 1).tolist(), openreg.bitwise_right_shift(x, 9).tolist()
([8, -64, 32], [0, -4, 50], [0, -1, 0])
"""
from __future__ import annotations

from .._dispatch.ops import A
from ..aten.meta_rules import Spec, scalar_type_name
from ..tensor import TensorBase
from ._compute import pair
from ._pointwise import binary_spec, check_tensor, is_integral
from ._record import NONDIFF, Op, register
from ._scalars import as_tensor_operand, check_input, is_number, python_operators


def _meta(kernel: str):
    def meta(self, other) -> Spec:
        spec = binary_spec(kernel, self, other)
        if not is_integral(spec.compute) or spec.compute.name == "bool":
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{scalar_type_name(spec.compute)}'")
        return spec
    return meta


def _scalar_tensor_meta(kernel: str):
    def meta(self, other) -> Spec:
        check_tensor(kernel, "other", other)
        return _meta(kernel)(other, self)
    return meta


def _lshift(spec, self, other):
    xp, a, b = pair(spec, self, other)
    bits = a.dtype.itemsize * 8
    out_of_range = (b < 0) | (b >= bits)
    shifted = xp.left_shift(a, xp.where(out_of_range, 0, b).astype(a.dtype))
    return xp.where(out_of_range, xp.zeros((), a.dtype), shifted)


def _rshift(spec, self, other):
    xp, a, b = pair(spec, self, other)
    widest = a.dtype.itemsize * 8 - (1 if a.dtype.kind == "i" else 0)
    if a.dtype.kind == "u":      # unsigned: everything shifted out is 0
        out_of_range = (b < 0) | (b >= widest)
        return xp.where(out_of_range, xp.zeros((), a.dtype), xp.right_shift(a, xp.where(out_of_range, 0, b)
                                                                            .astype(a.dtype)))
    amount = xp.where((b < 0) | (b >= widest), widest, b).astype(a.dtype)
    return xp.right_shift(a, amount)


def _function(name: str):
    def fn(input, other, *, out=None):
        if not isinstance(input, TensorBase):
            if isinstance(other, TensorBase) and is_number(input) and out is None:
                return getattr(A, f"{name}__Scalar_Tensor")(input, other)
            if isinstance(other, TensorBase) and is_number(input):
                input = as_tensor_operand(input, other)
            else:
                check_input(name, input)
        if out is not None:
            other = as_tensor_operand(other, input) if is_number(other) else other
            return getattr(A, f"{name}__Tensor_out")(input, other, out=out)
        if isinstance(other, TensorBase):
            return getattr(A, f"{name}__Tensor")(input, other)
        return getattr(A, f"{name}__Tensor_Scalar")(input, other)
    fn.__name__ = name
    fn.__doc__ = f"""``input {'<<' if 'left' in name else '>>'} other`` elementwise on integer tensors (either may be a
    number).

    >>> import openreg
    >>> openreg.{name}(openreg.tensor([16, -16]), 2).tolist()
    {[64, -64] if 'left' in name else [4, -4]}
    """
    return fn


def _shift(name: str, kernel: str, symbol: str, compute, doc: str) -> Op:
    def reflected(self, other):
        return getattr(A, f"{name}__Scalar_Tensor")(other, self) if is_number(other) else NotImplemented

    return Op(
        name, f"""
        {name}.Tensor(Tensor self, Tensor other) -> Tensor  [pointwise]
        {name}_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
        {name}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
        {name}.Tensor_Scalar(Tensor self, Scalar other) -> Tensor  [pointwise]
        {name}_.Tensor_Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)  [pointwise]
        {name}.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
        {name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor  [pointwise]
        """,
        meta={f"{name}.Tensor": _meta(kernel), f"{name}.Tensor_Scalar": _meta(kernel),
              f"{name}.Scalar_Tensor": _scalar_tensor_meta(kernel)},
        compute=compute, elementwise=True,
        derivatives={f"{name}.Tensor": NONDIFF, f"{name}.Tensor_Scalar": NONDIFF, f"{name}.Scalar_Tensor": NONDIFF},
        function=_function(name),
        extra_methods=python_operators(symbol, (f"{name}__Tensor", f"{name}__Tensor_Scalar"),
                                       (f"{name}___Tensor", f"{name}___Tensor_Scalar"), reflected),
        doc=doc)


bitwise_left_shift = _shift("bitwise_left_shift", "lshift", "lshift", _lshift, """Elementwise ``self << other``.

    >>> import openreg
    >>> openreg.tensor([1, 2, 3]).bitwise_left_shift(2).tolist()
    [4, 8, 12]
    """)
bitwise_right_shift = _shift("bitwise_right_shift", "rshift", "rshift", _rshift, """Elementwise ``self >> other``.

    >>> import openreg
    >>> openreg.tensor([4, 8, -12]).bitwise_right_shift(2).tolist()
    [1, 2, -3]
    """)

register(bitwise_left_shift, bitwise_right_shift)
