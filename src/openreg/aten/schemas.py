"""The schemas of openreg's built-in operators (PyTorch's text, from native_functions.yaml).

Each entry is ``(schema, tags)``; ``openreg.aten`` defines them all through ``openreg.library`` at import.
Add an operator by adding its schema here, its meta function in ``meta.py`` and its kernels in a backend.
"""
from .._dispatch.tags import Tag

C, P, IV = Tag.core, Tag.pointwise, Tag.inplace_view

ATEN = [
    # -- factories --
    ("empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
     "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", (C,)),
    ("empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, "
     "Device? device=None, bool? pin_memory=None) -> Tensor", (C,)),
    # -- pointwise unary --
    ("abs(Tensor self) -> Tensor", (C, P)),
    ("abs_(Tensor(a!) self) -> Tensor(a!)", (P,)),
    ("abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", (P,)),
    # -- pointwise binary --
    ("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", (C, P)),
    ("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", (P,)),
    ("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", (P,)),
    ("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", (C, P)),
    ("add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", (P,)),
    # -- copies and views --
    ("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", ()),
    ("zero_(Tensor(a!) self) -> Tensor(a!)", ()),
    ("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", ()),
    ("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", (C,)),
    ("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
     (C,)),
    # -- reductions --
    ("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", (C,)),
    ("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", (C,)),
    # -- linear algebra --
    ("mm(Tensor self, Tensor mat2) -> Tensor", (C,)),
    ("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", ()),
]

INDUCTOR = [
    ("_mm_plus_mm(Tensor a, Tensor b, Tensor c, Tensor d, Tensor(t!) out) -> Tensor(t!)", ()),
    ("_alloc_from_pool(Tensor self, int offset_bytes, ScalarType dtype, int[] size, int[] stride) -> Tensor", ()),
    ("_reinterpret_tensor(Tensor self, int[] size, int[] stride, int offset_increment=0) -> Tensor", ()),
    ("accumulate_grad_(Tensor variable, Tensor new_grad) -> ()", ()),
]
