"""The ADInplaceOrView layer: bump the version counter of every tensor an operator writes.

Kernels are generated per mutable operator (``Tensor(a!)`` in its schema) when it is defined; every other
operator falls through this key.

>>> import openreg
>>> t = openreg.zeros(2)
>>> v = t._version
>>> _ = t.add_(1)
>>> t._version == v + 1
True
"""
from __future__ import annotations

from . import dispatcher
from .keys import AFTER_ADINPLACE_MASK, DispatchKey


def written_arguments(schema) -> list[tuple[int, str, bool]]:
    """``(position, name, kwarg_only)`` of each argument the schema says is written (``Tensor(a!)``)."""
    out = []
    pos = 0
    for arg in schema.arguments:
        if arg.alias_info is not None and arg.alias_info.is_write:
            out.append((pos, arg.name, arg.kwarg_only))
        if not arg.kwarg_only:
            pos += 1
    return out


def make_kernel(entry):
    """The ADInplaceOrView kernel of a mutable operator (called with its key set). It reads only the keys below
    its own (``_openreg_keyset_mask``), so the dispatcher may pass it the key set of a call on plain tensors as is."""
    written = written_arguments(entry.schema)
    if len(written) == 1 and written[0][0] == 0 and not written[0][2] and not entry.schema.arguments[0].type.is_list:
        name = written[0][1]

        def ad_inplace_or_view_first(ks, *args, **kwargs):
            # the common in-place op (``add_``, ``mul_``): one tensor written, the first argument
            result = entry.overload.redispatch_fn(ks & AFTER_ADINPLACE_MASK, *args, **kwargs)
            t = args[0] if args else kwargs.get(name)
            if t is not None:
                t._vc.value += 1
            return result
        ad_inplace_or_view_first._openreg_keyset_mask = AFTER_ADINPLACE_MASK
        return ad_inplace_or_view_first

    def ad_inplace_or_view(ks, *args, **kwargs):
        result = entry.overload.redispatch_fn(ks & AFTER_ADINPLACE_MASK, *args, **kwargs)
        for pos, name, kw in written:
            value = kwargs.get(name) if kw else (args[pos] if pos < len(args) else kwargs.get(name))
            if value is None:
                continue
            for t in (value if isinstance(value, (list, tuple)) else (value,)):
                if t is not None:
                    t._vc.value += 1
        return result
    ad_inplace_or_view._openreg_keyset_mask = AFTER_ADINPLACE_MASK
    return ad_inplace_or_view


def register_for(qualname: str):
    """Register the version-bumping kernel for a defined operator when its schema mutates; else None."""
    entry = dispatcher.find(qualname)
    if entry is None or not written_arguments(entry.schema):
        return None
    return dispatcher.register_kernel(qualname, DispatchKey.ADInplaceOrView, make_kernel(entry),
                                      with_keyset=True, site="openreg ADInplaceOrView")
