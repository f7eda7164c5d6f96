"""``Parameter``: a tensor that a ``Module`` registers as a learnable parameter (requires grad by default).

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.zeros(2))
>>> p.requires_grad, isinstance(p, openreg.Tensor), p.is_leaf
(True, True, True)
"""
from __future__ import annotations

from ..tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor sharing ``data``'s storage, registered by modules in ``parameters()``."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:  # noqa: PYI034
        if data is None:
            from ..operators.factories import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor, got {type(data).__name__}")
        p = cls._make(data._storage, data._size, data._stride, data._offset, data._dtype)
        p._qparams = data._qparams
        p._is_param = True
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(self.detach().clone(), self.requires_grad)
        if self._grad is not None:
            out._grad = self._grad.clone()
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol):
        from ..serialization._rebuild import reduce_parameter
        return reduce_parameter(self)


class Buffer:
    """Marks a tensor assigned to a module attribute as a buffer (``persistent`` controls ``state_dict``).

    >>> import openreg
    >>> m = openreg.nn.Module()
    >>> m.running = openreg.nn.Buffer(openreg.zeros(1))
    >>> list(dict(m.named_buffers()))
    ['running']
    """

    def __init__(self, data: Tensor, *, persistent: bool = True) -> None:
        self.data = data
        self.persistent = persistent


class _UninitializedTensorMixin:
    """A placeholder whose shape is not known yet (a lazy module's parameter before its first ``forward``):
    ``materialize(shape)`` gives it memory and turns it into ``cls_to_become``."""

    __slots__ = ()
    cls_to_become: type = Tensor

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Allocate ``shape`` (uninitialized values) on ``device`` in ``dtype`` (by default the placeholder's) and
        become a ``cls_to_become`` (``Parameter`` or ``Tensor``)."""
        from ..operators.factories import empty
        if isinstance(shape, int):
            shape = (shape,)
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        data = empty(tuple(shape), device=device, dtype=dtype)
        self.data = data
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"


class UninitializedParameter(_UninitializedTensorMixin, Parameter):
    """A ``Parameter`` whose shape is not known yet; ``materialize(shape)`` makes it a ``Parameter``.

    >>> import openreg
    >>> p = openreg.nn.UninitializedParameter()
    >>> p.materialize((2, 3)); type(p).__name__, tuple(p.shape), p.requires_grad
    ('Parameter', (2, 3), True)
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None) -> UninitializedParameter:  # noqa: PYI034
        from ..operators.factories import empty
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(_UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet; ``materialize(shape)`` makes it a plain ``Tensor``.

    >>> import openreg
    >>> b = openreg.nn.UninitializedBuffer()
    >>> b.materialize(4); type(b).__name__, tuple(b.shape)
    ('Tensor', (4,))
    """

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None) -> UninitializedBuffer:  # noqa: PYI034
        from ..operators.factories import empty
        data = empty(0, device=device, dtype=dtype)
        t = cls._make(data._storage, data._size, data._stride, data._offset, data._dtype)
        if requires_grad:
            t.requires_grad_(True)
        return t


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialized placeholder (``UninitializedParameter``/``UninitializedBuffer``)."""
    return isinstance(param, _UninitializedTensorMixin)
