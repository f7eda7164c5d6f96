"""SparseAdam: Adam for sparse (COO) gradients, updating the moments and the parameter only at the gradient's
indices (the "lazy" Adam of PyTorch's ``torch.optim.SparseAdam``, step for step). Parameters stay dense.

>>> import openreg
>>> p = openreg.nn.Parameter(openreg.zeros(4, 2))
>>> opt = openreg.optim.SparseAdam([p], lr=0.1)
>>> p.grad = openreg.sparse_coo_tensor(openreg.tensor([[1, 3]]), openreg.ones(2, 2), (4, 2)); opt.step()
>>> [round(v, 4) for v in p[:, 0].tolist()]
[0.0, -0.1, 0.0, -0.1]
"""
from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ._checks import scalar
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam restricted to the rows (indices) a sparse gradient touches."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        sparse, complex_ = [], []
        for gi, group in enumerate(self.param_groups):
            for pi, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse.append([gi, pi])
                if p.is_complex():
                    complex_.append([gi, pi])
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")
        if complex_:
            raise ValueError(f"Complex params at indices {complex_}: SparseAdam does not support complex parameters")

    @no_grad()
    def step(self, closure=None):
        """One update at the indices of every parameter's sparse gradient; returns the closure's loss if given."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = scalar(group["lr"]), group["betas"], group["eps"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if not grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = p.detach().new_zeros(p.shape)
                    state["exp_avg_sq"] = p.detach().new_zeros(p.shape)
                state["step"] += 1
                step = state["step"]
                grad = grad.coalesce()          # the update is not linear: each index once
                values = -grad._values() if group.get("maximize", False) else grad._values()
                if values.numel() == 0:
                    continue
                where = tuple(grad._indices())
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                old_avg, old_sq = exp_avg[where], exp_avg_sq[where]
                avg_update = (values - old_avg) * (1 - beta1)
                sq_update = (values * values - old_sq) * (1 - beta2)
                exp_avg.index_put_(where, avg_update, accumulate=True)
                exp_avg_sq.index_put_(where, sq_update, accumulate=True)
                numer = avg_update + old_avg
                denom = (sq_update + old_sq).sqrt() + eps
                step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
                p.index_put_(where, -step_size * (numer / denom), accumulate=True)
        return loss
