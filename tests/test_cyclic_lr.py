"""CyclicLR without PyTorch: the triangular cycle's values, triangular2's halving, Adam's beta1 cycling, a callable
scale function kept through the state dict, and PyTorch's errors (the comparison step for step with PyTorch is in
test_optim.py)."""
from __future__ import annotations

import pytest

import openreg
from openreg.optim.lr_scheduler import CyclicLR


def _run(sched, opt, n):
    out = []
    for _ in range(n):
        opt.step()
        sched.step()
        out.append(round(sched.get_last_lr()[0], 10))
    return out


def test_triangular_cycle_and_momentum():
    opt = openreg.optim.SGD([openreg.nn.Parameter(openreg.ones(1))], lr=1.0, momentum=0.5)
    s = CyclicLR(opt, base_lr=1.0, max_lr=3.0, step_size_up=2, step_size_down=1)
    assert s.get_last_lr() == [1.0] and opt.param_groups[0]["momentum"] == 0.9
    assert _run(s, opt, 6) == [2.0, 3.0, 1.0, 2.0, 3.0, 1.0]
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.9)


def test_triangular2_halves_and_adam_beta1_cycles():
    opt = openreg.optim.Adam([openreg.nn.Parameter(openreg.ones(1))], lr=1.0, betas=(0.5, 0.99))
    s = CyclicLR(opt, base_lr=0.0, max_lr=4.0, step_size_up=1, mode="triangular2")
    assert _run(s, opt, 4) == [4.0, 0.0, 2.0, 0.0]
    assert opt.param_groups[0]["betas"] == (pytest.approx(0.9), 0.99)
    opt.step()
    s.step()
    assert opt.param_groups[0]["betas"][0] == pytest.approx(0.875)  # third peak: a quarter of the amplitude


class _Scale:
    def __init__(self):
        self.factor = 0.5

    def __call__(self, x):
        return self.factor


def test_callable_scale_fn_state_dict():
    opt = openreg.optim.SGD([openreg.nn.Parameter(openreg.ones(1))], lr=1.0)
    s = CyclicLR(opt, base_lr=0.0, max_lr=1.0, step_size_up=1, scale_fn=_Scale(), cycle_momentum=False)
    assert _run(s, opt, 1) == [0.5]
    state = s.state_dict()
    assert state["_scale_fn_custom"] == {"factor": 0.5} and "optimizer" not in state
    fn = _Scale()
    fn.factor = 0.1
    s2 = CyclicLR(opt, base_lr=0.0, max_lr=1.0, step_size_up=1, scale_fn=fn, cycle_momentum=False)
    s2.load_state_dict(state)
    assert fn.factor == 0.5 and s2.last_epoch == 1


def test_errors():
    opt = openreg.optim.SGD([openreg.nn.Parameter(openreg.ones(1))], lr=1.0)
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        CyclicLR(opt, 0.1, 1.0, mode="bogus")
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        CyclicLR(openreg.optim.Adagrad([openreg.nn.Parameter(openreg.ones(1))]), 0.1, 1.0)
    with pytest.raises(ValueError, match="base_lr must have the same length as optimizer.param_groups"):
        CyclicLR(opt, [0.1, 0.2], 1.0, cycle_momentum=False)
    with pytest.raises(TypeError, match="is not an Optimizer"):
        CyclicLR(object(), 0.1, 1.0)
