"""Devices: ``openreg.device`` and the PrivateUse1 backend name.

>>> import openreg
>>> d = openreg.device("privateuseone:1")
>>> d.type, d.index, str(d)
('privateuseone', 1, 'privateuseone:1')
>>> openreg.device("cpu") == openreg.device("cpu", None)
True
"""
from __future__ import annotations

PRIVATEUSE1 = "privateuseone"
_privateuse1_name = PRIVATEUSE1
_privateuse1_used = False   # set when the first device storage is made; renaming is refused from then on


def privateuse1_name() -> str:
    """The current name of the PrivateUse1 backend (``"privateuseone"`` until renamed)."""
    return _privateuse1_name


def mark_privateuse1_used() -> None:
    global _privateuse1_used
    _privateuse1_used = True


def privateuse1_used() -> bool:
    """Whether memory was allocated on the PrivateUse1 device (then it keeps its name)."""
    return _privateuse1_used


def _set_privateuse1_name(name: str) -> None:
    global _privateuse1_name
    _privateuse1_name = name


# A CPU-only PyTorch build accepts "cuda" device objects and refuses them only when memory is needed; openreg
# does the same until the PrivateUse1 device is named "cuda" (OPENREG_DEVICE_NAME=cuda).
CUDA = "cuda"


def cuda_not_enabled(what: str = "") -> AssertionError:
    """PyTorch's CPU-build error for a CUDA request, telling how openreg turns its device into ``cuda``."""
    return AssertionError(
        "Torch not compiled with CUDA enabled" + (f" ({what})" if what else "") + ": openreg's device is named "
        f"'{_privateuse1_name}'; set OPENREG_DEVICE_NAME=cuda before importing openreg, or call "
        "openreg.utils.rename_privateuse1_backend('cuda') before the device is first used")


def canonical_type(type_name: str) -> str:
    """Map a user-facing device type to the internal one: the renamed backend name -> ``privateuseone``."""
    if type_name == _privateuse1_name or type_name == PRIVATEUSE1:
        return PRIVATEUSE1
    if type_name in ("cpu", "meta", CUDA):
        return type_name
    raise RuntimeError(
        f"Expected one of cpu, meta, {_privateuse1_name} device type at start of device string: {type_name}")


# Every device object is interned per (type, index): equal devices are the same object, so the hot paths
# compare them with ``is`` and hash them by identity (C-level, no Python ``__hash__`` call per dict lookup).
_interned: dict = {}


class device:
    """A device: a type (``cpu``, ``meta`` or the PrivateUse1 backend) and an optional index.

    Devices are interned: ``openreg.device("cpu") is openreg.device("cpu")``.
    """

    __slots__ = ("_type", "index")

    def __new__(cls, type_or_str=None, index: int | None = None):
        if isinstance(type_or_str, device):
            if index is not None:
                raise TypeError("device(): a device object can't be combined with an index")
            return type_or_str
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool) and index is None:
            type_name, idx = PRIVATEUSE1, type_or_str
        elif isinstance(type_or_str, str):
            type_name, idx = _parse(type_or_str)
            if index is not None:
                if idx is not None:
                    raise RuntimeError(f"type (string) must not include an index because index was passed "
                                       f"explicitly: {type_or_str}")
                idx = index
        else:
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({type(type_or_str).__name__}, {type(index).__name__})")
        if idx is not None:
            if isinstance(idx, bool) or not isinstance(idx, int):
                raise TypeError(f"device(): index must be an int, got {type(idx).__name__}")
            if idx < 0:
                raise RuntimeError(f"Device index must not be negative, got {idx}")
            if type_name == "cpu" and idx != 0:
                raise RuntimeError(f"CPU device index must be -1 or zero, got {idx}")
        key = (type_name, idx)
        self = _interned.get(key)
        if self is None:
            self = object.__new__(cls)
            self._type = type_name
            self.index = idx
            self = _interned.setdefault(key, self)
        return self

    @property
    def type(self) -> str:
        return _privateuse1_name if self._type == PRIVATEUSE1 else self._type

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other) -> bool:
        if other is self:
            return True
        if isinstance(other, str):
            try:
                other = device(other)
            except (RuntimeError, TypeError):
                return False
        return isinstance(other, device) and self._type == other._type and self.index == other.index

    # Interned: identity is equality among devices (a device also equals its string, which hashes apart,
    # as before).
    __hash__ = object.__hash__

    def __enter__(self) -> device:
        """``with device(...)``: factories called without ``device=`` inside the block create their tensors on
        this device (PyTorch's DeviceContext); the previous default comes back on exit."""
        _context_stack.append(_default_device)
        set_default_device(self)
        return self

    def __exit__(self, *exc) -> None:
        global _default_device
        _default_device = _context_stack.pop()

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (device, (self.type, self.index))


def _parse(text: str) -> tuple[str, int | None]:
    name, sep, idx = text.partition(":")
    type_name = canonical_type(name.strip())
    if not sep:
        return type_name, None
    if not idx.isdigit():
        raise RuntimeError(f"Invalid device string: '{text}'")
    return type_name, int(idx)


CPU = device("cpu")
META = device("meta")

_default_device: device | None = None     # set_default_device: where factories put tensors without device=
_context_stack: list = []                 # the defaults that `with device(...)` blocks replaced


def set_default_device(dev) -> None:
    """Make ``dev`` the device of tensors that factories (``zeros``, ``tensor``, ``arange`` ...) create without
    ``device=``; ``None`` restores the CPU.

    >>> import openreg
    >>> openreg.set_default_device("meta")
    >>> openreg.zeros(2).device, openreg.get_default_device()
    (device(type='meta'), device(type='meta'))
    >>> openreg.set_default_device(None)
    >>> openreg.zeros(2).device
    device(type='cpu')
    """
    global _default_device
    _default_device = None if dev is None else device(dev)
    if _default_device is not None and _default_device._type == "cpu":
        _default_device = None


def get_default_device() -> device:
    """The device factories use without ``device=`` (``openreg.device("cpu")`` unless set)."""
    if _default_device is None:
        return CPU
    if _default_device.index is None and _default_device._type not in ("cpu", "meta"):
        from . import privateuse1_hooks
        return device(_default_device._type, privateuse1_hooks.current_device_index())
    return _default_device


def default_device_or_none() -> device | None:
    """The device set by ``set_default_device`` (None: the CPU, the factories' own default)."""
    return _default_device
