"""Backend metadata on tensors (PyTorch's ``BackendMeta``): a dict a backend attaches to a tensor.

It lives in ``Tensor._backend_meta``. As in PyTorch, ``detach()`` (a shallow copy of the tensor) shares it,
copies that stay on the same backend (``clone()``, ``to(dtype)``, ``to`` another index of the device) carry
a copy of it, copies to another device type drop it, and views do not have it. ``openreg.save``/``load``
keep it on the same backend and drop it when a tensor is mapped to the CPU.

>>> import openreg
>>> t = openreg.zeros(2)
>>> openreg.utils.set_tensor_metadata(t, {"format": 3})
>>> openreg.utils.get_tensor_metadata(t)
{'format': 3}
>>> openreg.utils.get_tensor_metadata(t.clone())
{'format': 3}
"""
from __future__ import annotations

from typing import Any

__all__ = ["get_tensor_metadata", "set_tensor_metadata"]


def _check_tensor(t: Any, fn: str) -> None:
    from ..tensor import Tensor
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument 'tensor' must be Tensor, not {type(t).__name__}")


def set_tensor_metadata(tensor: Any, metadata: dict) -> None:
    """Attach backend metadata (a dict with str keys) to ``tensor``, replacing what it had.

    >>> import openreg
    >>> t = openreg.ones(1)
    >>> openreg.utils.set_tensor_metadata(t, {"version": 1})
    >>> openreg.utils.get_tensor_metadata(t)["version"]
    1
    """
    _check_tensor(tensor, "set_tensor_metadata")
    if not isinstance(metadata, dict):
        raise TypeError(f"set_tensor_metadata(): argument 'metadata' must be dict, not {type(metadata).__name__}")
    for key in metadata:
        if not isinstance(key, str):
            raise TypeError(f"set_tensor_metadata(): metadata keys must be str, got {type(key).__name__}")
    tensor._backend_meta = dict(metadata) if metadata else None


def get_tensor_metadata(tensor: Any) -> dict:
    """A copy of ``tensor``'s backend metadata (an empty dict when it has none).

    >>> import openreg
    >>> openreg.utils.get_tensor_metadata(openreg.ones(1))
    {}
    """
    _check_tensor(tensor, "get_tensor_metadata")
    meta = tensor._backend_meta
    return dict(meta) if meta else {}


def copy_backend_meta(src: Any, dst: Any) -> None:
    """Give ``dst`` (a copy of ``src``) a copy of ``src``'s metadata if both are on the same device type."""
    meta = src._backend_meta
    if meta is not None and src._storage.device._type == dst._storage.device._type:
        dst._backend_meta = dict(meta)


def share_backend_meta(src: Any, dst: Any) -> None:
    """Make a shallow copy of a tensor (``detach``) share its metadata, as PyTorch's default BackendMeta."""
    meta = src._backend_meta
    if meta is not None:
        dst._backend_meta = meta
