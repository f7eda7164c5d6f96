"""``openreg.<fn>`` functions of the tensor model: joins, splits, views, copies and the data factories.

Thin calls of ``openreg.ops.aten`` overloads, exported from ``openreg``.

>>> import openreg
>>> x = openreg.arange(6).view(2, 3)
>>> openreg.stack([x, x], dim=2).shape, openreg.cat([x, x]).shape, openreg.linspace(0, 1, 3).tolist()
(openreg.Size([2, 3, 2]), openreg.Size([4, 3]), [0.0, 0.5, 1.0])
"""
from __future__ import annotations

from ._dispatch.ops import A
from .tensor import Tensor


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    return t.requires_grad_(True) if requires_grad else t


def _scalar(x):
    return x.item() if isinstance(x, Tensor) else x


def cat(tensors, dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Concatenate along ``dim`` (type promotion across inputs; 1-D empty tensors are skipped).

    >>> import openreg
    >>> openreg.cat([openreg.tensor([1, 2]), openreg.tensor([3.5])]).tolist()
    [1.0, 2.0, 3.5]
    """
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"cat(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if len(tensors) == 0:  # no tensor, no key set: check before dispatching
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return A.cat(list(tensors), dim) if out is None else A.cat__out(list(tensors), dim, out=out)


concat = concatenate = cat


def stack(tensors, dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Join equally-shaped tensors along a new dimension ``dim``.

    >>> import openreg
    >>> openreg.stack([openreg.tensor([1, 2]), openreg.tensor([3, 4])], dim=1).tolist()
    [[1, 3], [2, 4]]
    """
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"stack(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    return A.stack(list(tensors), dim) if out is None else A.stack__out(list(tensors), dim, out=out)


def arange(*args, start=None, end=None, step=None, out=None, dtype=None, layout=None, device=None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """``arange(end)``, ``arange(start, end)``, ``arange(start, end, step)``: int64 unless a bound is float.

    >>> import openreg
    >>> openreg.arange(5).tolist(), openreg.arange(0, 1, 0.25).tolist()
    ([0, 1, 2, 3, 4], [0.0, 0.25, 0.5, 0.75])
    """
    args = [_scalar(a) for a in args]
    if len(args) > 3:
        raise TypeError(f"arange() takes from 1 to 3 positional arguments but {len(args)} were given")
    if len(args) == 1:
        if end is not None:
            start, end = args[0], _scalar(end)
        else:
            end = args[0]
    elif len(args) >= 2:
        start, end = args[0], args[1]
        if len(args) == 3:
            step = args[2]
    start = 0 if start is None else _scalar(start)
    step = 1 if step is None else _scalar(step)
    if end is None:
        raise TypeError("arange() missing required argument 'end'")
    end = _scalar(end)
    if out is not None:
        return A.arange__start_out(start, end, step, out=out)
    t = A.arange__start_step(start, end, step, dtype=dtype, device=device, pin_memory=pin_memory or None)
    return _finish(t, requires_grad)


def linspace(start, end, steps: int, *, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    >>> import openreg
    >>> openreg.linspace(-1, 1, 5).tolist()
    [-1.0, -0.5, 0.0, 0.5, 1.0]
    """
    t = A.linspace(_scalar(start), _scalar(end), steps, dtype=dtype, device=device)
    if out is not None:
        from .aten.structured import resize_out
        resize_out("linspace", out, t._size)
        return out.copy_(t)
    return _finish(t, requires_grad)


def eye(n: int, m: int | None = None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad: bool = False) -> Tensor:
    """The identity matrix (``n`` x ``m``).

    >>> import openreg
    >>> openreg.eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    t = A.eye(n, dtype=dtype, device=device) if m is None else \
        A.eye__m(n, m, dtype=dtype, device=device)
    return _finish(t, requires_grad)


def _like(op, input, *args, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
          pin_memory=False):
    return _finish(op(input, *args, dtype=dtype, device=device, memory_format=memory_format,
                      pin_memory=pin_memory or None), requires_grad)


def empty_like(input: Tensor, **kwargs) -> Tensor:
    """An uninitialised tensor like ``input`` (same strides when it is dense).

    >>> import openreg
    >>> openreg.empty_like(openreg.zeros(2, 3).t()).stride()
    (1, 3)
    """
    return _like(A.empty_like, input, **kwargs)


def zeros_like(input: Tensor, **kwargs) -> Tensor:
    """Zeros shaped like ``input``.

    >>> import openreg
    >>> openreg.zeros_like(openreg.ones(2)).tolist()
    [0.0, 0.0]
    """
    return _like(A.zeros_like, input, **kwargs)


def ones_like(input: Tensor, **kwargs) -> Tensor:
    """Ones shaped like ``input``.

    >>> import openreg
    >>> openreg.ones_like(openreg.zeros(2, dtype=openreg.int32)).tolist()
    [1, 1]
    """
    return _like(A.ones_like, input, **kwargs)


def full_like(input: Tensor, fill_value, **kwargs) -> Tensor:
    """``fill_value`` shaped like ``input`` (and of its dtype unless ``dtype=`` is given).

    >>> import openreg
    >>> openreg.full_like(openreg.zeros(2), 7).tolist()
    [7.0, 7.0]
    """
    return _like(A.full_like, input, _scalar(fill_value), **kwargs)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """Row and column indices (2 x N) of the upper triangle of a ``row`` x ``col`` matrix.

    >>> import openreg
    >>> openreg.triu_indices(3, 3).tolist()
    [[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]]
    """
    from . import dtypes
    return A.triu_indices(row, col, offset, dtype=dtype or dtypes.int64, device=device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """Row and column indices (2 x N) of the lower triangle of a ``row`` x ``col`` matrix.

    >>> import openreg
    >>> openreg.tril_indices(2, 2).tolist()
    [[0, 1, 1], [0, 0, 1]]
    """
    from . import dtypes
    return A.tril_indices(row, col, offset, dtype=dtype or dtypes.int64, device=device)


def scalar_tensor(s, *, dtype=None, device=None, layout=None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """A 0-dim tensor holding ``s`` (default dtype unless given).

    >>> import openreg
    >>> openreg.scalar_tensor(3).item(), openreg.scalar_tensor(3).dtype
    (3.0, openreg.float32)
    """
    return _finish(A.scalar_tensor(_scalar(s), dtype=dtype, device=device), requires_grad)


def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """A view of ``input``'s storage with explicit sizes, strides and offset.

    >>> import openreg
    >>> openreg.as_strided(openreg.arange(6), (2, 2), (1, 2), 1).tolist()
    [[1, 3], [2, 4]]
    """
    return A.as_strided(input, size, stride, storage_offset)


def _method(name: str, example: str, shape: list):
    """``openreg.<name>(input, ...)``: the function form of ``Tensor.<name>``, with a doctested example."""
    def fn(input: Tensor, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``openreg.{name}(input, ...)`` is ``input.{name}(...)``.\n\n"
                  f">>> import openreg\n>>> openreg.{name}({example}).shape\nopenreg.Size({shape})\n")
    return fn


reshape = _method("reshape", "openreg.zeros(2, 3), (3, 2)", [3, 2])
transpose = _method("transpose", "openreg.zeros(2, 3), 0, 1", [3, 2])
swapaxes = _method("swapaxes", "openreg.zeros(2, 3), 0, 1", [3, 2])
swapdims = _method("swapdims", "openreg.zeros(2, 3), 0, 1", [3, 2])
permute = _method("permute", "openreg.zeros(2, 3, 4), (2, 0, 1)", [4, 2, 3])
squeeze = _method("squeeze", "openreg.zeros(1, 3)", [3])
unsqueeze = _method("unsqueeze", "openreg.zeros(3), 0", [1, 3])
flatten = _method("flatten", "openreg.zeros(2, 3)", [6])
unflatten = _method("unflatten", "openreg.zeros(6), 0, (2, 3)", [2, 3])
narrow = _method("narrow", "openreg.zeros(5), 0, 1, 2", [2])
select = _method("select", "openreg.zeros(2, 3), 1, 0", [2])
diagonal = _method("diagonal", "openreg.zeros(3, 3)", [3])
movedim = _method("movedim", "openreg.zeros(2, 3, 4), 0, 2", [3, 4, 2])
moveaxis = _method("moveaxis", "openreg.zeros(2, 3, 4), 0, 2", [3, 4, 2])
t = _method("t", "openreg.zeros(2, 3)", [3, 2])
clone = _method("clone", "openreg.zeros(2)", [2])
detach = _method("detach", "openreg.zeros(2)", [2])


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices of ``input`` along ``dim`` (views).

    >>> import openreg
    >>> [t.tolist() for t in openreg.unbind(openreg.tensor([[1, 2], [3, 4]]), 1)]
    [[1, 3], [2, 4]]
    """
    return input.unbind(dim)


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Views of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes.

    >>> import openreg
    >>> [p.tolist() for p in openreg.split(openreg.arange(5), [1, 4])]
    [[0], [1, 2, 3, 4]]
    """
    return tensor.split(split_size_or_sections, dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` views of equal size (the last may be smaller).

    >>> import openreg
    >>> [p.tolist() for p in openreg.chunk(openreg.arange(5), 2)]
    [[0, 1, 2], [3, 4]]
    """
    return input.chunk(chunks, dim)


def is_tensor(obj) -> bool:
    """Whether ``obj`` is an openreg Tensor.

    >>> import openreg
    >>> openreg.is_tensor(openreg.zeros(1)), openreg.is_tensor([1])
    (True, False)
    """
    return isinstance(obj, Tensor)


__all__ = [
    "arange",
    "as_strided",
    "cat",
    "chunk",
    "clone",
    "concat",
    "concatenate",
    "detach",
    "diagonal",
    "empty_like",
    "eye",
    "flatten",
    "full_like",
    "is_tensor",
    "linspace",
    "moveaxis",
    "movedim",
    "narrow",
    "ones_like",
    "permute",
    "reshape",
    "scalar_tensor",
    "select",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "swapdims",
    "t",
    "transpose",
    "tril_indices",
    "triu_indices",
    "unbind",
    "unflatten",
    "unsqueeze",
    "zeros_like",
]
