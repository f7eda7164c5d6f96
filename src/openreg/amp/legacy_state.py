"""PyTorch's deprecated per-device autocast switches (``torch.set_autocast_cpu_enabled``, ...), each warning with
PyTorch's ``DeprecationWarning`` and acting on the same thread-local state as ``set_autocast_enabled(device, ...)``.
The ``gpu`` names mean ``"cuda"`` (openreg's device once it is named cuda).

>>> import openreg, warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     openreg.get_autocast_cpu_dtype(), openreg.is_autocast_cpu_enabled()
(openreg.bfloat16, False)
"""
from __future__ import annotations

import warnings

from . import state

__all__ = ["get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "get_autocast_ipu_dtype", "get_autocast_xla_dtype",
           "is_autocast_cpu_enabled", "is_autocast_ipu_enabled", "is_autocast_xla_enabled",
           "set_autocast_cpu_dtype", "set_autocast_cpu_enabled", "set_autocast_gpu_dtype", "set_autocast_ipu_dtype",
           "set_autocast_ipu_enabled", "set_autocast_xla_dtype", "set_autocast_xla_enabled"]


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"openreg.{old} is deprecated. Please use openreg.{new} instead.", DeprecationWarning, stacklevel=3)


def get_autocast_gpu_dtype():
    """``get_autocast_dtype("cuda")``, deprecated."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return state.get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype) -> None:
    """``set_autocast_dtype("cuda", dtype)``, deprecated."""
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    state.set_autocast_dtype("cuda", dtype)


def get_autocast_cpu_dtype():
    """``get_autocast_dtype("cpu")``, deprecated."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return state.get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype) -> None:
    """``set_autocast_dtype("cpu", dtype)``, deprecated."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    state.set_autocast_dtype("cpu", dtype)


def is_autocast_cpu_enabled() -> bool:
    """``is_autocast_enabled("cpu")``, deprecated."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return state.is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """``set_autocast_enabled("cpu", enabled)``, deprecated."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    state.set_autocast_enabled("cpu", enabled)


# IPU and XLA: devices openreg does not have; as a PyTorch build without them, the state is kept per thread.
_other = {"ipu": [False, None], "xla": [False, None]}


def _other_dtype(kind: str):
    from .. import dtypes
    return _other[kind][1] or (dtypes.float16 if kind == "ipu" else dtypes.bfloat16)   # PyTorch's defaults


def is_autocast_ipu_enabled() -> bool:
    _deprecated("is_autocast_ipu_enabled()", "is_autocast_enabled('ipu')")
    return _other["ipu"][0]


def set_autocast_ipu_enabled(enabled: bool) -> None:
    _deprecated("set_autocast_ipu_enabled(enabled)", "set_autocast_enabled('ipu', enabled)")
    _other["ipu"][0] = bool(enabled)


def get_autocast_ipu_dtype():
    _deprecated("get_autocast_ipu_dtype()", "get_autocast_dtype('ipu')")
    return _other_dtype("ipu")


def set_autocast_ipu_dtype(dtype) -> None:
    _deprecated("set_autocast_ipu_dtype(dtype)", "set_autocast_dtype('ipu', dtype)")
    _other["ipu"][1] = dtype


def is_autocast_xla_enabled() -> bool:
    _deprecated("is_autocast_xla_enabled()", "is_autocast_enabled('xla')")
    return _other["xla"][0]


def set_autocast_xla_enabled(enabled: bool) -> None:
    _deprecated("set_autocast_xla_enabled(enabled)", "set_autocast_enabled('xla', enabled)")
    _other["xla"][0] = bool(enabled)


def get_autocast_xla_dtype():
    _deprecated("get_autocast_xla_dtype()", "get_autocast_dtype('xla')")
    return _other_dtype("xla")


def set_autocast_xla_dtype(dtype) -> None:
    _deprecated("set_autocast_xla_dtype(dtype)", "set_autocast_dtype('xla', dtype)")
    _other["xla"][1] = dtype
