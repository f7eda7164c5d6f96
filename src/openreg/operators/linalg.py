"""Matrix products: ``mm``, ``bmm``, ``addmm``, ``dot`` (structured), and the ``matmul`` and ``outer``
decompositions (CompositeImplicitAutograd). The device runs ``mm``/``bmm``/``addmm`` straight into pool outputs
(``overrides``).

>>> import openreg
>>> x = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> (x @ x).tolist(), x.mm(x).tolist() == (x @ x).tolist(), openreg.outer(x[0], x[1]).tolist()
([[7.0, 10.0], [15.0, 22.0]], True, [[3.0, 4.0], [6.0, 8.0]])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import to_compute, wrap_array
from .._dispatch.ops import A
from ..aten.meta_rules import Spec, broadcast_shapes, can_cast, common_device, fmt_shape, scalar_type_name
from ..tensor import TensorBase
from ._compute import operand, xp_of
from ._formulas import conj as _cj
from ._formulas import scalar
from ..autograd._ops import sum_to as _sum_to
from ._host_path import plain_cpu_arrays
from ._record import Deriv, Op, register, sparse_kernels

_DEVICE = "openreg.backends.privateuseone.device_ops"


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


def _check_matrices(first: str, mat1, mat2) -> None:
    """Two matrices that can be multiplied, of one dtype (``first``: the first one's name in PyTorch's error)."""
    if mat1.dim() != 2:
        raise RuntimeError(f"{first} must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if mat1._size[1] != mat2._size[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1._size[0]}x{mat1._size[1]} and "
                           f"{mat2._size[0]}x{mat2._size[1]})")
    _check_matmul_dtype(mat1, mat2)


def mm_meta(self, mat2) -> Spec:
    dev = common_device("mm", self, mat2)
    _check_matrices("self", self, mat2)
    return Spec((self._size[0], mat2._size[1]), self._dtype, dev)


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
    _check_matrices("mat1", mat1, mat2)
    if self._dtype is not mat1._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_dtype_name(self._dtype)} and "
                           f"{_dtype_name(mat2._dtype)}")
    size = (mat1._size[0], mat2._size[1])
    if broadcast_shapes(self._size, size) != size:
        raise RuntimeError(f"The expanded size of the tensor must match the existing size: self of shape "
                           f"{fmt_shape(self._size)} cannot be broadcast to the result shape {fmt_shape(size)}")
    return Spec(size, mat1._dtype, dev)


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


# -- compute ------------------------------------------------------------------------------------------------

def _wide(t, xp):
    """16-bit products accumulate in float32 and round once (PyTorch's opmath): float16 is widened too
    (bfloat16 already is by to_compute), which also puts it on the BLAS path."""
    arr = to_compute(t)
    return arr.astype(xp.float32) if arr.dtype == xp.float16 else arr


def _by_rows_of_b(a, b) -> bool:
    """Whether ``a @ b`` (NumPy, 2-d, a row-major, b the transpose of a row-major matrix: ``x @ w.t()`` in a
    linear layer) is faster as ``(b.T @ a.T).T``: OpenBLAS's kernel for this layout is up to 1.4x slower when
    ``a`` has fewer rows than ``b`` has columns (64x256 @ 256x256: 112 vs 92 us; 32x768 @ 768x768: 0.74x the
    time), and gives the same bits. Below ~1M multiply-adds the extra transposing pass costs more."""
    if a.ndim != 2 or b.ndim != 2:
        return False
    rows, cols = a.shape[0], b.shape[1]
    if rows >= cols or rows * cols * a.shape[1] < _MACS:     # the size tests first: most calls stop here
        return False
    item = a.itemsize
    return (a.__class__ is np.ndarray and b.__class__ is np.ndarray and a.dtype.kind == "f"
            and a.flags.c_contiguous and b.strides == (item, item * b.shape[0]) and a.dtype == b.dtype)


_MACS = 1 << 20


def _matmul(xp, a, b, base=None):
    """``a @ b`` (plus ``base``, broadcast) as a fresh row-major array."""
    if xp is np and _by_rows_of_b(a, b):
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)
        prod_t = np.matmul(b.T, a.T)
        if base is None:
            out[...] = prod_t.T
        else:
            np.add(prod_t.T, base, out=out)
        return out
    prod = xp.matmul(a, b)
    return prod if base is None else xp.add(prod, base, out=prod)


def mm_compute(spec, self, mat2):
    """``mm``/``bmm`` against the array module."""
    xp = xp_of(self)
    return _matmul(xp, _wide(self, xp), _wide(mat2, xp))


def addmm_compute(spec, self, mat1, mat2, *, beta=1, alpha=1):
    """``alpha * mat1 @ mat2 + beta * self``: the product, scaled by alpha, plus the scaled input."""
    xp = xp_of(mat1)
    a, b = _wide(mat1, xp), _wide(mat2, xp)
    if alpha == 1 and beta == 1:
        base = operand(self, spec, xp)
        if base.dtype == a.dtype == b.dtype:     # one pass: the product plus the input (a linear layer)
            return _matmul(xp, a, b, base)
    prod = xp.matmul(a, b)
    if alpha != 1:
        prod = prod * xp.asarray(alpha, dtype=prod.dtype)
    if beta == 0:
        return prod
    base = operand(self, spec, xp)
    if beta != 1:
        base = base * xp.asarray(beta, dtype=prod.dtype)
    return prod + base


def _dot(spec, self, tensor):
    xp = xp_of(self)
    return xp.asarray(xp.dot(to_compute(self), to_compute(tensor)))


# -- decompositions -------------------------------------------------------------------------------------------

def _view(t: TensorBase, size) -> TensorBase:
    size = tuple(size)
    if t.is_contiguous():
        return A.view(t, size)
    return A.view(t.contiguous(), size)


def _expand(t: TensorBase, size) -> TensorBase:
    """``t`` broadcast to ``size`` (a view with zero strides on the new/broadcast dims)."""
    size = tuple(size)
    if tuple(t._size) == size:
        return t
    lead = len(size) - t.dim()
    stride = [0] * lead
    for s, st, target in zip(t._size, t._stride, size[lead:]):
        stride.append(0 if s == 1 and target != 1 else st)
    return A.as_strided(t, size, tuple(stride), t._offset)


def _prod(size) -> int:
    n = 1
    for s in size:
        n *= s
    return n


def matmul(self: TensorBase, other: TensorBase) -> TensorBase:
    """PyTorch's matmul: dot, mv-like, mm, or broadcast batched bmm, chosen by the operands' dims."""
    for name, value in (("self", self), ("other", other)):
        if not isinstance(value, TensorBase):
            raise TypeError(f"matmul(): argument '{name}' must be Tensor, not {type(value).__name__}")
    d1, d2 = self.dim(), other.dim()
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return A.dot(self, other)
    if d1 == 2 and d2 == 2:
        return A.mm(self, other)
    if d1 == 2 and d2 == 1:
        return _view(A.mm(self, _view(other, (other._size[0], 1))), (self._size[0],))
    if d1 == 1 and d2 == 2:
        return _view(A.mm(_view(self, (1, self._size[0])), other), (other._size[1],))
    if d1 >= 3 and d2 <= 2:
        # Fold the batch dims of self into the rows of one mm.
        batch = tuple(self._size[:-1])
        folded = _view(self, (_prod(batch), self._size[-1]))
        if d2 == 1:
            return _view(A.mm(folded, _view(other, (other._size[0], 1))), batch)
        return _view(A.mm(folded, other), batch + (other._size[1],))
    a = _view(self, (1, self._size[0])) if d1 == 1 else self
    b = _view(other, (other._size[0], 1)) if d2 == 1 else other
    n, m1 = a._size[-2:]
    m2, p = b._size[-2:]
    batch = broadcast_shapes(tuple(a._size[:-2]), tuple(b._size[:-2]))
    nb = _prod(batch)
    a3 = _view(_expand(a, batch + (n, m1)), (nb, n, m1))
    b3 = _view(_expand(b, batch + (m2, p)), (nb, m2, p))
    out_size = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    return _view(A.bmm(a3, b3), out_size)


def _copy_into(op: str, result: TensorBase, out: TensorBase) -> TensorBase:
    if not can_cast(result._dtype, out._dtype):
        raise RuntimeError(f"{op}: result type {scalar_type_name(result._dtype)} can't be cast to the desired "
                           f"output type {scalar_type_name(out._dtype)}")
    if out.device != result.device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got {out.device} instead")
    from ..aten.structured import resize_out
    resize_out(op, out, result._size)
    return A.copy_(out, result)


def matmul_out(self: TensorBase, other: TensorBase, *, out: TensorBase) -> TensorBase:
    """``matmul`` written into ``out`` (resized as PyTorch resizes outputs)."""
    if self.dim() == 2 and other.dim() == 2:
        return A.mm__out(self, other, out=out)
    return _copy_into("matmul", matmul(self, other), out)


def _check_vector(name: str, t: TensorBase) -> None:
    if t.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")


def outer(self: TensorBase, vec2: TensorBase) -> TensorBase:
    """``self[:, None] * vec2`` for two vectors."""
    _check_vector("self", self)
    _check_vector("vec2", vec2)
    return A.mul__Tensor(_view(self, (self._size[0], 1)), vec2)


def outer_out(self: TensorBase, vec2: TensorBase, *, out: TensorBase) -> TensorBase:
    _check_vector("self", self)
    _check_vector("vec2", vec2)
    return A.mul__out(_view(self, (self._size[0], 1)), vec2, out=out)



# -- formulas ---------------------------------------------------------------------------------------------

def _plain_cpu_arrays(a, b):
    """The arrays of the matrices ``a`` and ``b`` when ``a.mm(b)`` would be exactly one NumPy ``_matmul`` of
    them (``_host_path.plain_cpu_arrays``), else None. A formula then skips the dispatcher, and the transposed
    views around the product: a linear layer's backward runs five ``t()`` and two ``mm`` calls through it
    otherwise."""
    if len(a._size) != 2 or len(b._size) != 2:
        return None
    return plain_cpu_arrays(A.mm, a, b)


def _mm_grad(x, y_t):
    """``x.mm(y_t.t())``: the gradient of an ``mm`` input (``g @ mat2.T``)."""
    y_t = _cj(y_t)
    arrays = _plain_cpu_arrays(x, y_t)
    if arrays is None:
        return x.mm(y_t.t())
    return wrap_array(_matmul(np, arrays[0], arrays[1].T), x._dtype)


def _mat2_grad(mat1, g, mat2_stride):
    """``mat1.T @ g`` computed in the layout of ``mat2`` (PyTorch's mm_mat2_backward): for a transposed
    ``mat2`` (e.g. ``weight.t()``) the result is a transposed view, whose ``.t()`` is the dense gradient."""
    mat1 = _cj(mat1)
    arrays = _plain_cpu_arrays(mat1, g)
    if len(mat2_stride) == 2 and mat2_stride[0] == 1 and mat2_stride[1] != 1:
        if arrays is None:
            return g.t().mm(mat1).t()
        return A.t(wrap_array(_matmul(np, arrays[1].T, arrays[0]), g._dtype))
    if arrays is None:
        return mat1.t().mm(g)
    return wrap_array(_matmul(np, arrays[0].T, arrays[1]), g._dtype)


def _scaled(x, s):
    if s.__class__ is int and s == 1:     # alpha/beta at their defaults: every linear layer's backward
        return x
    s = scalar(s)
    return x if s == 1 else x * s


def _addmm_self_grad(g, a):
    """``beta * g``, summed to the input's size here when the input was broadcast (a linear layer's bias) by
    the engine's own ``sum_to``, which ``validate`` would call next: the same sums, without its checks."""
    beta = a.beta
    if beta.__class__ is int and beta == 1:
        size = a._meta["self"][0]
        return g if g._size == size or len(size) >= len(g._size) else _sum_to(g, size)
    return _scaled(g, beta)


def _matmul_self(g, a):
    x, y = a.self, _cj(a.other)
    if x.dim() == 1 and y.dim() == 1:
        return g * y
    if y.dim() == 1:
        return g.unsqueeze(-1) * y
    if x.dim() == 1:
        return (g.unsqueeze(-2).matmul(y.transpose(-1, -2))).squeeze(-2)
    return g.matmul(y.transpose(-1, -2))


def _matmul_other(g, a):
    x, y = _cj(a.self), a.other
    if x.dim() == 1 and y.dim() == 1:
        return g * x
    if x.dim() == 1:
        return x.unsqueeze(-1) * g.unsqueeze(-2)
    if y.dim() == 1:
        r = x.transpose(-1, -2).matmul(g.unsqueeze(-1)).squeeze(-1)
        return r.reshape(-1, y.shape[0]).sum(0) if r.dim() > 1 else r
    return x.transpose(-1, -2).matmul(g)


def _addmm_method(self, mat1, mat2, *, beta=1, alpha=1):
    return A.addmm(self, mat1, mat2, beta=beta, alpha=alpha)


def _addmm_method_(self, mat1, mat2, *, beta=1, alpha=1):
    return A.addmm_(self, mat1, mat2, beta=beta, alpha=alpha)


def __matmul__(self, other):
    return A.matmul(self, other) if isinstance(other, TensorBase) else NotImplemented


def __rmatmul__(self, other):
    return A.matmul(other, self) if isinstance(other, TensorBase) else NotImplemented


def _doc(name: str, sentence: str, example: str, result: str) -> str:
    return (f"{sentence}.\n\n>>> import openreg\n>>> x = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])\n"
            f">>> openreg.{name}({example}).tolist()\n{result}\n")


mm = Op(
    "mm",
    """
    mm(Tensor self, Tensor mat2) -> Tensor  [core]
    mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
    """,
    meta=mm_meta, compute=mm_compute, overrides={"privateuseone": f"{_DEVICE}:mm_compute"},
    kernels={"mm": sparse_kernels("mm_sparse")},
    derivatives={"mm": Deriv(save="self mat2", self=lambda g, a: _mm_grad(g, a.mat2),
                             mat2=lambda g, a: _mat2_grad(a.self, g, a.stride_of("mat2")),
                             jvp={"self": lambda t, a: t.mm(a.mat2), "mat2": lambda t, a: a.self.mm(t)})},
    doc=_doc("mm", "``input @ mat2`` of two matrices", "x, x", "[[7.0, 10.0], [15.0, 22.0]]"))
bmm = Op(
    "bmm",
    """
    bmm(Tensor self, Tensor mat2) -> Tensor  [core]
    bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
    """,
    meta=bmm_meta, compute=mm_compute, overrides={"privateuseone": f"{_DEVICE}:mm_compute"},
    derivatives={"bmm": Deriv(save="self mat2", self=lambda g, a: g.bmm(_cj(a.mat2).transpose(1, 2)),
                              mat2=lambda g, a: _cj(a.self).transpose(1, 2).bmm(g),
                              jvp={"self": lambda t, a: t.bmm(a.mat2), "mat2": lambda t, a: a.self.bmm(t)})},
    doc=_doc("bmm", "``input[i] @ mat2[i]`` for batches of matrices", "x[None], x[None]",
             "[[[7.0, 10.0], [15.0, 22.0]]]"))
addmm = Op(
    "addmm",
    """
    addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor  [core]
    addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
    addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)
    """,
    meta=addmm_meta, compute=addmm_compute, overrides={"privateuseone": f"{_DEVICE}:addmm_compute"},
    kernels={"addmm": sparse_kernels("addmm_sparse")},
    derivatives={"addmm": Deriv(
        save="mat1 mat2", name="AddmmBackward0", self=_addmm_self_grad,
        mat1=lambda g, a: _scaled(_mm_grad(g, a.mat2), a.alpha),
        mat2=lambda g, a: _scaled(_mat2_grad(a.mat1, g, a.stride_of("mat2")), a.alpha),
        jvp={"self": lambda t, a: _scaled(t, a.beta), "mat1": lambda t, a: _scaled(t.mm(a.mat2), a.alpha),
             "mat2": lambda t, a: _scaled(a.mat1.mm(t), a.alpha)})},
    method=_addmm_method, extra_methods={"addmm_": _addmm_method_},
    doc=_doc("addmm", "``beta * input + alpha * (mat1 @ mat2)``", "x, x, x, beta=0.5",
             "[[7.5, 11.0], [16.5, 24.0]]"))
dot = Op(
    "dot",
    """
    dot(Tensor self, Tensor tensor) -> Tensor
    dot.out(Tensor self, Tensor tensor, *, Tensor(a!) out) -> Tensor(a!)
    """,
    meta=dot_meta, compute=_dot,
    derivatives={"dot": Deriv(save="self tensor", self=lambda g, a: g * _cj(a.tensor),
                              tensor=lambda g, a: g * _cj(a.self),
                              jvp={"self": lambda t, a: (t * a.tensor).sum(),
                                   "tensor": lambda t, a: (a.self * t).sum()})},
    doc=_doc("dot", "``sum(input * tensor)`` of two vectors", "x[0], x[1]", "11.0"))
matmul_op = Op(
    "matmul",
    """
    matmul(Tensor self, Tensor other) -> Tensor
    matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
    """,
    kernels={"matmul": {"CompositeImplicitAutograd": matmul}, "matmul.out": {"CompositeImplicitAutograd": matmul_out}},
    derivatives={"matmul": Deriv(save="self other", self=_matmul_self, other=_matmul_other,
                                 jvp={"self": lambda t, a: t.matmul(a.other), "other": lambda t, a: a.self.matmul(t)})},
    extra_methods={"__matmul__": __matmul__, "__rmatmul__": __rmatmul__},
    doc=_doc("matmul", "``input @ other``: dot, matrix-vector, matrix or broadcast batched product", "x, x[0]",
             "[5.0, 11.0]"))
outer_op = Op(
    "outer",
    """
    outer(Tensor self, Tensor vec2) -> Tensor
    outer.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)
    """,
    kernels={"outer": {"CompositeImplicitAutograd": outer}, "outer.out": {"CompositeImplicitAutograd": outer_out}},
    derivatives={"outer": Deriv(save="self vec2", self=lambda g, a: (g * _cj(a.vec2)).sum(1),
                                vec2=lambda g, a: (g * _cj(a.self).unsqueeze(1)).sum(0),
                                jvp={"self": lambda t, a: t.unsqueeze(1) * a.vec2,
                                     "vec2": lambda t, a: a.self.unsqueeze(1) * t})},
    extra_functions={"ger": "outer"}, extra_methods={"ger": "outer"},
    doc=_doc("outer", "``input[:, None] * vec2`` of two vectors", "x[0], x[1]", "[[3.0, 4.0], [6.0, 8.0]]"))

register(mm, bmm, addmm, dot, matmul_op, outer_op)
