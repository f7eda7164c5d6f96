"""``spectral_norm``/``remove_spectral_norm`` (the forward-pre-hook form): ``weight = weight_orig / sigma`` with the
largest singular value ``sigma`` of the weight (as a matrix with ``dim`` first) estimated by power iteration, one
or more steps per training forward, on the buffers ``weight_u``/``weight_v``. PyTorch's state-dict keys
(``weight_orig``, ``weight_u``, ``weight_v``).

>>> import openreg
>>> m = spectral_norm(openreg.nn.Linear(4, 3))
>>> sorted(m.state_dict()), tuple(m.weight_u.shape), tuple(m.weight_v.shape)
(['bias', 'weight_orig', 'weight_u', 'weight_v'], (3,), (4,))
"""
from __future__ import annotations

from typing import Any

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


def _default_dim(module: Module) -> int:
    from ..modules import conv
    transposed = tuple(getattr(conv, n) for n in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
                       if hasattr(conv, n))
    return 1 if isinstance(module, transposed) else 0


class SpectralNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_orig``, ``<name>_u`` and ``<name>_v``."""

    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name, self.dim = name, dim
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations, self.eps = n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = F.normalize(weight_mat.t().matmul(u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(weight_mat.matmul(v), dim=0, eps=self.eps, out=u)
                u, v = u.clone(), v.clone()
        sigma = (u * weight_mat.matmul(v)).sum()
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its spectral norm before each forward (power iteration while training);
    ``dim`` defaults to 1 for transposed convolutions, else 0. Returns ``module``.

    >>> import openreg
    >>> m = spectral_norm(openreg.nn.Linear(5, 5, bias=False))
    >>> for _ in range(30):
    ...     _ = m(openreg.ones(1, 5))
    >>> s = openreg.tensor(__import__("numpy").linalg.svd(m.weight.detach().numpy(), compute_uv=False))
    >>> round(s.max().item(), 3)
    1.0
    """
    if dim is None:
        dim = _default_dim(module)
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Replace the spectral-norm reparametrization by one parameter holding the current normalized weight.

    >>> import openreg
    >>> m = remove_spectral_norm(spectral_norm(openreg.nn.Linear(2, 2)))
    >>> sorted(m.state_dict())
    ['bias', 'weight']
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    return module
