"""Explicit device support of a kernel: whether it runs on every array module (NumPy and CuPy).

A CPU kernel that is written against the array module of its tensors (``xp``) also runs on the device; the
kernel says so itself with :func:`runs_on_device`, and the device backend registers it for PrivateUse1
(``backends/privateuseone/device_ops.register_generic``). Nothing is inferred from a kernel's module, source
or bytecode: an unmarked kernel is NumPy-only. Operator records declare the same with ``Op(device=...)``.

>>> @runs_on_device
... def double(x):
...     return x + x
>>> declares_device_support(double), declares_device_support(lambda x: x)
(True, False)
"""
from __future__ import annotations

from collections.abc import Callable

_FLAG = "_openreg_runs_on_device"


def runs_on_device(fn: Callable) -> Callable:
    """Mark a kernel as written against the array module of its tensors, so the device may run it too."""
    setattr(fn, _FLAG, True)
    return fn


def declares_device_support(fn: Callable) -> bool:
    """Whether ``fn`` was marked with :func:`runs_on_device` (unmarked kernels are NumPy-only)."""
    return getattr(fn, _FLAG, False) is True


__all__ = ["declares_device_support", "runs_on_device"]
