"""The schemas of openreg's built-in operators (PyTorch's text, from native_functions.yaml).

Each entry is ``(schema, tags)``; ``openreg.aten`` defines them all through ``openreg.library`` at import.
Add an operator by adding its schema here, its meta function in ``meta.py`` and its kernels in a backend.
The math ops (pointwise, reductions, matrix products) are operator records (``openreg/operators/``).
"""
from .._dispatch.tags import Tag

C = Tag.core

ATEN = [
    # -- factories --
    (("empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
      "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"), (C,)),
    (("empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, "
      "Device? device=None, bool? pin_memory=None) -> Tensor"), (C,)),
]
