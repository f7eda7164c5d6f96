"""``LazyModuleMixin``: modules whose parameter shapes are inferred from the first input (PyTorch's lazy modules).

A lazy module declares its parameters and buffers as ``UninitializedParameter``/``UninitializedBuffer``. Until
they are materialized, a forward pre-hook calls ``initialize_parameters(*args, **kwargs)`` before each
``forward``, which gives them their shapes from the input and initialises them; once nothing is uninitialized,
the hooks are removed and the module becomes its ``cls_to_become`` (``LazyLinear`` becomes ``Linear``). The
placeholders are materialized in place, so a ``Parameter`` object (and an optimizer that holds it) stays the
same. Loading a state dict whose tensors have shapes materializes the placeholders to those shapes first; a
state dict of an uninitialized module holds the placeholders themselves.

>>> import openreg
>>> from openreg.nn.modules.lazy import LazyModuleMixin
>>> class Scale(LazyModuleMixin, openreg.nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.weight = openreg.nn.UninitializedParameter()
...     def initialize_parameters(self, x):
...         if self.has_uninitialized_params():
...             with openreg.no_grad():
...                 self.weight.materialize((x.shape[-1],))
...                 self.weight.fill_(2.0)
...     def forward(self, x):
...         return x * self.weight
>>> m = Scale()
>>> m.has_uninitialized_params()
True
>>> m(openreg.ones(2, 3)).tolist(), tuple(m.weight.shape), m.has_uninitialized_params()
([[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]], (3,), False)
"""
from __future__ import annotations

import itertools

from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixin (listed before the module class) for modules with parameters of inferred shape; subclasses write
    ``initialize_parameters`` and may name the class to become with ``cls_to_become``."""

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        # placeholders are saved as themselves: detaching one would give a tensor of no shape
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs) -> None:
        """Materialize each placeholder whose key the state dict holds as a real tensor, to that tensor's shape
        (the load then copies the values in)."""
        from ...autograd.grad_mode import no_grad
        from ..module import validating_load
        if validating_load():       # the checking pass of load_state_dict changes nothing
            return
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if param is not None and key in state_dict and is_lazy(param) and not is_lazy(state_dict[key]):
                with no_grad():
                    param.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Give the uninitialized parameters their shapes from the first input (written by each lazy module)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer of this module (not its children) is still a placeholder."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
