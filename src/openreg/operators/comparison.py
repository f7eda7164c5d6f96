"""Comparisons (``eq ne lt le gt ge`` and ``== != < <= > >=``), bitwise (``bitwise_and/or/xor``, ``& | ^``) and
logical (``logical_and/or/xor``) operators.

>>> import openreg
>>> x = openreg.tensor([1, 2, 3])
>>> (x > 1).tolist(), (x & 2).tolist(), openreg.logical_xor(x, openreg.tensor([0, 2, 0])).tolist()
([False, True, True], [0, 2, 2], [True, False, True])
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..aten.meta_rules import Spec, scalar_type_name
from ._compute import pair
from ._pointwise import binary_spec, check_tensor, is_integral
from ._record import NONDIFF, Deriv, Op, register
from ._scalars import binary_operator, reflected_operator

_DEVICE = "openreg.backends.privateuseone.device_ops"


def _ufunc(name: str):
    def compute(spec, self, other):
        xp, a, b = pair(spec, self, other)
        return getattr(xp, name)(a, b)
    compute.__name__ = name
    return compute


def _tensor_scalar_schemas(name: str, inplace_tags: str) -> str:
    return f"""
    {name}.Scalar(Tensor self, Scalar other) -> Tensor  [core, pointwise]
    {name}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    {name}.Tensor(Tensor self, Tensor other) -> Tensor  [core, pointwise]
    {name}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    {name}_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)  [{inplace_tags}]
    {name}_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  [{inplace_tags}]
    """


def _doc(name: str, result: str, example: str = "openreg.tensor([1, 2, 3]), 2") -> str:
    return (f"Elementwise ``{name}``.\n\n>>> import openreg\n>>> openreg.{name}({example}).tolist()\n{result}\n")


# -- comparisons ------------------------------------------------------------------------------------------

def _compare_meta(op: str):
    ordered = op not in ("eq", "ne")

    def meta(self, other) -> Spec:
        spec = binary_spec(op, self, other, _dt.bool)
        if ordered and spec.compute.is_complex:
            raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{scalar_type_name(spec.compute)}'")
        return spec
    return meta


def _compare(name: str, ufunc: str, operator: str, alias: str | None, result: str) -> Op:
    aliases = {alias: name} if alias else {}
    # Boolean results are not differentiable (a direct autograd kernel instead of the boxed fallback); in-place
    # on a float tensor gives self a zero gradient.
    return Op(
        name, _tensor_scalar_schemas(name, ""), meta=_compare_meta(name), compute=_ufunc(ufunc), ufunc=ufunc,
        elementwise=True, scalar_types=True,
        overrides={"privateuseone": f"{_DEVICE}:{name}_compute"},   # bfloat16: bf16.cu, no float32 copies
        derivatives={f"{name}.Scalar": NONDIFF, f"{name}.Tensor": NONDIFF,
                     f"{name}_.Scalar": Deriv(name=f"{name.capitalize()}Backward0", self=lambda g, a: None, jvp={}),
                     f"{name}_.Tensor": Deriv(name=f"{name.capitalize()}Backward1", self=lambda g, a: None, jvp={})},
        extra_functions=aliases,
        extra_methods={**aliases, operator: binary_operator(f"{name}__Tensor", f"{name}__Scalar")},
        doc=_doc(name, result))


eq = _compare("eq", "equal", "__eq__", None, "[False, True, False]")
ne = _compare("ne", "not_equal", "__ne__", "not_equal", "[True, False, True]")
lt = _compare("lt", "less", "__lt__", "less", "[True, False, False]")
le = _compare("le", "less_equal", "__le__", "less_equal", "[True, True, False]")
gt = _compare("gt", "greater", "__gt__", "greater", "[False, False, True]")
ge = _compare("ge", "greater_equal", "__ge__", "greater_equal", "[False, True, True]")


# -- bitwise ----------------------------------------------------------------------------------------------

def _bitwise_meta(op: str):
    def meta(self, other) -> Spec:
        spec = binary_spec(op, self, other)
        if not is_integral(spec.compute):
            raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{scalar_type_name(spec.compute)}'")
        return spec
    return meta


def _bitwise(name: str, operator: str, result: str) -> Op:
    return Op(
        name, _tensor_scalar_schemas(name, "pointwise"), meta=_bitwise_meta(name), compute=_ufunc(name),
        elementwise=True,
        extra_methods={f"__{operator}__": binary_operator(f"{name}__Tensor", f"{name}__Scalar"),
                       f"__r{operator}__": reflected_operator(f"{name}__Scalar"),
                       f"__i{operator}__": binary_operator(f"{name}___Tensor", f"{name}___Scalar")},
        doc=_doc(name, result))


bitwise_and = _bitwise("bitwise_and", "and", "[0, 2, 2]")
bitwise_or = _bitwise("bitwise_or", "or", "[3, 2, 3]")
bitwise_xor = _bitwise("bitwise_xor", "xor", "[3, 0, 1]")


# -- logical ----------------------------------------------------------------------------------------------

def _logical_meta(op: str):
    def meta(self, other) -> Spec:
        check_tensor(op, "other", other)
        return binary_spec(op, self, other, _dt.bool)
    return meta


def _logical(name: str, result: str) -> Op:
    return Op(
        name,
        f"""
        {name}(Tensor self, Tensor other) -> Tensor  [core, pointwise]
        {name}_(Tensor(a!) self, Tensor other) -> Tensor(a!)  [pointwise]
        {name}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
        """,
        meta=_logical_meta(name), compute=_ufunc(name), elementwise=True,
        doc=_doc(name, result, "openreg.tensor([0, 1, 2]), openreg.tensor([1, 1, 0])"))


logical_and = _logical("logical_and", "[False, True, False]")
logical_or = _logical("logical_or", "[True, True, True]")
logical_xor = _logical("logical_xor", "[True, False, True]")

register(eq, ne, lt, le, gt, ge, bitwise_and, bitwise_or, bitwise_xor, logical_and, logical_or, logical_xor)
