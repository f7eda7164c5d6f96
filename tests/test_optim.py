"""optim: every optimizer and scheduler step for step against PyTorch (when installed; same initial weights and
gradients, CPU and the device), parameter groups, state dicts (PyTorch's layout; a failed load keeps the old
state), zero_grad, step hooks and the scheduler-order warning."""
from __future__ import annotations

import copy
import io
import math
import warnings

import numpy as np
import pytest

import openreg
from openreg import nn, optim
from openreg.optim import lr_scheduler

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

SHAPES = [(4, 3), (3,), (2, 2, 2)]
OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.02, "maximize": True, "eps": 1e-6}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.05}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.2}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
]


def _data(steps: int):
    rng = np.random.default_rng(42)
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(steps)]
    return init, grads


def _np(t):
    return t.detach().cpu().numpy()


@needs_torch
@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)])
def test_optimizer_matches_pytorch_step_for_step(devices, name, kwargs):
    steps = 8
    init, grads = _data(steps)
    mine = [nn.Parameter(openreg.tensor(a, device=devices)) for a in init]
    theirs = [torch.nn.Parameter(torch.tensor(a)) for a in init]
    # two groups, the second with its own learning rate
    opt = getattr(optim, name)([{"params": mine[:2]}, {"params": mine[2:], "lr": 0.003}], **kwargs)
    ref = getattr(torch.optim, name)([{"params": theirs[:2]}, {"params": theirs[2:], "lr": 0.003}], **kwargs)
    for k in range(steps):
        for p, tp, g in zip(mine, theirs, grads[k]):
            p.grad = openreg.tensor(g, device=devices)
            tp.grad = torch.tensor(g)
        if k == 3:  # a parameter without gradient is skipped
            mine[1].grad = None
            theirs[1].grad = None
        opt.step()
        ref.step()
        for p, tp in zip(mine, theirs):
            np.testing.assert_allclose(_np(p), tp.detach().numpy(), rtol=1e-6, atol=1e-7, err_msg=f"step {k}")
    sd, tsd = opt.state_dict(), ref.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert sd["state"].keys() == tsd["state"].keys()
    for i, state in sd["state"].items():
        assert state.keys() == tsd["state"][i].keys()
        for key, value in state.items():
            np.testing.assert_allclose(_np(value), tsd["state"][i][key].numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS[::2], ids=[n for n, _ in OPTIMIZERS[::2]])
def test_state_dict_round_trip_resumes_identically(devices, name, kwargs):
    init, grads = _data(6)

    def make():
        ps = [nn.Parameter(openreg.tensor(a, device=devices)) for a in init]
        return ps, getattr(optim, name)(ps, **kwargs)

    ps, opt = make()
    for k in range(3):
        for p, g in zip(ps, grads[k]):
            p.grad = openreg.tensor(g, device=devices)
        opt.step()
    buf = io.BytesIO()
    openreg.save(opt.state_dict(), buf)
    buf.seek(0)
    ps2, opt2 = make()
    for p, p2 in zip(ps, ps2):
        p2.data.copy_(p.data)
    opt2.load_state_dict(openreg.load(buf))
    for k in range(3, 6):
        for a, b, g in zip(ps, ps2, grads[k]):
            a.grad = openreg.tensor(g, device=devices)
            b.grad = openreg.tensor(g, device=devices)
        opt.step()
        opt2.step()
    for a, b in zip(ps, ps2):
        assert np.array_equal(_np(a), _np(b))


def test_failed_load_state_dict_keeps_old_state():
    ps = [nn.Parameter(openreg.ones(2)), nn.Parameter(openreg.ones(3))]
    opt = optim.Adam(ps, lr=0.1)
    for p in ps:
        p.grad = openreg.ones(p.shape)
    opt.step()
    before = copy.deepcopy(opt.state_dict())
    other = optim.Adam([nn.Parameter(openreg.ones(2))], lr=0.5).state_dict()
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(other)
    two_groups = optim.Adam([{"params": [nn.Parameter(openreg.ones(1))]}, {"params": [nn.Parameter(openreg.ones(1))]}])
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        opt.load_state_dict(two_groups.state_dict())
    after = opt.state_dict()
    assert after["param_groups"] == before["param_groups"]
    assert [s["exp_avg"].tolist() for s in after["state"].values()] == \
        [s["exp_avg"].tolist() for s in before["state"].values()]


