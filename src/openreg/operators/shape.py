"""Splitting and joining: ``unbind``, ``split``, ``split_with_sizes``, ``chunk`` (views) and ``cat``, ``stack``.

The splits are views of the input. ``cat`` allocates the result and copies each input into its slice with
``copy_``, so the same kernel serves every backend (and Meta, whose ``copy_`` computes nothing); the CPU
backend registers a faster one. The splits' Tensor methods return tuples, as PyTorch's.

>>> import openreg
>>> a, b = openreg.ones(2, 2), openreg.zeros(2, 1)
>>> openreg.cat([a, b], dim=1).tolist()
[[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]]
>>> [p.shape[0] for p in openreg.arange(5).split(2)]
[2, 2, 1]
"""
from __future__ import annotations

from .. import dtypes as _dt
from .._dispatch.ops import A
from ..aten.meta_rules import fmt_shape, wrap_dim
from ..aten.views import below_inplace_or_view, fresh
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._record import Deriv, Op, register
from ._view_grads import cat_grad, fill_missing, list_tangents
from .views import select, slice_tensor

CEA, CIA = "CompositeExplicitAutograd", "CompositeImplicitAutograd"


def unbind(self: Tensor, dim: int = 0) -> list:
    if len(self._size) == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, len(self._size))
    return [select(self, d, i) for i in range(self._size[d])]


def split_with_sizes(self: Tensor, split_sizes, dim: int = 0) -> list:
    if len(self._size) == 0:
        raise RuntimeError("split_with_sizes expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, len(self._size))
    size = self._size[d]
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={fmt_shape(split_sizes)}")
    if sum(split_sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {d}), but got split_sizes={fmt_shape(split_sizes)}")
    out, start = [], 0
    for s in split_sizes:
        out.append(slice_tensor(self, d, start, start + s))
        start += s
    return out


def split(self: Tensor, split_size: int, dim: int = 0) -> list:
    if len(self._size) == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    d = wrap_dim(dim, len(self._size))
    size = self._size[d]
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    num = max((size + split_size - 1) // split_size, 1) if split_size else 1
    last = split_size - (split_size * num - size)
    return split_with_sizes(self, [split_size] * (num - 1) + [last], d)


def _int64_div(a: int, b: int) -> int:
    """C++'s int64 ``a / b``: ``a`` wraps as int64 does (chunk(2**63 - 1) splits by -1, and split refuses)."""
    a = (a + 2**63) % 2**64 - 2**63
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def chunk(self: Tensor, chunks: int, dim: int = 0) -> list:
    if len(self._size) == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, len(self._size))
    size = self._size[d]
    split_size = _int64_div(size + chunks - 1, chunks)
    if split_size == 0 and size == 0:
        return list(A.split_with_sizes(self, [0] * chunks, d))
    return list(A.split__Tensor(self, split_size, d))


def cat_meta(tensors, dim: int):
    """(result size, dtype, device, the tensors that take part) with PyTorch's checks and messages."""
    if len(tensors) == 0:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    first = tensors[0]
    dtype = first._dtype
    dev = first._storage.device
    for t in tensors[1:]:
        if t._dtype is not dtype:
            dtype = _dt.promote_types(dtype, t._dtype)
        tdev = t._storage.device
        if tdev is not dev and tdev != dev:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{dev} and {tdev}!")
    # Legacy rule: 1-D tensors of size 0 are skipped whatever the other shapes are.
    parts = [(i, t) for i, t in enumerate(tensors) if t._size != _EMPTY_1D]
    for i, t in enumerate(tensors):
        if not t._size:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    if not parts:
        return (0,), dtype, dev, parts, 0
    ref = parts[0][1]._size
    d = wrap_dim(dim, len(ref))
    total = 0
    for i, t in parts:
        size = t._size
        if size != ref:     # (tuple comparisons and indexing: Size's own __getitem__ is a Python frame)
            if len(size) != len(ref):
                raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {len(size)}")
            for k, (a, b) in enumerate(zip(ref, size)):
                if k != d and a != b:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {a} "
                                       f"but got size {b} for tensor number {i} in the list.")
        total += _tuple_item(size, d)
    size = list(ref)
    size[d] = total
    return tuple(size), dtype, dev, parts, d


