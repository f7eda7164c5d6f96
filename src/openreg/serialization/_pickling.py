"""The checkpoint's pickle in PyTorch's vocabulary: a pickler that writes openreg objects under PyTorch's global
names (storages as persistent ids), and unpicklers that map PyTorch's names back, with the weights-only allow-list
(plus user-registered safe globals) checked before anything is imported.
"""
from __future__ import annotations

import _compat_pickle
import contextlib
import io
import pickle
import pickletools
import sys
from collections.abc import Callable, Iterable
from typing import Any

from . import _rebuild
from ._torch_names import TORCH_ONLY_DTYPES, openreg_to_torch, storage_type, torch_to_openreg

_safe_globals: list = []          # entries of add_safe_globals: objects or (object, "module.name")
_BUILTIN_SAFE = {
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "complex"), ("builtins", "slice"),
    ("builtins", "range"), ("builtins", "bytearray"), ("_codecs", "encode"), ("builtins", "object"),
    ("collections", "OrderedDict"), ("collections", "Counter"),
}


class CheckpointPickler(pickle._Pickler):
    """Pickles ``obj`` as PyTorch's ``data.pkl``: storages become ``('storage', <type>, key, location, numel)``
    persistent ids (collected in ``storages``, in key order) and openreg globals get PyTorch's names. The
    pure-Python pickler is used because only it lets a global be written under another module's name."""

    def __init__(self, f, protocol: int):
        super().__init__(f, protocol)
        self.storages: list = []                    # untyped storages, index == key
        self._keys: dict[int, tuple[str, Any]] = {}  # id(untyped storage) -> (key, dtype it was saved as)

    def persistent_id(self, obj):
        from ..storage import UntypedStorage
        if isinstance(obj, _rebuild.TypedStorage):
            untyped, dtype = obj.untyped, obj.dtype
        elif isinstance(obj, UntypedStorage):
            untyped, dtype = obj, None
        else:
            return None
        if untyped.device.type == "meta":
            raise RuntimeError("openreg.save: cannot save a meta storage (meta tensors are saved without one)")
        seen = self._keys.get(id(untyped))
        if seen is None:
            seen = self._keys[id(untyped)] = (str(len(self.storages)), dtype)
            self.storages.append(untyped)
        elif seen[1] is not None and dtype is not None and seen[1] is not dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different "
                               "types")
        if dtype is None:
            return ("storage", type(untyped), seen[0], _rebuild.location(untyped.device), untyped.nbytes())
        return ("storage", storage_type(dtype), seen[0], _rebuild.location(untyped.device),
                untyped.nbytes() // dtype.itemsize)

    def save(self, obj, save_persistent_id=True):
        name = openreg_to_torch(obj)
        if name is None:
            return super().save(obj, save_persistent_id)
        self.framer.commit_frame()
        memo = self.memo.get(id(obj))
        if memo is not None:
            self.write(self.get(memo[0]))
            return
        self.write(pickle.GLOBAL + f"{name[0]}\n{name[1]}\n".encode())
        self.memoize(obj)


def _name(entry) -> tuple[str, object]:
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], str):
        return entry[1], entry[0]
    return f"{getattr(entry, '__module__', '?')}.{getattr(entry, '__qualname__', repr(entry))}", entry


def weights_only_message(module: str, name: str) -> str:
    return (f"Weights only load failed. Re-running `openreg.load` with `weights_only` set to `False` will likely "
            f"succeed, but it can result in arbitrary code execution. Do it only if you trust the source of the "
            f"file. Unsupported global: GLOBAL {module}.{name} was not an allowed global by default. Please use "
            f"`openreg.serialization.add_safe_globals([{name}])` or the "
            f"`openreg.serialization.safe_globals([{name}])` context manager to allowlist this global if you "
            f"trust this class/function.")


def check_opcodes(data: bytes, record: str) -> int:
    """Walk a pickle's opcodes without running them and return where it ends: unknown opcodes and memo indices no
    pickler writes (which make CPython's unpickler allocate a memo table of that size) are refused up front."""
    limit, end = len(data), 0
    try:
        for op, arg, pos in pickletools.genops(io.BytesIO(data)):
            if op.name in ("PUT", "BINPUT", "LONG_BINPUT", "GET", "BINGET", "LONG_BINGET") and not (
                    isinstance(arg, int) and 0 <= arg <= limit):
                raise pickle.UnpicklingError(f"record '{record}' is corrupt: memo index {arg!r} out of range")
            end = pos + 1
    except (ValueError, EOFError, UnicodeDecodeError) as e:
        raise pickle.UnpicklingError(f"record '{record}' is corrupt ({e})") from None
    return end


