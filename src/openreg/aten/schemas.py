"""The schemas of openreg's built-in operators (PyTorch's text, from native_functions.yaml).

Each entry is ``(schema, tags)``; ``openreg.aten`` defines them all through ``openreg.library`` at import.
Add an operator by adding its schema here, its meta function in ``meta.py`` and its kernels in a backend.
The math ops (pointwise, reductions, matrix products) are operator records (``openreg/operators/``).
"""
from .._dispatch.tags import Tag

C, P, IV = Tag.core, Tag.pointwise, Tag.inplace_view

ATEN = [
    # -- factories --
    (("empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
      "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"), (C,)),
    (("empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, "
      "Device? device=None, bool? pin_memory=None) -> Tensor"), (C,)),
    # -- copies and views --
    ("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", ()),
    ("zero_(Tensor(a!) self) -> Tensor(a!)", ()),
    ("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", ()),
    ("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", (C,)),
    ("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
     (C,)),
]

INDUCTOR = [
    ("_mm_plus_mm(Tensor a, Tensor b, Tensor c, Tensor d, Tensor(t!) out) -> Tensor(t!)", ()),
    ("_alloc_from_pool(Tensor self, int offset_bytes, ScalarType dtype, int[] size, int[] stride) -> Tensor", ()),
    ("_reinterpret_tensor(Tensor self, int[] size, int[] stride, int offset_increment=0) -> Tensor", ()),
    ("accumulate_grad_(Tensor variable, Tensor new_grad) -> ()", ()),
]
