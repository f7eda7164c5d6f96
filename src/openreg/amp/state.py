"""Autocast's thread-local state: enabled per device (the Autocast keys of the thread's excluded set), the
lower-precision dtype per device, the weight-cast cache and its switch, and the nesting depth.

Device types: ``"cpu"`` (key ``AutocastCPU``) and openreg's device under its current name (key
``AutocastPrivateUse1``). ``"cuda"`` while the device has another name is accepted, as on a CPU-only PyTorch
build, but no tensor can be on it.

>>> import openreg
>>> openreg.is_autocast_enabled("cpu"), openreg.get_autocast_dtype("cpu")
(False, openreg.bfloat16)
>>> openreg.get_autocast_dtype(openreg.utils.get_privateuse1_backend_name())
openreg.float16
"""
from __future__ import annotations

import threading
import weakref

from .. import dtypes
from .._dispatch import tls
from .._dispatch.keys import DispatchKey
from ..devices import CUDA, PRIVATEUSE1, canonical_type

# Default lower-precision dtypes, as PyTorch: bfloat16 on CPU, float16 on CUDA and PrivateUse1.
_DEFAULT_DTYPE = {"cpu": dtypes.bfloat16, PRIVATEUSE1: dtypes.float16, CUDA: dtypes.float16}
_KEY = {"cpu": DispatchKey.AutocastCPU, PRIVATEUSE1: DispatchKey.AutocastPrivateUse1}


class _State(threading.local):
    def __init__(self):
        self.dtype = dict(_DEFAULT_DTYPE)
        self.enabled_without_key: dict[str, bool] = {}   # "cuda" before the rename: nothing to cast
        self.cache_enabled = True
        self.nesting = 0
        self.cache: dict[int, tuple] = {}     # id(fp32 leaf) -> (weakref to it, its lower-precision copy)


state = _State()


def internal_type(device_type: str) -> str:
    """``"cpu"``, ``"privateuseone"`` (the device under any name) or ``"cuda"`` (not renamed): else raise."""
    if not isinstance(device_type, str):
        raise TypeError(f"device_type must be a str, got {type(device_type).__name__}")
    kind = canonical_type(device_type)   # RuntimeError "Expected one of cpu, ..." for unknown names
    if kind == "meta":
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return kind


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can be used on ``device_type`` (``cpu``, openreg's device, and ``cuda``).

    >>> import openreg
    >>> openreg.amp.is_autocast_available("cpu"), openreg.amp.is_autocast_available("meta")
    (True, False)
    """
    try:
        internal_type(device_type)
    except RuntimeError:
        return False
    return True


def key_of(kind: str) -> DispatchKey | None:
    return _KEY.get(kind)


def is_autocast_enabled(device_type: str = CUDA) -> bool:
    """Whether autocast is on for ``device_type`` on this thread (default ``"cuda"``, as PyTorch).

    >>> import openreg
    >>> with openreg.autocast("cpu"):
    ...     openreg.is_autocast_enabled("cpu")
    True
    """
    kind = internal_type(device_type)
    key = key_of(kind)
    if key is None:
        return state.enabled_without_key.get(kind, False)
    return not tls.state.exclude >> key & 1


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Turn autocast on or off for ``device_type`` on this thread (what ``autocast`` does on entry/exit)."""
    kind = internal_type(device_type)
    key = key_of(kind)
    if key is None:
        state.enabled_without_key[kind] = bool(enabled)
    elif enabled:
        tls.state.exclude &= ~(1 << key)
    else:
        tls.state.exclude |= 1 << key


def get_autocast_dtype(device_type: str):
    """The lower-precision dtype autocast uses on ``device_type`` (bfloat16 on CPU, float16 on the device)."""
    return state.dtype[internal_type(device_type)]


def set_autocast_dtype(device_type: str, dtype) -> None:
    if not isinstance(dtype, dtypes.dtype):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    state.dtype[internal_type(device_type)] = dtype


def is_autocast_cache_enabled() -> bool:
    return state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Drop the cached lower-precision copies of weights (done when the outermost autocast exits)."""
    state.cache.clear()


def autocast_increment_nesting() -> int:
    state.nesting += 1
    return state.nesting


def autocast_decrement_nesting() -> int:
    state.nesting -= 1
    return state.nesting


def cached(t, dtype, make):
    """``make()`` (the cast of ``t`` to ``dtype``), remembered for ``t`` while the outermost autocast lasts."""
    hit = state.cache.get(id(t))
    if hit is not None and hit[0]() is t and hit[1].dtype is dtype:
        return hit[1]
    out = make()
    state.cache[id(t)] = (weakref.ref(t), out)
    return out