def test_param_groups_and_add_param_group():
    a, b, c = (nn.Parameter(openreg.ones(1)) for _ in range(3))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5] and opt.param_groups[1]["momentum"] == 0.9
    opt.add_param_group({"params": [c], "weight_decay": 0.2})
    assert opt.param_groups[2]["lr"] == 0.1 and opt.param_groups[2]["weight_decay"] == 0.2
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})
    assert len(opt.param_groups) == 3
    with pytest.raises(TypeError, match="ordering of tensors in sets will change"):
        opt.add_param_group({"params": {nn.Parameter(openreg.ones(1))}})
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
        optim.SGD([1], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([a * 2], lr=0.1)
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an iterable"):
        optim.SGD(a, lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.AdamW([], lr=0.1)
    named = optim.Adam(nn.Linear(2, 1).named_parameters())
    assert named.param_groups[0]["param_names"] == ["weight", "bias"]
    assert named.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]


@pytest.mark.parametrize(("cls", "kwargs", "message"), [
    (optim.Adam, {"lr": -1}, "Invalid learning rate: -1"),
    (optim.Adam, {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    (optim.AdamW, {"eps": -1}, "Invalid epsilon value: -1"),
    (optim.SGD, {"nesterov": True}, "Nesterov momentum requires a momentum and zero dampening"),
    (optim.RMSprop, {"alpha": -0.5}, "Invalid alpha value: -0.5"),
    (optim.Adagrad, {"lr_decay": -1}, "Invalid lr_decay value: -1"),
    (optim.Adadelta, {"rho": 2.0}, "Invalid rho value: 2.0"),
])
def test_invalid_hyperparameters(cls, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        cls([nn.Parameter(openreg.ones(1))], **kwargs)


def test_flags_accepted_or_refused():
    p = [nn.Parameter(openreg.ones(1))]
    optim.AdamW(p, fused=True)  # the same update, computed openreg's one way
    optim.SGD(p, foreach=True)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        optim.Adam(p, fused=True, foreach=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        optim.Adam(p, differentiable=True)


def test_zero_grad_and_step_hooks_and_closure():
    p = nn.Parameter(openreg.ones(2))
    opt = optim.SGD([p], lr=0.1)
    p.grad = openreg.ones(2)
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    assert opt.step(closure).item() == 2.0
    assert calls == ["pre", "post"] and p.tolist() == pytest.approx([0.8, 0.8])
    h1.remove()
    opt.step(closure)
    assert calls == ["pre", "post", "post"]
    assert "Parameter Group 0" in repr(opt) and "lr: 0.1" in repr(opt)


SCHEDULERS = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 4, "eta_min": 0.001}),
    ("LambdaLR", {"lr_lambda": lambda e: 0.95 ** e}),
    ("MultiplicativeLR", {"lr_lambda": lambda e: 0.9}),
    ("LinearLR", {"start_factor": 0.2, "end_factor": 0.9, "total_iters": 4}),
    ("ConstantLR", {"factor": 0.5, "total_iters": 3}),
    ("PolynomialLR", {"total_iters": 6, "power": 2.0}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 12}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.01}),
    ("OneCycleLR", {"max_lr": [0.5, 0.2], "epochs": 3, "steps_per_epoch": 4, "anneal_strategy": "linear",
                    "three_phase": True}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3}),
    ("CyclicLR", {"base_lr": [0.01, 0.02], "max_lr": 0.1, "step_size_up": 2, "step_size_down": 3,
                  "mode": "triangular2", "base_momentum": [0.7, 0.8], "max_momentum": 0.95}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "mode": "exp_range", "gamma": 0.9}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "scale_fn": lambda x: 1 / (1.0 + x),
                  "scale_mode": "iterations", "cycle_momentum": False}),
]


def _two_group_sgd(module):
    a, b = module.nn.Parameter(module.ones(1)), module.nn.Parameter(module.ones(1))
    return module.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.05}], lr=0.1, momentum=0.9)


@needs_torch
@pytest.mark.parametrize(("name", "kwargs"), SCHEDULERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULERS)])
def test_scheduler_matches_pytorch(name, kwargs):
    opt, ref_opt = _two_group_sgd(openreg), _two_group_sgd(torch)
    sched = getattr(lr_scheduler, name)(opt, **kwargs)
    ref = getattr(torch.optim.lr_scheduler, name)(ref_opt, **kwargs)
    assert sched.get_last_lr() == pytest.approx(ref.get_last_lr(), rel=1e-12)
    for k in range(11):
        opt.step()
        ref_opt.step()
        sched.step()
        ref.step()
        assert sched.get_last_lr() == pytest.approx(ref.get_last_lr(), rel=1e-12), k
        assert [g["momentum"] for g in opt.param_groups] == pytest.approx([g["momentum"] for g in ref_opt.param_groups])
        if k == 5:  # resume a fresh scheduler from the state dict
            state = sched.state_dict()
            opt2 = _two_group_sgd(openreg)  # the usual resume: build both, then load both
            sched2 = getattr(lr_scheduler, name)(opt2, **kwargs)
            opt2.load_state_dict(opt.state_dict())
            sched2.load_state_dict(state)
            ref_keys = set(ref.state_dict()) - {"_get_lr_called_within_step", "_is_initial"}
            assert ref_keys <= set(state)
    for _ in range(11 - 6):
        opt2.step()
        sched2.step()
    assert sched2.get_last_lr() == pytest.approx(sched.get_last_lr(), rel=1e-12)


