"""The base of openreg's named constants: layouts and memory formats.

Such a constant is one object per schema word; it prints as ``openreg.<name>``, compares equal to itself and to
its schema name (so code and schema defaults may use either), and pickles as the module attribute of that name.

>>> from openreg import layouts
>>> layouts.sparse_coo == "sparse_coo", repr(layouts.strided)
(True, 'openreg.strided')
"""
from __future__ import annotations


class NamedConstant:
    """One named constant; subclasses are the kinds (``layout``, ``memory_format``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"openreg.{self.name}"

    def __eq__(self, other) -> bool:
        if isinstance(other, type(self)):
            return other.name == self.name
        return isinstance(other, str) and other == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self):
        # A string: pickle stores a reference to the attribute of that name in the subclass's module.
        return self.name
