"""``openreg.utils.dlpack``: ``torch.utils.dlpack``'s names for openreg's DLPack interchange (``openreg.dlpack``).

``from_dlpack`` is ``openreg.from_dlpack``; ``to_dlpack(tensor)`` is the legacy interface, a ``"dltensor"`` capsule
sharing the tensor's memory, which only a consumer (``from_dlpack``) can use; as
``openreg.from_dlpack`` documents, a bare legacy capsule of CPU memory imports read-only.

>>> import openreg
>>> from openreg.utils.dlpack import from_dlpack, to_dlpack
>>> t = openreg.arange(3.0)
>>> u = from_dlpack(to_dlpack(t))       # shares t's memory
>>> _ = t.add_(1)
>>> u.tolist()
[1.0, 2.0, 3.0]
"""
from __future__ import annotations

from typing import Any

from ..dlpack import DLDeviceType, from_dlpack
from ..tensor import Tensor

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


def to_dlpack(tensor: Tensor) -> Any:
    """A legacy DLPack capsule (``"dltensor"``) of ``tensor``, sharing its memory."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'data' (position 1) must be Tensor, not {type(tensor).__name__}")
    return tensor.__dlpack__()
