"""Small top-level helpers of PyTorch: ``get_device_module``, ``is_storage`` and the deprecated ``chain_matmul``.

>>> import openreg
>>> openreg.get_device_module("cpu") is openreg.cpu, openreg.is_storage(openreg.ones(1).untyped_storage())
(True, True)
>>> openreg.chain_matmul(openreg.eye(2), openreg.ones(2, 3)).shape
openreg.Size([2, 3])
"""
from __future__ import annotations

__all__ = ["chain_matmul", "get_device_module", "is_storage"]


def get_device_module(device=None):
    """The device module of ``device`` (``openreg.cpu``, ``openreg.cuda`` ...); without one, the current
    accelerator's (the CPU's when there is none)."""
    import openreg
    if isinstance(device, openreg.device):
        name = device.type
    elif isinstance(device, str):
        name = openreg.device(device).type
    elif device is None:
        acc = openreg.accelerator.current_accelerator()
        name = "cpu" if acc is None else acc.type if hasattr(acc, "type") else str(acc)
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    module = getattr(openreg, name, None)
    if module is None:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")
    return module


def is_storage(obj) -> bool:
    """Whether ``obj`` is a storage (``UntypedStorage`` or ``TypedStorage``)."""
    from .storage import TypedStorage, UntypedStorage
    return isinstance(obj, (UntypedStorage, TypedStorage))


def chain_matmul(*matrices, out=None):
    """The product of the 2-D ``matrices`` in the cheapest order (``linalg.multi_dot``; deprecated in PyTorch)."""
    import openreg
    if len(matrices) == 1:
        result = matrices[0].clone() if matrices[0].dim() == 2 else None
        if result is None:
            raise RuntimeError(f"Tensor dimension is {matrices[0].dim()}, expected 2 instead.")
    else:
        for m in matrices:
            if m.dim() != 2:
                raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
        result = openreg.linalg.multi_dot(list(matrices))
    return result if out is None else out.resize_(result.shape).copy_(result)