_EMPTY_1D = (0,)
_tuple_item = tuple.__getitem__


def _cat_into(out: Tensor, parts, d: int) -> Tensor:
    start = 0
    copy_ = A.copy_
    for _, t in parts:
        n = t._size[d]
        if n:
            copy_(A.slice__Tensor(out, d, start, start + n, 1), t)
        start += n
    return out


def cat(tensors, dim: int = 0) -> Tensor:
    size, dtype, dev, parts, d = cat_meta(tensors, dim)
    from ..aten.factories import empty_memory_format
    out = empty_memory_format(size, dtype=dtype, device=dev)
    return fresh(_cat_into(out, parts, d))


def cat_out(tensors, dim: int = 0, *, out: Tensor) -> Tensor:
    from ..aten.meta_rules import check_out_cast
    from ..aten.structured import resize_out
    size, dtype, dev, parts, d = cat_meta(tensors, dim)
    check_out_cast("cat", dtype, out._dtype)
    if out.device != dev:
        raise RuntimeError(f"Expected out tensor to have device {dev}, but got {out.device} instead")
    for t in tensors:
        if t._storage is out._storage and out.numel():
            raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to "
                               "tensor refer to a single memory location. Please clone() the tensor before "
                               "performing the operation.")
    resize_out("cat", out, size)
    with below_inplace_or_view():
        return _cat_into(out, parts, d)


def _stack_inputs(tensors, dim: int) -> tuple:
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]._size
    for i, t in enumerate(tensors[1:], 1):
        if t._size != ref:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {fmt_shape(ref)} at entry 0 "
                               f"and {fmt_shape(t._size)} at entry {i}")
    d = wrap_dim(dim, len(ref) + 1)
    unsqueeze = A.unsqueeze
    return [unsqueeze(t, d) for t in tensors], d


def stack(tensors, dim: int = 0) -> Tensor:
    parts, d = _stack_inputs(tensors, dim)
    return A.cat(parts, d)


def stack_out(tensors, dim: int = 0, *, out: Tensor) -> Tensor:
    parts, d = _stack_inputs(tensors, dim)
    return A.cat__out(parts, d, out=out)


def split_sizes(self: Tensor, split_size, dim: int = 0) -> list:
    return list(A.split_with_sizes(self, split_size, dim))


# -- the records ------------------------------------------------------------------------------------------
# The CPU's and the device's own cat: one concatenate instead of a copy_ per input.
_BACKEND_KERNELS = {"cat": {"CPU": "openreg.backends.cpu.kernels:cat",
                            "PrivateUse1": "openreg.backends.privateuseone.device_ops:cat"}}


# -- Tensor methods: the list results are tuples, ``split`` takes a size or a list of sizes ----------------
def _unbind_method(self, dim=0):
    return tuple(A.unbind__int(self, dim))


def _split_method(self, split_size, dim=0):
    if isinstance(split_size, (tuple, list)):
        return tuple(A.split_with_sizes(self, split_size, dim))
    return tuple(A.split__Tensor(self, split_size, dim))


def _split_with_sizes_method(self, split_sizes, dim=0):
    return tuple(A.split_with_sizes(self, split_sizes, dim))


def _chunk_method(self, chunks, dim=0):
    return tuple(A.chunk(self, chunks, dim))


# -- openreg.<fn>: the Python signatures PyTorch gives these functions --------------------------------------
def _check_tensor_list(name: str, tensors) -> list:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    return list(tensors)


def _cat_function(tensors, dim: int = 0, *, out=None):
    """Concatenate along ``dim`` (type promotion across inputs; 1-D empty tensors are skipped).

    >>> import openreg
    >>> openreg.cat([openreg.tensor([1, 2]), openreg.tensor([3.5])]).tolist()
    [1.0, 2.0, 3.5]
    """
    tensors = _check_tensor_list("cat", tensors)
    if not tensors:  # no tensor, no key set: check before dispatching
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return A.cat(tensors, dim) if out is None else A.cat__out(tensors, dim, out=out)


