"""Stochastic weight averaging and exponential moving averages of a model (``torch.optim.swa_utils``):
``AveragedModel`` keeps a copy of a model whose parameters (and, with ``use_buffers=True``, buffers) are a running
average of the model's; ``SWALR`` anneals each group's learning rate to a constant ``swa_lr``; ``update_bn``
recomputes batch-norm statistics with one pass over the data. The state dict of an ``AveragedModel`` has PyTorch's
keys (``n_averaged`` and ``module.<name>``).

>>> import openreg
>>> from openreg.optim.swa_utils import AveragedModel
>>> model = openreg.nn.Linear(1, 1, bias=False)
>>> swa = AveragedModel(model)
>>> for value in (1.0, 2.0, 6.0):
...     with openreg.no_grad():
...         _ = model.weight.fill_(value)
...     swa.update_parameters(model)
>>> swa.module.weight.item(), swa.n_averaged.item(), sorted(swa.state_dict())
(3.0, 3, ['module.weight', 'n_averaged'])
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from ..tensor import Tensor
from ._pointwise import lerp_
from .lr_scheduler import LRScheduler, _per_group
from .optimizer import Optimizer

__all__ = ["SWALR", "AveragedModel", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn", "update_bn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """In-place exponential moving average of lists of tensors: ``ema = decay * ema + (1 - decay) * current``.

    >>> import openreg
    >>> ema, cur = [openreg.zeros(2)], [openreg.ones(2)]
    >>> get_ema_multi_avg_fn(0.75)(ema, cur, None); ema[0].tolist()
    [0.25, 0.25]
    """
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list: list, current_param_list: list, _: Any) -> None:
        if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
            for e, c in zip(ema_param_list, current_param_list):
                lerp_(e, c, 1 - decay)
        else:
            for e, c in zip(ema_param_list, current_param_list):
                e.copy_(e * decay + c * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """In-place equal-weight running average of lists of tensors, given how many models were averaged so far.

    >>> import openreg
    >>> avg, cur = [openreg.ones(1)], [openreg.full((1,), 4.0)]
    >>> get_swa_multi_avg_fn()(avg, cur, 2); avg[0].tolist()
    [2.0]
    """
    @no_grad()
    def swa_update(averaged_param_list: list, current_param_list: list, num_averaged: Tensor | int) -> None:
        if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
            for a, c in zip(averaged_param_list, current_param_list):
                lerp_(a, c, float(1 / (num_averaged + 1)))
        else:
            for a, c in zip(averaged_param_list, current_param_list):
                a.add_((c - a) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """``(ema, current, n) -> decay * ema + (1 - decay) * current`` (a new tensor).

    >>> import openreg
    >>> get_ema_avg_fn(0.5)(openreg.zeros(1), openreg.ones(1), 3).tolist()
    [0.5]
    """
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn() -> Callable:
    """``(average, current, n) -> average + (current - average) / (n + 1)`` (a new tensor).

    >>> import openreg
    >>> get_swa_avg_fn()(openreg.ones(1), openreg.full((1,), 4.0), 2).tolist()
    [2.0]
    """
    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Tensor | int) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` (on ``device`` if given) whose parameters are averaged by ``update_parameters``: equally
    by default (SWA), or by ``avg_fn(averaged, current, n)`` / in place by ``multi_avg_fn(averaged_list,
    current_list, n)``, e.g. ``get_ema_multi_avg_fn(0.999)`` for an EMA. The first update copies the model. Without
    ``use_buffers`` the buffers are copied from the model at every update; with it they are averaged too.

    >>> import openreg
    >>> model = openreg.nn.Linear(2, 1)
    >>> ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
    >>> ema.update_parameters(model); ema(openreg.ones(1, 2)).shape
    openreg.Size([1, 1])
    """

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        from ..dtypes import int64
        from ..tensor_from_data import tensor
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Run the averaged copy of the model."""
        return self.module(*args, **kwargs)

    @no_grad()
    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters (and buffers with ``use_buffers``) into the average."""
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for a, m in zip(mine, theirs):
            m = m.detach().to(a.device)
            averaged.append(a.detach())
            current.append(m)
            if first:
                a.detach().copy_(m)
        if not first:
            if self.avg_fn is None:
                groups: dict = {}
                for a, m in zip(averaged, current):
                    entry = groups.setdefault((a.device, a.dtype), ([], []))
                    entry[0].append(a)
                    entry[1].append(m)
                for (device, _), (group_avg, group_cur) in groups.items():
                    n = self.n_averaged.to(device)
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(group_avg, group_cur, n)
                    else:
                        swa = get_swa_avg_fn()
                        for a, m in zip(group_avg, group_cur):
                            a.copy_(swa(a, m, n))
            else:
                for a, m in zip(averaged, current):
                    a.copy_(self.avg_fn(a, m, self.n_averaged.to(a.device)))
        if not self.use_buffers:
            for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                b_avg.detach().copy_(b_model.detach().to(b_avg.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of ``model``'s batch-norm layers with one pass over ``loader`` (batches are
    tensors or sequences whose first item is the input), as a cumulative average; the training mode is restored.

    >>> import openreg
    >>> model = openreg.nn.Sequential(openreg.nn.BatchNorm1d(1))
    >>> update_bn([openreg.tensor([[1.0], [3.0]]), [openreg.tensor([[5.0], [7.0]])]], model)
    >>> model[0].running_mean.tolist(), model.training
    ([4.0], True)
    """
    from ..nn.modules.batchnorm import _BatchNorm
    from ..nn.modules.instancenorm import _InstanceNorm
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate from its value to ``swa_lr`` (one value or one per group) over
    ``anneal_epochs`` steps, by ``"cos"`` or ``"linear"`` interpolation, then hold it there.

    >>> import openreg
    >>> opt = openreg.optim.SGD(openreg.nn.Linear(1, 1).parameters(), lr=1.0)
    >>> sched = SWALR(opt, swa_lr=0.5, anneal_epochs=2, anneal_strategy="linear")
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.75, 0.5, 0.5]
    """

    def __init__(self, optimizer: Optimizer, swa_lr: float, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        swa_lrs = _per_group("swa_lr", optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self) -> list:
        """The learning rates of the current step, interpolated from the previous step's."""
        self._warn_if_not_in_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer and the annealing function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
