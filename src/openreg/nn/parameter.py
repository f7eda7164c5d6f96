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
