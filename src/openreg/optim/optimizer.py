"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``/``load_state_dict``.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.ones(2))
>>> opt = openreg.optim.SGD([p], lr=0.5)
>>> (p * p).sum().backward(); opt.step()
>>> p.tolist()
[0.0, 0.0]
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from ..tensor import Tensor


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class: subclasses implement ``step`` over ``self.param_groups``."""

    def __init__(self, params: Iterable, defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got " + type(params).__name__)
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own hyper-parameters."""
        params = param_group["params"]
        param_group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(p).__name__)
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for k, v in self.defaults.items():
            if v is required and k not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {k}")
            param_group.setdefault(k, v)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in existing for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter (to None by default)."""
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zero_()

    def step(self, closure: Callable | None = None):
        raise NotImplementedError

    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``."""
        index, groups = 0, []
        ids = {}
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            packed["params"] = []
            for p in g["params"]:
                ids[id(p)] = index
                packed["params"].append(index)
                index += 1
            groups.append(packed)
        state = {ids[id(p)]: s for p, s in self.state.items() if id(p) in ids}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore hyper-parameters and state saved by ``state_dict``."""
        state_dict = copy.deepcopy(state_dict)
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        params = [p for g in self.param_groups for p in g["params"]]
        if sum(len(g["params"]) for g in groups) != len(params):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        self.state = {}
        for k, v in state_dict["state"].items():
            p = params[int(k)]
            self.state[p] = {n: (x.to(p.device) if isinstance(x, Tensor) and x.dim() > 0 else x)
                             for n, x in v.items()}
        for mine, saved in zip(self.param_groups, groups):
            for k, v in saved.items():
                if k != "params":
                    mine[k] = v

    def __repr__(self) -> str:
        s = type(self).__name__ + " ("
        for i, g in enumerate(self.param_groups):
            s += f"\nParameter Group {i}"
            for k in sorted(g):
                if k != "params":
                    s += f"\n    {k}: {g[k]}"
        return s + "\n)"

    def _run_closure(self, closure):
        if closure is None:
            return None
        from ..autograd.grad_mode import enable_grad
        with enable_grad():
            return closure()

    def _state(self, p: Any) -> dict:
        s = self.state.get(p)
        if s is None:
            s = self.state[p] = {}
        return s