def next_pickle(f, record: str) -> bytes:
    """The bytes of the pickle that starts at ``f``'s position (checked by ``check_opcodes``); ``f`` is left after
    it. Read in growing windows, so a corrupted length field never makes anything allocate its size."""
    start, size = f.tell(), 1 << 16
    while True:
        f.seek(start)
        window = f.read(size)
        try:
            end = check_opcodes(window, record)
            break
        except pickle.UnpicklingError:
            if len(window) < size:      # the whole rest of the file is not one valid pickle
                raise
            size *= 4
    f.seek(start + end)
    return window[:end]


def _python3_name(module: str, name: str) -> tuple[str, str]:
    """Python 2 names in protocol 0-2 pickles (``__builtin__.set``) as Python 3 spells them."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _mapped(module: str, name: str):
    """The openreg object for a PyTorch name, or None; a PyTorch dtype openreg lacks raises saying so."""
    obj = torch_to_openreg(module, name)
    if obj is None and module == "torch" and name in TORCH_ONLY_DTYPES:
        raise pickle.UnpicklingError(f"the checkpoint holds tensors of dtype torch.{name}, which openreg does not "
                                     f"have")
    return obj


class _Loader:
    """Shared by both unpicklers: PyTorch's names map to openreg objects and storages come from ``load_pid``."""

    def __init__(self, f, load_pid: Callable, **kwargs):
        super().__init__(f, **kwargs)
        self._load_pid = load_pid

    def persistent_load(self, pid):
        return self._load_pid(pid)


class WeightsOnlyUnpickler(_Loader, pickle.Unpickler):
    """Only tensors, storages, dtypes, devices, plain containers and registered safe globals; the decision is
    taken on the name alone, so a file can never import a module by naming it."""

    def find_class(self, module: str, name: str):
        module, name = _python3_name(module, name)
        obj = _mapped(module, name)
        if obj is not None:
            return obj
        if (module, name) in _BUILTIN_SAFE:
            return super().find_class(module, name)
        full = f"{module}.{name}"
        for entry in _safe_globals:
            entry_name, entry_obj = _name(entry)
            if entry_name == full:
                return entry_obj
        if module.startswith("openreg.") and module in sys.modules:   # openreg's own Tensor subclasses
            from ..tensor import Tensor
            obj = getattr(sys.modules[module], name, None)
            if isinstance(obj, type) and issubclass(obj, Tensor):
                return obj
        raise pickle.UnpicklingError(weights_only_message(module, name))


class FullUnpickler(_Loader, pickle.Unpickler):
    """``weights_only=False``: any global (trusted files only); PyTorch's names still map onto openreg."""

    def find_class(self, module: str, name: str):
        obj = _mapped(*_python3_name(module, name))
        return obj if obj is not None else super().find_class(module, name)


# -- the safe-globals registry (PyTorch's torch.serialization API) ---------------------------------------------
def add_safe_globals(safe_globals: Iterable) -> None:
    """Allow these globals (objects, or ``(object, "module.name")`` pairs) in ``weights_only=True`` loads.

    >>> import openreg, collections
    >>> openreg.serialization.add_safe_globals([collections.Counter])
    >>> openreg.serialization.get_safe_globals() == [collections.Counter]
    True
    >>> openreg.serialization.clear_safe_globals()
    """
    for entry in safe_globals:
        if isinstance(entry, tuple) and not (len(entry) == 2 and isinstance(entry[1], str)):
            raise TypeError(f"add_safe_globals(): expected an object or (object, 'module.name'), got {entry!r}")
        _safe_globals.append(entry)


def get_safe_globals() -> list:
    """The globals added by ``add_safe_globals`` (a copy)."""
    return list(_safe_globals)


def clear_safe_globals() -> None:
    """Forget every global added by ``add_safe_globals``."""
    _safe_globals.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: Iterable):
    """Allow these globals inside the ``with`` block only.

    >>> import openreg, collections
    >>> with openreg.serialization.safe_globals([collections.Counter]):
    ...     len(openreg.serialization.get_safe_globals())
    1
    >>> openreg.serialization.get_safe_globals()
    []
    """
    before = list(_safe_globals)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _safe_globals[:] = before
