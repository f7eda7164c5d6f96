"""``RemovableHandle``: what ``Module.register_forward_hook`` and friends return (PyTorch's
``torch.utils.hooks.RemovableHandle``): ``remove()`` takes the hook out of every dict it was put in.

>>> from collections import OrderedDict
>>> from openreg.utils.hooks import RemovableHandle
>>> hooks = OrderedDict()
>>> h = RemovableHandle(hooks); hooks[h.id] = print
>>> h.remove(); len(hooks)
0
"""
from __future__ import annotations

import weakref
from typing import Any


class RemovableHandle:
    """A handle that removes its hook (keyed by ``self.id``) from ``hooks_dict`` and ``extra_dict``(s).

    The dicts are held weakly (so they must be weak-referenceable, e.g. ``OrderedDict``): a handle never keeps a
    module's hooks alive."""

    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = extra_dict if isinstance(extra_dict, list) else ([] if extra_dict is None else [extra_dict])
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self) -> None:
        """Unregister the hook; removing twice is harmless."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self) -> RemovableHandle:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()
