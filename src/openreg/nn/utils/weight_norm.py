"""``weight_norm``/``remove_weight_norm`` (the forward-pre-hook form, deprecated in PyTorch in favour of
``parametrizations.weight_norm``): ``weight = g * v / ||v||`` with the norm over every dimension but ``dim``
(``dim=None``: the whole tensor); the module holds the parameters ``weight_g`` and ``weight_v``, PyTorch's
state-dict keys.

>>> import warnings
>>> import openreg
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     m = weight_norm(openreg.nn.Linear(3, 2))
>>> sorted(m.state_dict()), tuple(m.weight_g.shape)
(['bias', 'weight_g', 'weight_v'], (2, 1))
>>> _ = remove_weight_norm(m); sorted(m.state_dict())
['bias', 'weight']
"""
from __future__ import annotations

import warnings
from typing import Any

from ...tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dimension but ``dim``, kept as size-1 dimensions (``dim=-1``: the norm
    of the whole tensor, 0-d), as ``torch.norm_except_dim``.

    >>> import openreg
    >>> norm_except_dim(openreg.tensor([[3.0, 4.0], [0.0, 1.0]]), 2, 0).tolist()
    [[5.0], [1.0]]
    """
    if dim == -1:
        return v.norm(pow)
    dims = [d for d in range(v.dim()) if d != dim]
    if not dims:
        return v.abs() if pow != 0 else (v != 0).to(v.dtype)
    return v.norm(pow, dims, keepdim=True)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / ||v||)`` (``torch._weight_norm``), differentiable in ``v`` and ``g``."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int) -> None:
        if dim is None:
            dim = -1
        self.name, self.dim = name, dim

    def compute_weight(self, module: Module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        from ...autograd.grad_mode import no_grad
        del module._parameters[name]
        with no_grad():
            g = norm_except_dim(weight, 2, dim)
        module.register_parameter(name + "_g", Parameter(g.detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        from ...autograd.grad_mode import no_grad
        with no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (recomputed before each forward); returns ``module``.
    Deprecated as in PyTorch (a ``FutureWarning``) in favour of ``nn.utils.parametrizations.weight_norm``.

    >>> import warnings
    >>> import openreg
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = weight_norm(openreg.nn.Linear(2, 2), dim=None)
    >>> m.weight_g.shape, m(openreg.ones(1, 2)).shape
    (openreg.Size([]), openreg.Size([1, 2]))
    """
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Fold the weight-norm reparametrization back into one parameter ``module.<name>``; returns ``module``.

    >>> import openreg
    >>> remove_weight_norm(openreg.nn.Linear(1, 1))
    Traceback (most recent call last):
    ...
    ValueError: weight_norm of 'weight' not found in Linear(in_features=1, out_features=1, bias=True)
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
