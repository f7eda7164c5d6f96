"""Shape and dtype rules shared by meta functions: broadcasting, type promotion, dims, device checks.

>>> from openreg.aten.meta_rules import broadcast_shapes
>>> broadcast_shapes((3, 1), (1, 4))
(3, 4)
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..devices import device as Device


class Spec:
    """What a structured op produces: the output size, dtype and device, and the dtype to compute in.

    A plain slotted class (not a dataclass): one is built per operator call, so construction must be cheap.
    """

    __slots__ = ("compute", "compute_dtype", "device", "dtype", "size")

    def __init__(self, size: tuple, dtype, device: Device, compute_dtype=None):
        self.size = size
        self.dtype = dtype
        self.device = device
        self.compute_dtype = compute_dtype
        self.compute = compute_dtype or dtype     # the dtype to compute in (read by most kernels)

    def __repr__(self) -> str:
        return f"Spec(size={self.size}, dtype={self.dtype}, device={self.device}, compute={self.compute})"


def fmt_shape(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def broadcast_shapes(*shapes, op: str = "") -> tuple:
    """PyTorch broadcasting; RuntimeError naming both sizes when they don't broadcast."""
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return tuple(shapes[0])
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        offset = ndim - len(shape)
        for i in range(len(shape) - 1, -1, -1):   # trailing dimension first, so the error names PyTorch's dim
            s, j = shape[i], i + offset
            if out[j] == 1:
                out[j] = s
            elif s != 1 and s != out[j]:
                prefix = f"{op}: " if op else ""
                raise RuntimeError(
                    f"{prefix}The size of tensor a ({out[j]}) must match the size of tensor b ({s}) at "
                    f"non-singleton dimension {j}")
    return tuple(out)


def result_type(*operands) -> object:
    """PyTorch's result_type over tensors and Python scalars (dimensioned > zero-dim > wrapped scalars)."""
    if len(operands) == 2:
        a, b = operands
        if type(a) is type(b) and hasattr(a, "_ks") and a._dtype is b._dtype:
            return a._dtype
    dim_t = zero_t = scalar_t = None
    for x in operands:
        if x is None:
            continue
        if hasattr(x, "_ks"):
            if x.dim() > 0:
                dim_t = x._dtype if dim_t is None else _dt.promote_types(dim_t, x._dtype)
            else:
                zero_t = x._dtype if zero_t is None else _dt.promote_types(zero_t, x._dtype)
        else:
            d = _dt.default_dtype_for_category(_dt.scalar_category(x))
            if isinstance(x, complex) and _dt.get_default_dtype() is _dt.float64:
                d = _dt.complex128
            scalar_t = d if scalar_t is None else _dt.promote_types(scalar_t, d)
    return _combine(dim_t, _combine(zero_t, scalar_t))


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is _dt.bool or lower.is_floating_point:
        return _dt.promote_types(higher, lower)
    return higher


def can_cast(src, dst) -> bool:
    """PyTorch's can_cast: no complex -> real, floating -> integral or non-bool -> bool."""
    if src.is_complex and not dst.is_complex:
        return False
    if src.is_floating_point and not (dst.is_floating_point or dst.is_complex):
        return False
    return src is _dt.bool or dst is not _dt.bool


def scalar_type_name(d) -> str:
    """PyTorch's C++ ScalarType name (``Float``, ``Long`` ...) used in error messages."""
    return d.scalar_name


def check_out_cast(op: str, result, out_dtype) -> None:
    if not can_cast(result, out_dtype):
        raise RuntimeError(f"{op}: result type {scalar_type_name(result)} can't be cast to the desired output "
                           f"type {scalar_type_name(out_dtype)}")


def common_device(op: str, *tensors) -> Device:
    """The device all tensor arguments share (zero-dim CPU tensors may join any device, as in PyTorch)."""
    if len(tensors) == 2 and tensors[0] is not None and tensors[1] is not None:
        d0 = tensors[0]._storage.device
        if d0 is tensors[1]._storage.device:
            return d0
    dev = None
    cpu_scalar = None
    for t in tensors:
        if t is None:
            continue
        d = t._storage.device
        if d._type == "cpu" and len(t._size) == 0:
            cpu_scalar = d
            continue
        if dev is None:
            dev = d
        elif d != dev:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{dev} and {d}! (when checking argument for {op})")
    return dev if dev is not None else (cpu_scalar or _cpu())


def _cpu():
    from ..devices import CPU
    return CPU


def wrap_dim(dim: int, ndim: int, op: str = "") -> int:
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim + ndim if dim < 0 else dim


def reduce_shape(size: tuple, dims, keepdim: bool) -> tuple:
    ndim = len(size)
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        dims = range(ndim)
    dims = {wrap_dim(d, ndim) for d in dims} if ndim else set()
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(size))
    return tuple(s for i, s in enumerate(size) if i not in dims)


def normalize_dims(dims, ndim: int) -> tuple:
    """``dims`` (None, an int or ints, possibly negative) as a tuple of distinct dims of an ``ndim``-d tensor.

    >>> normalize_dims([-1, 0], 3), normalize_dims(None, 2)
    ((2, 0), (0, 1))
    """
    if dims is None:        # every dim (a full reduction)
        return _ALL_DIMS[ndim] if ndim < len(_ALL_DIMS) else tuple(range(ndim))
    # a reduction resolves its dims on every call, the same few each time: plain ints are remembered
    c = dims.__class__
    key = (dims, ndim) if c is int else (tuple(dims), ndim) if c is list or c is tuple else None
    if key is not None:
        try:
            out = _normalized.get(key)
        except TypeError:       # an unhashable element: checked below
            key = out = None
        if out is not None:
            return out
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        return tuple(range(ndim))
    if isinstance(dims, int):
        dims = (dims,)
    out = tuple(wrap_dim(d, max(ndim, 1)) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    out = tuple(d for d in out if d < ndim) if ndim else ()
    if key is not None and all(d.__class__ is int for d in dims):
        if len(_normalized) > 1024:
            _normalized.clear()
        _normalized[key] = out
    return out


_normalized: dict = {}
_ALL_DIMS = tuple(tuple(range(n)) for n in range(9))


def check_nonnegative_size(op: str, size) -> None:
    for s in size:
        if s < 0:
            raise RuntimeError(f"{op}: Trying to create tensor with negative dimension {s}: {fmt_shape(size)}")
