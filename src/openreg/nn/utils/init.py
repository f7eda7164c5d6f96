"""``torch.nn.utils.skip_init``: build a module without running its parameter initialisation.

>>> import openreg
>>> m = openreg.nn.utils.skip_init(openreg.nn.Linear, 5, 1)
>>> tuple(m.weight.shape), m.weight.device.type
((1, 5), 'cpu')
"""
from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls(*args, **kwargs)`` on the meta device and move it to ``device`` (default CPU)
    with uninitialised storage: the module class must accept a ``device`` argument."""
    from ..modules.module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")  # noqa: TRY004 - PyTorch raises RuntimeError
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
