"""Container modules: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``, ``ParameterDict``.

>>> import openreg
>>> model = openreg.nn.Sequential(openreg.nn.Linear(4, 3), openreg.nn.ReLU(), openreg.nn.Linear(3, 1))
>>> model(openreg.ones(2, 4)).shape
openreg.Size([2, 1])
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import Any

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def _index(idx, size: int) -> int:
    """``idx`` as a non-negative position of a container of ``size`` entries (PyTorch's IndexError text)."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Modules applied in order; indexable (ints and slices), iterable, appendable.

    >>> import openreg
    >>> seq = openreg.nn.Sequential(openreg.nn.ReLU(), openreg.nn.Identity())
    >>> len(seq), type(seq[-1]).__name__, len(seq[:1])
    (2, 'Identity', 1)
    """

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
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return next(islice(self._modules.values(), _index(idx, len(self)), None))

    def __setitem__(self, idx, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self))]
        self.add_module(key, module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self))]]):
            del self._modules[key]
        # keep the numbering contiguous, as PyTorch does
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        for m in sequential:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")  # noqa: TRY004 (PyTorch's type)
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(mods))
        return self


class ModuleList(Module):
    """A list of submodules, registered under ``"0"``, ``"1"``, ...; no ``forward`` of its own.

    >>> import openreg
    >>> layers = openreg.nn.ModuleList([openreg.nn.Linear(2, 2) for _ in range(3)])
    >>> len(layers), len(list(layers.parameters())), sorted(layers.state_dict())[:2]
    (3, 6, ['0.bias', '0.weight'])
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self))), module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [str(_index(idx, len(self)))]):
            del self._modules[key]
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:  # noqa: PYI034
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return type(self)([*self, *other])

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules = OrderedDict()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def pop(self, key: int) -> Module:
        m = self[key]
        del self[key]
        return m

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class ModuleDict(Module):
    """An ordered dict of submodules (keys are the submodule names).

    >>> import openreg
    >>> d = openreg.nn.ModuleDict({"proj": openreg.nn.Linear(2, 2), "act": openreg.nn.ReLU()})
    >>> list(d.keys()), "proj" in d, sorted(d.state_dict())
    (['proj', 'act'], True, ['proj.bias', 'proj.weight'])
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        m = self[key]
        del self[key]
        return m

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            f"{type(modules).__name__}")
        items = modules.items() if isinstance(modules, Mapping) else modules
        for j, m in enumerate(items):
            if isinstance(modules, Mapping):
                self[m[0]] = m[1]
                continue
            if not isinstance(m, Iterable):
                raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is "
                                f"{type(m).__name__}")
            m = tuple(m)
            if len(m) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(m)}; 2 is required")
            self[m[0]] = m[1]

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _as_parameter(value: Any) -> Any:
    """Plain tensors become Parameters (as PyTorch's ParameterList/Dict do); other values are kept as is."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list of parameters registered under ``"0"``, ``"1"``, ...; tensors assigned are made Parameters.

    >>> import openreg
    >>> plist = openreg.nn.ParameterList([openreg.zeros(2), openreg.ones(3)])
    >>> len(plist), [tuple(p.shape) for p in plist.parameters()], plist[0].requires_grad
    (2, [(2,), (3,)], True)
    """

    def __init__(self, values: Iterable | None = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self))))

    def __setitem__(self, idx: int, param) -> None:
        idx = _index(idx, len(self))
        self._forget(str(idx))
        setattr(self, str(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable) -> ParameterList:  # noqa: PYI034
        return self.extend(parameters)

    def append(self, value) -> ParameterList:
        new_idx = len(self)
        object.__setattr__(self, "_size", new_idx + 1)
        setattr(self, str(new_idx), _as_parameter(value))
        return self

    def extend(self, values: Iterable) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got "
                            f"{type(values).__name__}")
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        lines = []
        for i, p in enumerate(self):
            if isinstance(p, Tensor):
                size = "x".join(str(s) for s in p.size())
                lines.append(f"  ({i}): Parameter containing: [{p.type()} of size {size}"
                             f"{'' if p.device.type == 'cpu' else ' (' + str(p.device) + ')'}]")
            else:
                lines.append(f"  ({i}): Object of type: {type(p).__name__}")
        return "\n".join(lines)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class ParameterDict(Module):
    """An ordered dict of parameters (keys are the parameter names); tensors assigned are made Parameters.

    >>> import openreg
    >>> pd = openreg.nn.ParameterDict({"scale": openreg.ones(2)})
    >>> pd["shift"] = openreg.zeros(2)
    >>> list(pd.keys()), sorted(pd.state_dict())
    (['scale', 'shift'], ['scale', 'shift'])
    """

    def __init__(self, parameters=None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings, not {type(key).__name__}")
        self._keys[key] = None
        self._forget(key)
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key: str, default=None):
        return self[key] if key in self._keys else default

    def pop(self, key: str):
        v = self[key]
        del self[key]
        return v

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def update(self, parameters) -> None:
        if not isinstance(parameters, Iterable):
            raise TypeError(f"ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            f"{type(parameters).__name__}")
        items = parameters.items() if isinstance(parameters, Mapping) else parameters
        for j, p in enumerate(items):
            p = tuple(p)
            if len(p) != 2:
                raise ValueError(f"ParameterDict update sequence element #{j} has length {len(p)}; 2 is required")
            self[p[0]] = p[1]

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')
