"""Container modules: ``Sequential``.

>>> import openreg
>>> model = openreg.nn.Sequential(openreg.nn.Linear(4, 3), openreg.nn.ReLU(), openreg.nn.Linear(3, 1))
>>> model(openreg.ones(2, 4)).shape
openreg.Size([2, 1])
"""
from __future__ import annotations

from collections import OrderedDict

from .module import Module

__all__ = ["Sequential"]


class Sequential(Module):
    """Modules applied in order; indexable and iterable."""

    def __init__(self, *args) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, idx):
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return mods[idx]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self
