"""Matrix products: PyTorch schemas and meta functions of mm, bmm, addmm and dot (structured ops).

``matmul`` and ``outer`` are CompositeImplicitAutograd decompositions (``composite_math.py``).

>>> import openreg
>>> openreg.ops.aten.mm.default(openreg.ones(2, 3, device="meta"), openreg.ones(3, 4, device="meta")).shape
openreg.Size([2, 4])
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.tags import Tag
from .meta_rules import Spec, broadcast_shapes, common_device, fmt_shape, scalar_type_name
from .structured_ops import register

C = Tag.core

SCHEMAS = [
    ("mm(Tensor self, Tensor mat2) -> Tensor", (C,)),
    ("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("bmm(Tensor self, Tensor mat2) -> Tensor", (C,)),
    ("bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", (C,)),
    (("addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) "
     "-> Tensor(a!)"), ()),
    ("addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)", ()),
    ("dot(Tensor self, Tensor tensor) -> Tensor", ()),
    ("dot.out(Tensor self, Tensor tensor, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("matmul(Tensor self, Tensor other) -> Tensor", ()),
    ("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", ()),
    ("outer(Tensor self, Tensor vec2) -> Tensor", ()),
    ("outer.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)", ()),
]


_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _dtype_name(d) -> str:
    return scalar_type_name(d)


def _cpp_name(d) -> str:
    """The C++ element type name PyTorch's matmul dtype errors use (``float``, ``long int``)."""
    return _CPP_NAMES.get(d.name, d.name)


def _check_matmul_dtype(a, b, kernel: str = "addmm_impl_cpu_") -> None:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cpp_name(a._dtype)} != "
                           f"{_cpp_name(b._dtype)}")
    if a._dtype is _dt.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


@register("mm", "mm.out", None)
def mm_meta(self, mat2) -> Spec:
    dev = common_device("mm", self, mat2)
    if self.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self._size[1] != mat2._size[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({self._size[0]}x{self._size[1]} and "
                           f"{mat2._size[0]}x{mat2._size[1]})")
    _check_matmul_dtype(self, mat2)
    return Spec((self._size[0], mat2._size[1]), self._dtype, dev)


@register("bmm", "bmm.out", None)
def bmm_meta(self, mat2) -> Spec:
    dev = common_device("bmm", self, mat2)
    if self.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, m = self._size
    if mat2._size[0] != b or mat2._size[1] != m:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{mat2._size[0]}, {mat2._size[1]}].")
    _check_matmul_dtype(self, mat2, "bmm")
    return Spec((b, n, mat2._size[2]), self._dtype, dev)


def addmm_meta(self, mat1, mat2, *, beta=1, alpha=1) -> Spec:
    dev = common_device("addmm", self, mat1, mat2)
    if mat1.dim() != 2:
        raise RuntimeError("mat1 must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if mat1._size[1] != mat2._size[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1._size[0]}x{mat1._size[1]} and "
                           f"{mat2._size[0]}x{mat2._size[1]})")
    _check_matmul_dtype(mat1, mat2)
    if self._dtype is not mat1._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_dtype_name(self._dtype)} and "
                           f"{_dtype_name(mat2._dtype)}")
    size = (mat1._size[0], mat2._size[1])
    if broadcast_shapes(self._size, size) != size:
        raise RuntimeError(f"The expanded size of the tensor must match the existing size: self of shape "
                           f"{fmt_shape(self._size)} cannot be broadcast to the result shape {fmt_shape(size)}")
    return Spec(size, mat1._dtype, dev)


register("addmm", "addmm.out", "addmm_")(addmm_meta)


@register("dot", "dot.out", None)
def dot_meta(self, tensor) -> Spec:
    dev = common_device("dot", self, tensor)
    if self.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {tensor.dim()}D tensors")
    if self._dtype is not tensor._dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_dtype_name(self._dtype)} "
                           f"and {_dtype_name(tensor._dtype)}")
    if self._size[0] != tensor._size[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{self._size[0]}] and src "
                           f"[{tensor._size[0]}] to have the same number of elements, but got {self._size[0]} "
                           f"and {tensor._size[0]} elements respectively")
    if self._dtype is _dt.bool:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    return Spec((), self._dtype, dev)
