"""``openreg.nn.utils.prune``: pruning by masks, as ``torch.nn.utils.prune``.

Pruning parameter ``name`` of a module moves the original tensor to the parameter ``name + "_orig"``, stores the
mask as the buffer ``name + "_mask"`` and recomputes the attribute ``name`` as ``mask * orig`` before every
forward (the pruning method is the module's forward pre-hook). Pruning the same parameter again combines the masks
through a ``PruningContainer``: the new method acts only on what the earlier masks left (the unpruned entries for
unstructured methods, the unpruned channels for structured ones). ``remove`` makes the pruning permanent.

>>> import openreg
>>> from openreg.nn.utils import prune
>>> m = openreg.nn.Linear(4, 2)
>>> with openreg.no_grad():
...     _ = m.weight.copy_(openreg.arange(8.0).view(2, 4) - 3.5)
>>> _ = prune.l1_unstructured(m, "weight", amount=0.5)
>>> sorted(n for n, _ in m.named_parameters()), [n for n, _ in m.named_buffers()]
(['bias', 'weight_orig'], ['weight_mask'])
>>> m.weight_mask.tolist()
[[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
>>> _ = prune.remove(m, "weight"); m.weight.tolist()
[[-3.5, -2.5, -0.0, -0.0], [0.0, 0.0, 2.5, 3.5]]
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ...tensor import Tensor
from ..modules.module import Module

__all__ = ["BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured", "LnStructured", "PruningContainer",
           "RandomStructured", "RandomUnstructured", "custom_from_mask", "global_unstructured", "identity",
           "is_pruned", "l1_unstructured", "ln_structured", "random_structured", "random_unstructured", "remove"]


class BasePruningMethod(ABC):
    """Base of the pruning methods: subclasses set ``PRUNING_TYPE`` (``"unstructured"``, ``"structured"`` or
    ``"global"``) and define ``compute_mask(t, default_mask)``; ``apply`` installs a method on a module's
    parameter, calling the method (the forward pre-hook) recomputes the pruned attribute."""

    _tensor_name: str | None = None
    PRUNING_TYPE: str

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for ``t``, combined with ``default_mask`` (the mask of earlier pruning)."""

    def apply_mask(self, module: Module) -> Tensor:
        """``module.<name>_mask * module.<name>_orig``: the pruned tensor."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Tensor | None = None,
              **kwargs: Any) -> BasePruningMethod:
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` (scores from ``importance_scores`` if given,
        else from the parameter), combining with earlier pruning of the same parameter."""
        from ... import ones_like
        old_key, old_method = None, None
        for key, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                if old_method is not None:
                    raise AssertionError(f"Only one pruning method (or container) can act on parameter {name} "
                                         f"of module {module}; found several forward pre-hooks")
                old_key, old_method = key, hook
        orig = getattr(module, name)
        if importance_scores is not None and importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}")
        method = cls(*args, **kwargs)
        method._tensor_name = name
        new_method = method
        if old_method is not None:
            # the combined mask is computed before anything changes: a failing method leaves the module as it was
            earlier = list(old_method) if isinstance(old_method, PruningContainer) else [old_method]
            method = PruningContainer(earlier[0])
            for m in earlier[1:] + [new_method]:
                method.add_pruning_method(m)
        scores = orig if importance_scores is None else importance_scores
        first = old_method is None
        if first:
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        mask = method.compute_mask(scores, default_mask=default_mask)
        if isinstance(old_method, PruningContainer):
            old_method.add_pruning_method(new_method)
            method = old_method
        if old_method is not None:
            del module._forward_pre_hooks[old_key]
            module._forward_pre_hooks_with_kwargs.pop(old_key, None)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:
        """``t`` times its mask (computed from ``importance_scores`` if given), without touching a module."""
        from ... import ones_like
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise AssertionError("importance_scores should have the same shape as tensor t")
        scores = t if importance_scores is None else importance_scores
        mask = self.compute_mask(scores, default_mask=ones_like(t) if default_mask is None else default_mask)
        return t * mask

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``module.<name>`` becomes a parameter holding the pruned values;
        ``<name>_orig`` and ``<name>_mask`` go away."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        name = self._tensor_name
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied in turn to one parameter; its mask is the last method's, computed on what
    the earlier masks left."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod | None) -> None:
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to have the attribute "
                                     "`dim` defined.")
            ndim = t.dim()
            dim = method.dim + ndim if method.dim < 0 else method.dim
            if not 0 <= dim < ndim:
                raise IndexError(f"Index is out of bounds for tensor of size {ndim}")
            others = [d for d in range(ndim) if d != dim]
            keep = default_mask.sum(dim=others) != 0 if others else default_mask != 0
            slc = tuple(keep if d == dim else slice(None) for d in range(ndim))
        elif kind == "global":
            slc = tuple(slice(None) for _ in range(t.dim()))
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (the default mask)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> Identity:  # type: ignore[override]
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a fraction in [0, 1] or a count) chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        from ... import rand_like, topk
        size = t.nelement()
        k = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(k, size)
        mask = default_mask.clone()
        if k != 0:
            idx = topk(rand_like(t).view(-1), k=k).indices
            mask.view(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: float) -> RandomUnstructured:  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries (a fraction in [0, 1] or a count) of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        from ... import topk
        size = t.nelement()
        k = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(k, size)
        mask = default_mask.clone()
        if k != 0:
            idx = topk(t.abs().view(-1), k=k, largest=False).indices
            mask.view(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: float,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> L1Unstructured:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` channels (slices along ``dim``) chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: float, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        from ... import kthvalue, rand, zeros_like
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        n = t.shape[self.dim]
        k = _compute_nparams_toprune(self.amount, n)
        _validate_pruning_amount(k, n)
        if k == 0:
            return default_mask
        prob = rand(n)
        threshold = kthvalue(prob, k=k).values
        mask = zeros_like(t)
        mask[_along(t, self.dim, prob > threshold)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: float, dim: int = -1) -> RandomStructured:  # type: ignore[override]
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels (slices along ``dim``) of smallest ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: float, n: float, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        from ... import topk, zeros_like
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        size = t.shape[self.dim]
        k = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(k, size)
        norm = _compute_norm(t, self.n, self.dim)
        keep = topk(norm, k=size - k, largest=True).indices
        if k == 0:
            return default_mask
        mask = zeros_like(t)
        mask[_along(t, self.dim, keep)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: float, n: float, dim: int,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> LnStructured:
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes with a given mask (combined with earlier masks)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"mask of shape {tuple(self.mask.shape)} does not match the parameter's "
                                 f"{tuple(default_mask.shape)}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> CustomFromMask:  # type: ignore[override]
        return super().apply(module, name, mask=mask)


def identity(module: Module, name: str) -> Module:
    """Prune ``module.<name>`` with an all-ones mask (adds ``<name>_orig``/``<name>_mask``); returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: float) -> Module:
    """Prune ``amount`` random entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: float, importance_scores: Tensor | None = None) -> Module:
    """Prune the ``amount`` entries of ``module.<name>`` of smallest absolute value (or score); returns
    ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: float, dim: int) -> Module:
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``; returns ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: float, n: float, dim: int,
                  importance_scores: Tensor | None = None) -> Module:
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest ``n``-norm; returns
    ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune ``module.<name>`` with ``mask``; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters: Iterable[tuple[Module, str]], pruning_method: type,
                        importance_scores: dict | None = None, **kwargs: Any) -> None:
    """Prune the ``(module, name)`` pairs together: ``pruning_method(**kwargs)`` (an unstructured method) ranks
    all their entries at once, so each tensor loses a different share.

    >>> import openreg
    >>> from openreg.nn.utils import prune
    >>> a, b = openreg.nn.Linear(2, 2, bias=False), openreg.nn.Linear(2, 2, bias=False)
    >>> with openreg.no_grad():
    ...     _ = a.weight.copy_(openreg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    ...     _ = b.weight.copy_(openreg.tensor([[5.0, 6.0], [7.0, 0.5]]))
    >>> prune.global_unstructured([(a, "weight"), (b, "weight")], prune.L1Unstructured, amount=3)
    >>> a.weight_mask.tolist(), b.weight_mask.tolist()
    ([[0.0, 0.0], [1.0, 1.0]], [[1.0, 1.0], [1.0, 0.0]])
    """
    from ... import ones_like
    from .convert_parameters import parameters_to_vector
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n)) for m, n in parameters])
    default_mask = parameters_to_vector([getattr(m, n + "_mask", None) if hasattr(m, n + "_mask")
                                         else ones_like(getattr(m, n)) for m, n in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container = PruningContainer(method)
    final_mask = container.compute_mask(scores.detach(), default_mask.detach())
    start = 0
    for m, n in parameters:
        p = getattr(m, n)
        custom_from_mask(m, n, mask=final_mask[start:start + p.numel()].view_as(p))
        start += p.numel()


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent (drop ``<name>_orig``, ``<name>_mask`` and the hook)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            module._forward_pre_hooks_with_kwargs.pop(key, None)
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or one of its submodules has a pruning forward pre-hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())


def _along(t: Tensor, dim: int, index: Any) -> tuple:
    dim = dim % t.dim()
    return tuple(index if d == dim else slice(None) for d in range(t.dim()))


def _validate_pruning_amount_init(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount: int, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t: Tensor) -> None:
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {t.shape} with {t.dim()} dims")


def _compute_nparams_toprune(amount: float, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n: float, dim: int) -> Tensor:
    dims = [d for d in range(t.dim()) if d != dim % t.dim()]
    return t.norm(p=n, dim=dims)
