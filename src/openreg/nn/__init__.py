"""``openreg.nn``: neural-network building blocks — ``Parameter``, ``Module``, the module classes of
``nn.modules`` (``Linear``, ``ReLU``, ``Dropout``, ``Sequential``, ...) and ``functional``.

>>> import openreg
>>> openreg.nn.functional.scaled_dot_product_attention is openreg.nn.attention.scaled_dot_product_attention
True
>>> len(list(openreg.nn.Linear(2, 3).parameters()))
2
"""
from . import attention, functional, grad, init, modules, parallel, utils  # noqa: F401
from .module import Module
from .modules import *
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401


def _install_generated_methods() -> None:
    from ..utils import backend_registration
    backend_registration._install_pending_module_methods(Module)


_install_generated_methods()

__all__ = ["Buffer", "DataParallel", "Module", "Parameter", "functional", "init", "modules", "parallel", "utils"]
__all__ += [n for n in modules.__all__ if n != "Module"]
