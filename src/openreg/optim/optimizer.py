"""``Optimizer``: parameter groups with per-group options, per-parameter state, ``zero_grad``, step hooks and
``state_dict``/``load_state_dict`` in PyTorch's layout (state keyed by parameter index, groups listing indices).

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.ones(2))
>>> opt = openreg.optim.SGD([p], lr=0.5)
>>> (p * p).sum().backward(); opt.step()
>>> p.tolist()
[0.0, 0.0]
>>> opt.state_dict()["param_groups"][0]["params"]
[0]
"""
from __future__ import annotations

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

from ..autograd.zero_grads import zero_grads
from ..tensor import Tensor
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a hyper-parameter that has no default (PyTorch's ``required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj: Any) -> str:
    from ..nn.module import _typename as typename
    return typename(obj)


def _step_with_hooks(step: Callable) -> Callable:
    """Wrap a subclass's ``step`` so that the step pre/post hooks run around it (as PyTorch's ``profile_hook_step``)."""
    # openreg's own optimizers treat complex parameters as pairs of reals, as PyTorch's do inside their update
    # functions; a user's optimizer gets its complex parameters as they are (its arithmetic is its own)
    call = _call_step if (getattr(step, "__module__", None) or "").startswith("openreg.optim.") else _call_plain

    @functools.wraps(step)
    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        if not self._optimizer_step_pre_hooks and not self._optimizer_step_post_hooks:
            return call(self, step, args, kwargs)     # no hooks (the common case): no copies of empty hook lists
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
        out = call(self, step, args, kwargs)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out
    wrapper._hooked = True  # type: ignore[attr-defined]
    return wrapper


def _call_plain(opt: Optimizer, step: Callable, args: tuple, kwargs: dict) -> Any:
    return step(opt, *args, **kwargs)


def _call_step(opt: Optimizer, step: Callable, args: tuple, kwargs: dict) -> Any:
    for group in opt.param_groups:
        for p in group["params"]:
            if p._dtype.is_complex:
                return _step_as_real(opt, step, args, kwargs)
    return step(opt, *args, **kwargs)


def _step_as_real(opt: Optimizer, step: Callable, args: tuple, kwargs: dict) -> Any:
    """``step`` with complex parameters as PyTorch's optimizers treat them: on real views (``view_as_real``)
    of the parameters, their gradients and their complex state tensors, so that the real and imaginary parts
    are independent scalars (Adam's second moment is ``re**2`` and ``im**2``, not ``grad**2``). The state
    keeps complex tensors, as PyTorch's. The gradients are the ones present when the step starts."""
    from ..operators.complex import view_as_complex, view_as_real
    swapped = []     # (group, original params, {view: param})
    for group in opt.param_groups:
        params = group["params"]
        if not any(p._dtype.is_complex for p in params):
            continue
        views, back = [], {}
        for p in params:
            if not p._dtype.is_complex:
                views.append(p)
                continue
            v = view_as_real(p)
            v._grad = None if p._grad is None else view_as_real(p._grad)
            if p in opt.state:
                opt.state[v] = {k: view_as_real(t) if isinstance(t, Tensor) and t._dtype.is_complex else t
                                for k, t in opt.state[p].items()}
            views.append(v)
            back[v] = p
        swapped.append((group, params, back))
        group["params"] = views
    try:
        return step(opt, *args, **kwargs)
    finally:
        for group, params, back in swapped:
            group["params"] = params
            for v, p in back.items():
                if v in opt.state:
                    opt.state[p] = {k: view_as_complex(t) if isinstance(t, Tensor) and t._dtype is v._dtype and
                                    tuple(t._size) == tuple(v._size) else t for k, t in opt.state.pop(v).items()}


class Optimizer:
    """Base class: subclasses define ``__init__`` (validating and passing ``defaults``) and ``step``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _step_with_hooks(step)

    def __init__(self, params: Iterable, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())

    def __repr__(self) -> str:
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n" + f"Parameter Group {i}"
            for key in sorted(group):
                if key != "params":
                    s += "\n" + f"    {key}: {group[key]}"
        return s + "\n)"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (missing options take the defaults).

        >>> import openreg
        >>> a, b = openreg.nn.Parameter(openreg.ones(1)), openreg.nn.Parameter(openreg.ones(1))
        >>> opt = openreg.optim.SGD([a], lr=0.1)
        >>> opt.add_param_group({"params": b, "lr": 0.01})
        >>> [g["lr"] for g in opt.param_groups]
        [0.1, 0.01]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        tensors, names = [], []
        for p in params:
            if isinstance(p, tuple):  # (name, parameter) from named_parameters()
                names.append(p[0])
                p = p[1]
            tensors.append(p)
        if names and len(names) != len(tensors):
            raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group)
        group["params"] = tensors
        if names:
            group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        existing = set()
        for other in self.param_groups:
            existing.update(id(p) for p in other["params"])
            if ("param_names" in group) != ("param_names" in other):
                current = "named" if "param_names" in group else "unnamed"
                raise ValueError(f"all optimizer param groups should be with/without names. cannot add param group "
                                 f"{current} with names to the optimizer")
        if any(id(p) in existing for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        param_group.clear()
        param_group.update(group)
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None by default, else to zeros (detached)."""
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure: Callable | None = None) -> Any:
        """One optimisation step (implemented by each optimizer)."""
        raise NotImplementedError(f"{type(self).__name__}.step() is not implemented")

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` runs before each ``step``; it may return new ``(args, kwargs)``."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` runs after each ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    # -- state ---------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{options..., "params": [indices]}]}``: parameters are
        numbered in group order; the state values are the optimizer's own tensors (not copies), as in PyTorch.

        >>> import openreg
        >>> p = openreg.nn.Parameter(openreg.ones(1))
        >>> opt = openreg.optim.SGD([p], lr=0.1, momentum=0.9)
        >>> p.grad = openreg.ones(1); opt.step()
        >>> sd = opt.state_dict(); list(sd["state"][0]), sd["param_groups"][0]["momentum"]
        (['momentum_buffer'], 0.9)
        """
        mapping: dict[int, int] = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    @staticmethod
    def _cast_state_value(param: Tensor, value: Any, key: Any = None) -> Any:
        """Put a loaded state value where the parameter is: tensors on its device (floating ones in its dtype, the
        ``step`` counter kept as it is)."""
        if isinstance(value, Tensor):
            if key == "step":
                return value
            if param.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: Optimizer._cast_state_value(param, v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast_state_value(param, v, key) for v in value)
        return value

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore options and state saved by ``state_dict`` (of this optimizer or one built the same way). Every
        check runs before anything changes, so a load that raises leaves the optimizer as it was.

        >>> import openreg
        >>> p = openreg.nn.Parameter(openreg.ones(1))
        >>> a, b = openreg.optim.Adam([p], lr=0.1), openreg.optim.Adam([p], lr=0.5)
        >>> b.load_state_dict(a.state_dict()); b.param_groups[0]["lr"]
        0.1
        """
        if not isinstance(state_dict, dict) or "param_groups" not in state_dict or "state" not in state_dict:
            raise ValueError("optimizer state_dict must be a dict with 'state' and 'param_groups' entries")
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                             "group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = self._cast_state_value(param, v)
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})

    # -- helpers for subclasses ----------------------------------------------------------------------
    def _run_closure(self, closure: Callable | None) -> Any:
        if closure is None:
            return None
        from ..autograd.grad_mode import enable_grad
        with enable_grad():
            return closure()

    def _step_by_device(self, closure: Callable | None) -> Any:
        """``step`` of optimizers whose ``_update(group, params)`` takes the parameters with gradients of one
        group that share a device and dtype (one batch of same-shaped scalars); returns the closure's loss."""
        loss = self._run_closure(closure) if closure is not None else None
        for group in self.param_groups:
            by_device: dict = {}
            for p in group["params"]:   # p.grad, p.device, p.dtype read from their fields (parameters are leaves)
                if p._grad is not None:
                    by_device.setdefault((p._storage.device, p._dtype), []).append(p)
            for params in by_device.values():
                self._update(group, params)
        return loss

    def _state_step(self, p: Tensor) -> Tensor:
        """The parameter's step counter after this step: a float32 CPU scalar tensor in the state, as PyTorch's."""
        state = self.state[p]
        step = state.get("step")
        if step is None:
            from ..dtypes import float32
            from ..operators.factories import zeros
            step = state["step"] = zeros((), dtype=float32)
        step.add_(1)
        return step
