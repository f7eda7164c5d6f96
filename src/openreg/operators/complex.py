"""Complex numbers: the views between a complex tensor and its real pairs (``view_as_real``,
``view_as_complex``, ``real``, ``imag``), building complex tensors (``complex``, ``polar``), ``conj_physical``,
``conj`` and ``angle``.

``view_as_real`` and ``view_as_complex`` share the storage of their input (a complex element is two reals: the
last dimension of size 2 holds the real and imaginary parts), so writes through either are seen by the other,
and gradients flow through them as in PyTorch: the gradient of a real input of a complex-valued computation is
the real part of what reaches it (PyTorch's convention, ``grad = dL/dRe + i dL/dIm``).

>>> import openreg
>>> z = openreg.tensor([1 + 2j, 3 - 1j])
>>> r = openreg.view_as_real(z)
>>> r.tolist(), r.untyped_storage().data_ptr() == z.untyped_storage().data_ptr()
([[1.0, 2.0], [3.0, -1.0]], True)
>>> _ = r[0, 1].fill_(5.0)
>>> z.imag.tolist()
[5.0, -1.0]
"""
from __future__ import annotations

import math

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, broadcast_shapes, common_device, scalar_type_name
from ..tensor import Size
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._compute import operand, quiet, xp_of
from ._pointwise import check_tensor
from ._record import Deriv, Op, register

CEA, CIA = "CompositeExplicitAutograd", "CompositeImplicitAutograd"
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


def _reinterpret(self: Tensor, size, stride, offset: int, dtype) -> Tensor:
    """A view of ``self``'s storage with another dtype (same storage, version counter and base)."""
    base = self._base if self._base is not None else self
    return Tensor._make(self._storage, Size(size), tuple(stride), offset, dtype, self._vc, base)


