"""The device under the name ``cuda``: ``Tensor.cuda()``/``is_cuda``, ``Module.cuda()`` and ``openreg.cuda``.

openreg has no CUDA device type of its own, so the PrivateUse1 device may take the name ``cuda``
(``openreg.utils.rename_privateuse1_backend("cuda")`` or ``OPENREG_DEVICE_NAME=cuda`` at import). Then code
written for ``torch.cuda`` runs on openreg's device, on a GPU (cuda driver) and in CPU-only CI (emulated
driver) alike. Until then ``openreg.cuda`` is what a CPU-only PyTorch build has (``_cuda_unavailable.py``).

>>> import openreg
>>> t = openreg.ones(2)
>>> t.is_cuda
False
>>> openreg.cuda.is_available() == (openreg.utils.get_privateuse1_backend_name() == "cuda")
True
"""
from __future__ import annotations

import os
import sys

from .devices import CUDA, cuda_not_enabled, privateuse1_name
from .devices import device as Device

ENV_VAR = "OPENREG_DEVICE_NAME"


def cuda_enabled() -> bool:
    """Whether the PrivateUse1 device currently answers to ``cuda``."""
    return privateuse1_name() == CUDA


def tensor_cuda(self, device=None, non_blocking: bool = False, memory_format=None):
    """A copy of this tensor on a ``cuda`` device (``self`` when it is already there).

    Raises PyTorch's CPU-build ``AssertionError`` until openreg's device is named ``cuda``.
    """
    if not cuda_enabled():
        raise cuda_not_enabled()
    from .utils.backend_registration import _normalization_device
    index = _normalization_device(CUDA, device)
    return self.to(Device(CUDA, index), non_blocking=non_blocking, memory_format=memory_format)


def module_cuda(self, device=None):
    """Move every parameter and buffer of the module to a ``cuda`` device (in place); returns self."""
    if not cuda_enabled():
        raise cuda_not_enabled()
    return self._apply(lambda t: tensor_cuda(t, device))


def cpu_build_module():
    """``openreg.cuda`` while the device has another name."""
    from . import _cuda_unavailable
    return _cuda_unavailable


def expose(module) -> None:
    """Make ``module`` ``openreg.cuda`` (``import openreg.cuda`` and ``openreg.cuda.amp`` included)."""
    openreg = sys.modules["openreg"]
    openreg.cuda = module
    sys.modules["openreg.cuda"] = module
    from . import _cuda_amp
    sys.modules["openreg.cuda.amp"] = _cuda_amp
    for name in getattr(module, "_SUBMODULES", ()):     # import openreg.cuda.memory, .nvtx, ... (the device's)
        sys.modules[f"openreg.cuda.{name}"] = getattr(module, name)


def install() -> None:
    """At import: ``openreg.cuda`` and ``OPENREG_DEVICE_NAME`` (read once here). ``Tensor.cuda`` and
    ``Module.cuda`` are part of their classes (``tensor_cuda``, ``module_cuda``)."""
    expose(cpu_build_module())
    name = os.environ.get(ENV_VAR, "").strip()
    if name:
        from .utils.backend_registration import rename_privateuse1_backend
        rename_privateuse1_backend(name)


__all__ = ["cuda_enabled", "install"]