def _stack_function(tensors, dim: int = 0, *, out=None):
    """Join equally-shaped tensors along a new dimension ``dim``.

    >>> import openreg
    >>> openreg.stack([openreg.tensor([1, 2]), openreg.tensor([3, 4])], dim=1).tolist()
    [[1, 3], [2, 4]]
    """
    tensors = _check_tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return A.stack(tensors, dim) if out is None else A.stack__out(tensors, dim, out=out)


def _unbind_function(input, dim: int = 0) -> tuple:
    """The slices of ``input`` along ``dim`` (views).

    >>> import openreg
    >>> [t.tolist() for t in openreg.unbind(openreg.tensor([[1, 2], [3, 4]]), 1)]
    [[1, 3], [2, 4]]
    """
    return input.unbind(dim)


def _split_function(tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Views of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes.

    >>> import openreg
    >>> [p.tolist() for p in openreg.split(openreg.arange(5), [1, 4])]
    [[0], [1, 2, 3, 4]]
    """
    return tensor.split(split_size_or_sections, dim)


def _chunk_function(input, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` views of equal size (the last may be smaller).

    >>> import openreg
    >>> [p.tolist() for p in openreg.chunk(openreg.arange(5), 2)]
    [[0, 1, 2], [3, 4]]
    """
    return input.chunk(chunks, dim)


def _shape_op(name: str, schemas: str, kernels: dict, derivatives: dict, method=False, function=False,
              extra_functions: dict | None = None) -> Op:
    """``kernels``: ``{overload: (dispatch key, fn)}``, plus the backends' own kernels of ``_BACKEND_KERNELS``."""
    return Op(name, schemas, kernels={o: {key: fn, **_BACKEND_KERNELS.get(o, {})} for o, (key, fn) in kernels.items()},
              derivatives=derivatives, function=function, method=method, extra_functions=extra_functions)


def _cat_pieces(name: str = "SplitBackward0") -> Deriv:
    """The gradient of a split: the pieces' gradients concatenated (zeros for pieces without one)."""
    return Deriv(linear=True, name=name, self=lambda g, a: A.cat(fill_missing(g, a), a.dim))


unbind_op = _shape_op("unbind", "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
                      {"unbind.int": (CEA, unbind)},
                      {"unbind.int": Deriv(linear=True, self=lambda g, a: A.stack(fill_missing(g, a), a.dim))},
                      _unbind_method, _unbind_function)
split_op = _shape_op("split", """
    split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
    split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]
    split(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]
    """, {"split.Tensor": (CEA, split), "split.sizes": (CIA, split_sizes), "split": (CIA, split_sizes)},
    {"split.Tensor": _cat_pieces(), "split.sizes": _cat_pieces(), "split": _cat_pieces("SplitWithSizesBackward0")}, _split_method,
    _split_function)
split_with_sizes_op = _shape_op(
    "split_with_sizes", "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]  [core]",
    {"split_with_sizes": (CEA, split_with_sizes)}, {"split_with_sizes": _cat_pieces("SplitWithSizesBackward0")},
    _split_with_sizes_method, _split_with_sizes_method)
chunk_op = _shape_op("chunk", "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
                     {"chunk": (CIA, chunk)}, {"chunk": _cat_pieces("ChunkBackward0")}, _chunk_method, _chunk_function)
cat_op = _shape_op("cat", """
    cat(Tensor[] tensors, int dim=0) -> Tensor  [core]
    cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)
    """, {"cat": (CEA, cat), "cat.out": (CEA, cat_out)},
    {"cat": Deriv(name="CatBackward0", tensors=cat_grad,
                  jvp={"tensors": lambda t, a: A.cat(list_tangents(t, a, "tensors"), a.dim)})},
    function=_cat_function, extra_functions={"concat": "cat", "concatenate": "cat"})
stack_op = _shape_op("stack", """
    stack(Tensor[] tensors, int dim=0) -> Tensor
    stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)
    """, {"stack": (CIA, stack), "stack.out": (CIA, stack_out)},
    {"stack": Deriv(name="StackBackward0", tensors=lambda g, a: list(g.unbind(a.dim)),
                    jvp={"tensors": lambda t, a: A.stack(list_tangents(t, a, "tensors"), a.dim)})},
    function=_stack_function)

register(unbind_op, split_op, split_with_sizes_op, chunk_op, cat_op, stack_op)

__all__ = ["cat_meta"]
