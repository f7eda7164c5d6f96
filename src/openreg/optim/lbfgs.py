"""L-BFGS: a quasi-Newton method that keeps the last ``history_size`` curvature pairs and, optionally, a strong-Wolfe
line search (PyTorch's ``torch.optim.LBFGS``, itself a port of minFunc).

>>> import openreg
>>> x = openreg.nn.Parameter(openreg.tensor([1.5, -0.5]))
>>> opt = openreg.optim.LBFGS([x], lr=1, line_search_fn="strong_wolfe")
>>> def closure():
...     opt.zero_grad()
...     loss = ((x - openreg.tensor([3.0, 2.0])) ** 2).sum()
...     loss.backward()
...     return loss
>>> _ = opt.step(closure)
>>> [round(v, 4) for v in x.tolist()]
[3.0, 2.0]
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable

from .._dispatch.ops import A
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _cubic_minimum(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                   bounds: tuple[float, float] | None = None) -> float:
    """Minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to ``bounds`` (default:
    the interval between the points); the interval's midpoint when the cubic has no minimum."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(disc)
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, low), high)


class _Point:
    """One trial of the line search: step ``t``, loss ``f``, flat gradient ``g`` and slope ``gtd`` along the
    search direction."""

    __slots__ = ("f", "g", "gtd", "t")

    def __init__(self, t: float, f: float, g, gtd: float) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate: Callable, d, t: float, f: float, g, gtd: float, c1: float = 1e-4, c2: float = 0.9,
                  tolerance_change: float = 1e-9, max_ls: int = 25):
    """Find a step along ``d`` that satisfies the strong Wolfe conditions: first bracket an acceptable step by
    extrapolating with cubic interpolation, then shrink the bracket ("zoom"). Returns
    ``(loss, flat_grad, step, evaluations)``."""
    d_norm = float(d.abs().max())
    start = _Point(0.0, f, g.clone(), gtd)
    prev = start
    f_new, g_new = evaluate(t, d)
    evaluations, tries = 1, 0
    bracket: list[_Point] = []
    while tries < max_ls:
        trial = _Point(t, f_new, g_new.clone(), float(g_new.dot(d)))
        if trial.f > f + c1 * t * gtd or (tries > 1 and trial.f >= prev.f):
            bracket = [prev, trial]  # the step overshot: sufficient decrease failed, the minimum is in between
            break
        if abs(trial.gtd) <= -c2 * gtd:
            return trial.f, trial.g, trial.t, evaluations
        if trial.gtd >= 0:
            bracket = [prev, trial]  # the slope turned positive: the minimum is in between
            break
        t = _cubic_minimum(prev.t, prev.f, prev.gtd, trial.t, trial.f, trial.gtd,
                           bounds=(trial.t + 0.01 * (trial.t - prev.t), trial.t * 10))
        prev = trial
        f_new, g_new = evaluate(t, d)
        evaluations += 1
        tries += 1
    if tries == max_ls:
        bracket = [start, _Point(t, f_new, g_new, float(g_new.dot(d)))]
        low = 0 if bracket[0].f <= bracket[1].f else 1
        best = bracket[low]
        return best.f, best.g, best.t, evaluations

    low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
    stalled = False
    while tries < max_ls:
        lo_t, hi_t = min(p.t for p in bracket), max(p.t for p in bracket)
        if abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(bracket[0].t, bracket[0].f, bracket[0].gtd, bracket[1].t, bracket[1].f, bracket[1].gtd)
        # Keep the trial away from the bracket's ends: interpolation that lands at an end makes no progress.
        eps = 0.1 * (hi_t - lo_t)
        if min(hi_t - t, t - lo_t) < eps:
            if stalled or t >= hi_t or t <= lo_t:
                t = hi_t - eps if abs(t - hi_t) < abs(t - lo_t) else lo_t + eps
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(t, d)
        evaluations += 1
        tries += 1
        trial = _Point(t, f_new, g_new.clone(), float(g_new.dot(d)))
        if trial.f > f + c1 * t * gtd or trial.f >= bracket[low].f:
            bracket[high] = trial
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(trial.gtd) <= -c2 * gtd:
                bracket[low] = trial
                break
            if trial.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = trial
    best = bracket[low]
    return best.f, best.g, best.t, evaluations


class LBFGS(Optimizer):
    """Limited-memory BFGS over all parameters flattened into one vector. ``step`` needs a closure that clears the
    gradients, computes the loss, calls ``backward`` and returns the loss; it may evaluate the closure up to
    ``max_eval`` times. Only one parameter group is supported, as in PyTorch."""

    def __init__(self, params, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                                  "history_size": history_size, "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        parts = [p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1) for p in self._params]
        return A.cat(parts, 0)

    def _move(self, step: float, direction) -> None:
        """``params += step * direction``, ``direction`` being one flat vector over all parameters."""
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset:offset + n].view_as(p), alpha=step)
            offset += n

    def _evaluate_at(self, closure: Callable, start: list, step: float, direction):
        """Loss and flat gradient at ``start + step * direction``; the parameters are put back afterwards."""
        self._move(step, direction)
        loss = float(closure())
        grad = self._flat_grad()
        for p, saved in zip(self._params, start):
            p.copy_(saved)
        return loss, grad

    @no_grad()
    def step(self, closure: Callable):
        """Up to ``max_iter`` L-BFGS iterations; returns the loss the closure gave on entry."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure that reevaluates the model and returns the loss")
        closure = enable_grad()(closure)
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search = group["history_size"], group["line_search_fn"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if float(flat_grad.abs().max()) <= tol_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = float(y.dot(s))
                if ys > 1e-10:  # keep only pairs with positive curvature
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / float(y.dot(y))
                # Two-loop recursion: d = -H @ grad with H the implicit inverse-Hessian approximation.
                alphas = [0.0] * len(old_dirs)
                q = flat_grad.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    alphas[i] = float(old_stps[i].dot(q)) * ro[i]
                    q.add_(old_dirs[i], alpha=-alphas[i])
                d = r = q.mul(h_diag)
                for i in range(len(old_dirs)):
                    beta = float(old_dirs[i].dot(r)) * ro[i]
                    r.add_(old_stps[i], alpha=alphas[i] - beta)

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            t = min(1.0, 1.0 / float(flat_grad.abs().sum())) * lr if state["n_iter"] == 1 else lr
            gtd = float(flat_grad.dot(d))
            if gtd > -tol_change:  # not a descent direction
                break

            if line_search is not None:
                start = [p.clone() for p in self._params]
                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    functools.partial(self._evaluate_at, closure, start),
                    d, t, loss, flat_grad, gtd)
                self._move(t, d)
                converged = float(flat_grad.abs().max()) <= tol_grad
            else:
                self._move(t, d)
                ls_evals = 0
                converged = False
                if n_iter != max_iter:
                    loss = float(closure())
                    flat_grad = self._flat_grad()
                    converged = float(flat_grad.abs().max()) <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals

            if (n_iter == max_iter or evals >= max_eval or converged
                    or float(d.mul(t).abs().max()) <= tol_change or abs(loss - prev_loss) < tol_change):
                break

        state.update({"d": d, "t": t, "old_dirs": old_dirs, "old_stps": old_stps, "ro": ro, "H_diag": h_diag,
                      "prev_flat_grad": prev_flat_grad, "prev_loss": prev_loss})
        return orig_loss