@needs_torch
def test_sequential_and_chained_and_plateau_match_pytorch():
    def build(module):
        opt = _two_group_sgd(module)
        s = module.optim.lr_scheduler
        seq = s.SequentialLR(opt, [s.LinearLR(opt, start_factor=0.1, total_iters=3), s.CosineAnnealingLR(opt, T_max=5),
                                   s.ExponentialLR(opt, gamma=0.8)], milestones=[3, 7])
        return opt, seq

    (opt, seq), (ref_opt, ref_seq) = build(openreg), build(torch)
    assert seq.get_last_lr() == pytest.approx(ref_seq.get_last_lr())
    for _ in range(10):
        opt.step()
        ref_opt.step()
        seq.step()
        ref_seq.step()
        assert seq.get_last_lr() == pytest.approx(ref_seq.get_last_lr(), rel=1e-12)
    restored = build(openreg)[1]
    restored.load_state_dict(seq.state_dict())
    assert restored.last_epoch == seq.last_epoch and restored._schedulers[2].last_epoch == seq._schedulers[2].last_epoch

    opt, ref_opt = _two_group_sgd(openreg), _two_group_sgd(torch)
    chained = lr_scheduler.ChainedScheduler([lr_scheduler.ExponentialLR(opt, 0.9), lr_scheduler.StepLR(opt, 2)])
    ref_chained = torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.ExponentialLR(ref_opt, 0.9),
                                                             torch.optim.lr_scheduler.StepLR(ref_opt, 2)])
    for _ in range(5):
        opt.step()
        ref_opt.step()
        chained.step()
        ref_chained.step()
        assert chained.get_last_lr() == pytest.approx(ref_chained.get_last_lr(), rel=1e-12)

    opt, ref_opt = _two_group_sgd(openreg), _two_group_sgd(torch)
    plateau = lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, cooldown=1, min_lr=[0.02, 0.0])
    ref_plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(ref_opt, mode="max", factor=0.5, patience=1, cooldown=1,
                                                             min_lr=[0.02, 0.0])
    for metric in [1.0, 2.0, 2.0, 1.5, 1.9, 1.0, 1.0, 1.0, 3.0, 2.0, 2.0, 2.0]:
        plateau.step(metric)
        ref_plateau.step(metric)
        assert plateau.get_last_lr() == pytest.approx(ref_plateau.get_last_lr(), rel=1e-12)
    assert set(plateau.state_dict()) >= set(ref_plateau.state_dict()) - {"_get_lr_called_within_step", "_is_initial"}


def test_scheduler_step_before_optimizer_step_warns():
    opt = _two_group_sgd(openreg)
    sched = lr_scheduler.StepLR(opt, 1)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        sched.step()
    assert any("Detected call of `lr_scheduler.step()` before `optimizer.step()`" in str(w.message) for w in rec)
    opt = _two_group_sgd(openreg)
    sched = lr_scheduler.StepLR(opt, 1)
    opt.step()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        sched.step()
    assert not rec
    opt = _two_group_sgd(openreg)
    sched = lr_scheduler.ExponentialLR(opt, 0.5)
    opt.step = lambda closure=None: None  # replaced after the scheduler was built
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        sched.step()
    assert any("Seems like `optimizer.step()` has been overridden" in str(w.message) for w in rec)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        sched.get_lr()
    assert "please use `get_last_lr()`" in str(rec[0].message)


def test_scheduler_errors():
    opt = _two_group_sgd(openreg)
    with pytest.raises(TypeError, match="int is not an Optimizer"):
        lr_scheduler.StepLR(1, 2)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.StepLR(opt, 2, last_epoch=3)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    one = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    opt.step()
    one.step()
    one.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
        one.step()
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="expects number of schedulers provided to be one more"):
        lr_scheduler.SequentialLR(opt, [lr_scheduler.StepLR(opt, 1)], milestones=[1])
    assert math.isclose(opt.param_groups[0]["initial_lr"], 0.04)
