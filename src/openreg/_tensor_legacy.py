"""Tensor methods of PyTorch's older API that run Python callables over CPU elements: ``apply_`` and ``map_``
(``new``, the legacy constructor, is in ``legacy_tensor_types``).

>>> import openreg
>>> openreg.tensor([1, 2]).apply_(lambda v: v * 10).tolist()
[10, 20]
"""
from __future__ import annotations


def _check_cpu(self, name: str) -> None:
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def apply_(self, callable):
    """Replaces each element ``v`` by ``callable(v)`` (a Python function; CPU tensors only, slow).

    >>> import openreg
    >>> openreg.tensor([1.0, 4.0]).apply_(lambda v: v ** 0.5).tolist()
    [1.0, 2.0]
    """
    _check_cpu(self, "apply_")
    values = [callable(v) for v in self.reshape(-1).tolist()]
    from .tensor_from_data import tensor
    self.copy_(tensor(values, dtype=self.dtype).reshape(self.shape) if values else self)
    return self


def map_(self, tensor, callable):
    """``self[i] = callable(self[i], tensor[i])`` with ``tensor`` broadcast to ``self`` (CPU tensors only).

    >>> import openreg
    >>> openreg.tensor([1.0, 2.0]).map_(openreg.tensor([3.0]), lambda a, b: a * b).tolist()
    [3.0, 6.0]
    """
    _check_cpu(self, "map_")
    other = tensor.expand(self.shape)
    values = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other.reshape(-1).tolist())]
    from .tensor_from_data import tensor as make
    if values:
        self.copy_(make(values, dtype=self.dtype).reshape(self.shape))
    return self


__all__ = ["apply_", "map_"]