# -- view_as_real / view_as_complex -------------------------------------------------------------------------
def view_as_real(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return _reinterpret(self, tuple(self._size) + (2,), tuple(s * 2 for s in self._stride) + (1,),
                        self._offset * 2, self._dtype.to_real())


def view_as_complex(self: Tensor) -> Tensor:
    d = self._dtype
    if d.name not in _COMPLEX_OF:
        if d is _dt.float16:
            raise TypeError("view_as_complex of a float16 tensor (complex32) is not supported by openreg")
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {scalar_type_name(d)}")
    size, stride = tuple(self._size), tuple(self._stride)
    if not size:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if size[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return _reinterpret(self, size[:-1], tuple(s // 2 for s in stride[:-1]), self._offset // 2,
                        getattr(_dt, _COMPLEX_OF[d.name]))


view_as_real_op = Op(
    "view_as_real", "view_as_real(Tensor(a) self) -> Tensor(a)",
    kernels={"view_as_real": {CEA: view_as_real}},
    derivatives={"view_as_real": Deriv(linear=True, self=lambda g, a: A.view_as_complex(g.contiguous()))},
    method=False,
    doc="""A real view of a complex tensor: a new last dimension of size 2 holds the real and imaginary parts.

    The result shares the input's storage (writes through it change the complex tensor).

    >>> import openreg
    >>> openreg.view_as_real(openreg.tensor([1 + 2j])).tolist()
    [[1.0, 2.0]]
    """)
view_as_complex_op = Op(
    "view_as_complex", "view_as_complex(Tensor(a) self) -> Tensor(a)",
    kernels={"view_as_complex": {CEA: view_as_complex}},
    derivatives={"view_as_complex": Deriv(linear=True, self=lambda g, a: A.view_as_real(g))},
    method=False,
    doc="""A complex view of a float32/float64 tensor whose last dimension (size 2, stride 1) holds the real and
    imaginary parts; complex64 from float32, complex128 from float64. Shares the input's storage.

    >>> import openreg
    >>> openreg.view_as_complex(openreg.tensor([[1.0, 2.0], [3.0, -1.0]])).tolist()
    [(1+2j), (3-1j)]
    """)


# -- real / imag (views; Tensor.real / Tensor.imag are settable properties) ----------------------------------
def real(self: Tensor) -> Tensor:
    if self._dtype.is_complex:
        return A.select__int(A.view_as_real(self), -1, 0)
    return self


def imag(self: Tensor) -> Tensor:
    if self._dtype.is_complex:
        return A.select__int(A.view_as_real(self), -1, 1)
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _part_property(name: str):
    def get(self):
        return getattr(A, name)(self)

    def set_(self, value):
        part = getattr(A, name)(self)
        if isinstance(value, Tensor):
            part.copy_(value)
        else:
            part.fill_(value)

    return property(get, set_, doc=f"The {name} part of the tensor as a view (assignable).")


real_op = Op(
    "real", "real(Tensor(a) self) -> Tensor(a)", kernels={"real": {CIA: real}}, method=False,
    extra_methods={"real": _part_property("real")},
    doc="""The real part of a complex tensor as a view sharing its storage; a real tensor itself.

    >>> import openreg
    >>> openreg.real(openreg.tensor([1 + 2j, 3 - 1j])).tolist()
    [1.0, 3.0]
    """)
imag_op = Op(
    "imag", "imag(Tensor(a) self) -> Tensor(a)", kernels={"imag": {CIA: imag}}, method=False,
    extra_methods={"imag": _part_property("imag")},
    doc="""The imaginary part of a complex tensor as a view sharing its storage (real tensors raise).

    >>> import openreg
    >>> openreg.imag(openreg.tensor([1 + 2j, 3 - 1j])).tolist()
    [2.0, -1.0]
    """)


# -- complex(real, imag) and polar(abs, angle) ---------------------------------------------------------------
def _pair_spec(op: str, a: Tensor, b: Tensor) -> Spec:
    """Both operands float16/float32/float64 of one dtype (PyTorch's checks); a broadcast complex result."""
    check_tensor(op, "real" if op == "complex" else "abs", a)
    check_tensor(op, "imag" if op == "complex" else "angle", b)
    floats = (_dt.float16, _dt.float32, _dt.float64)
    if a._dtype not in floats or b._dtype not in floats:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{scalar_type_name(a._dtype)} and {scalar_type_name(b._dtype)}")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"Expected object of scalar type {scalar_type_name(a._dtype)} but got scalar type "
                           f"{scalar_type_name(b._dtype)} for second argument")
    if a._dtype is _dt.float16:
        raise TypeError(f"{op}: float16 inputs would give complex32, which openreg does not support")
    size = a._size if a._size == b._size else broadcast_shapes(a._size, b._size)
    dev = a._storage.device if a._storage.device == b._storage.device else common_device(op, a, b)
    d = getattr(_dt, _COMPLEX_OF[a._dtype.name])
    return Spec(size, d, dev, a._dtype)


def _complex_compute(spec, real_, imag_):
    xp = xp_of(real_)
    re, im = operand(real_, spec, xp), operand(imag_, spec, xp)
    re, im = xp.broadcast_arrays(re, im)
    out = xp.empty(re.shape, dtype=spec.dtype.numpy)
    out.real, out.imag = re, im
    return out


def _polar_compute(spec, abs_, angle):
    xp = xp_of(abs_)
    r, t = operand(abs_, spec, xp), operand(angle, spec, xp)
    r, t = xp.broadcast_arrays(r, t)
    out = xp.empty(r.shape, dtype=spec.dtype.numpy)
    with quiet():
        out.real, out.imag = r * xp.cos(t), r * xp.sin(t)
    return out


def _polar_unit(a):
    """``exp(i * angle)``, recomputed (``result / abs`` is undefined where abs is 0)."""
    return A.polar(A.ones_like(a.angle), a.angle)


complex_op = Op(
    "complex", """
    complex(Tensor real, Tensor imag) -> Tensor
    complex.out(Tensor real, Tensor imag, *, Tensor(a!) out) -> Tensor(a!)
    """, meta=lambda real, imag: _pair_spec("complex", real, imag), compute=_complex_compute, elementwise=True,
    derivatives={"complex": Deriv(real=lambda g, a: A.real(g), imag=lambda g, a: A.imag(g),
                                  jvp={"real": lambda t, a: A.complex(t, A.zeros_like(t)),
                                       "imag": lambda t, a: A.complex(A.zeros_like(t), t)})},
    method=False,
    doc="""A complex tensor ``real + i * imag`` from two float tensors of one dtype (broadcast).

    >>> import openreg
    >>> openreg.complex(openreg.tensor([1.0, 3.0]), openreg.tensor([2.0, -1.0])).tolist()
    [(1+2j), (3-1j)]
    """)
polar_op = Op(
    "polar", """
    polar(Tensor abs, Tensor angle) -> Tensor
    polar.out(Tensor abs, Tensor angle, *, Tensor(a!) out) -> Tensor(a!)
    """, meta=lambda abs, angle: _pair_spec("polar", abs, angle), compute=_polar_compute, elementwise=True,
    derivatives={"polar": Deriv(save="angle result",
                                abs=lambda g, a: A.real(g * A.conj_physical(_polar_unit(a))),
                                angle=lambda g, a: A.imag(g * A.conj_physical(a.result)),
                                jvp={"abs": lambda t, a: t * _polar_unit(a),        # dz = e^(i angle) d|z|
                                     "angle": lambda t, a: t * a.result * 1j})},    # + i z d angle
    method=False,
    doc="""The complex tensor ``abs * (cos(angle) + i * sin(angle))`` from two float tensors of one dtype.

    >>> import openreg, math
    >>> z = openreg.polar(openreg.tensor([2.0]), openreg.tensor([math.pi / 2]))
    >>> z.imag.item(), z.real.item() ** 2 < 1e-12
    (2.0, True)
    """)


# -- conj_physical, conj, angle -----------------------------------------------------------------------------
def _same_spec(self) -> Spec:
    return Spec(self._size, self._dtype, self._storage.device)


def _conj_compute(spec, self):
    xp = xp_of(self)
    x = operand(self, spec, xp)
    return xp.conj(x) if x.dtype.kind == "c" else x.copy()


def conj(self: Tensor) -> Tensor:
    return A.conj_physical(self) if self._dtype.is_complex else self


def resolve_conj(input: Tensor) -> Tensor:
    """The tensor itself: openreg's ``conj`` is never lazy, so there is no conjugate bit to resolve.

    >>> import openreg
    >>> z = openreg.tensor([1 + 2j]).conj()
    >>> z.resolve_conj() is z, openreg.is_conj(z)
    (True, False)
    """
    return input


def is_conj(input: Tensor) -> bool:
    """False: openreg computes conjugates into new memory (see ``conj``), so no tensor has a conjugate bit.

    >>> import openreg
    >>> openreg.tensor([1j]).conj().is_conj()
    False
    """
    return False


conj_physical_op = Op(
    "conj_physical", """
    conj_physical(Tensor self) -> Tensor  [pointwise]
    conj_physical.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)  [pointwise]
    conj_physical_(Tensor(a!) self) -> Tensor(a!)  [pointwise]
    """, meta=_same_spec, compute=_conj_compute, elementwise=True,
    derivatives={"conj_physical": Deriv(pointwise=True, self=lambda g, a: A.conj_physical(g))},
    doc="""The complex conjugate, computed into new memory (a copy for real tensors).

    >>> import openreg
    >>> openreg.conj_physical(openreg.tensor([1 + 2j])).tolist()
    [(1-2j)]
    """)
conj_op = Op(
    "conj", "conj(Tensor(a) self) -> Tensor(a)", kernels={"conj": {CIA: conj}},
    extra_methods={"resolve_conj": resolve_conj, "is_conj": is_conj},
    extra_functions={"resolve_conj": resolve_conj, "is_conj": is_conj},
    doc="""The complex conjugate; a real tensor itself.

    openreg has no lazy conjugate bit: for a complex tensor the result is computed into new memory
    (``conj_physical``), so it does not alias the input as PyTorch's conjugate view does, and ``is_conj()``
    is always False (``resolve_conj()`` returns the tensor itself).

    >>> import openreg
    >>> openreg.conj(openreg.tensor([1 + 2j, 3 - 1j])).tolist()
    [(1-2j), (3+1j)]
    """)


def _angle_meta(self) -> Spec:
    d = self._dtype
    if d.is_complex:
        return Spec(self._size, d.to_real(), self._storage.device, d)
    if d.is_floating_point:
        return Spec(self._size, d, self._storage.device)
    f = _dt.get_default_dtype()
    return Spec(self._size, f, self._storage.device, f)


def _angle_compute(spec, self):
    xp = xp_of(self)
    x = operand(self, spec, xp)
    if x.dtype.kind == "c":
        return xp.angle(x).astype(spec.dtype.numpy)
    with quiet():   # PyTorch: pi for negative values, 0 otherwise, NaN kept
        return xp.where(xp.isnan(x), x, xp.where(x < 0, xp.asarray(math.pi, dtype=x.dtype),
                                                 xp.zeros((), dtype=x.dtype)))


def _angle_grad(g, a):
    x = a.self
    if not x._dtype.is_complex:
        return A.zeros_like(x)
    # d angle = Im(dz / z): the gradient is g * i * z / |z|^2 (0 at z == 0)
    mag2 = A.real(x * A.conj_physical(x))
    num = g * x * 1j
    return A.where__self(mag2 == 0, A.zeros_like(x), num / mag2)


def _angle_jvp(t, a):
    x = a.self
    if not x._dtype.is_complex:
        return A.zeros_like(t)
    mag2 = A.real(x * A.conj_physical(x))     # d angle = Im(dz * conj(z)) / |z|^2 (0 at z == 0)
    return A.where__self(mag2 == 0, A.zeros_like(mag2), A.imag(t * A.conj_physical(x)) / mag2)


angle_op = Op(
    "angle", """
    angle(Tensor self) -> Tensor  [pointwise]
    angle.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
    """, meta=_angle_meta, compute=_angle_compute, elementwise=True,
    derivatives={"angle": Deriv(save="self", self=_angle_grad, jvp={"self": _angle_jvp})},
    doc="""The argument of each element in radians: ``atan2(imag, real)`` for complex tensors, pi for negative
    and 0 for other real values (NaN kept); integer inputs give the default float dtype.

    >>> import openreg
    >>> openreg.angle(openreg.tensor([-1.0, 2.0])).tolist()
    [3.1415927410125732, 0.0]
    """)

register(view_as_real_op, view_as_complex_op, real_op, imag_op, complex_op, polar_op, conj_physical_op, conj_op,
         angle_op)

__all__ = ["conj", "imag", "real", "view_as_complex", "view_as_real"]
