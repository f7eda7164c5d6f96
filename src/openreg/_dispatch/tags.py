"""Operator tags (PyTorch's ``torch.Tag``).

>>> from openreg._dispatch.tags import Tag
>>> Tag.pointwise.name
'pointwise'
"""
import enum


class Tag(enum.Enum):
    """Properties of an operator that passes and tools may rely on."""

    core = "core"
    pointwise = "pointwise"
    inplace_view = "inplace_view"
    view_copy = "view_copy"
    pt2_compliant_tag = "pt2_compliant_tag"
    data_dependent_output = "data_dependent_output"
    dynamic_output_shape = "dynamic_output_shape"
    generated = "generated"
    nondeterministic_seeded = "nondeterministic_seeded"
    nondeterministic_bitwise = "nondeterministic_bitwise"
    needs_fixed_stride_order = "needs_fixed_stride_order"
    flexible_layout = "flexible_layout"
    reduction = "reduction"
    maybe_aliasing_or_mutating = "maybe_aliasing_or_mutating"
    cudagraph_unsafe = "cudagraph_unsafe"

    def __repr__(self) -> str:
        return f"openreg.Tag.{self.name}"
