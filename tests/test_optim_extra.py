"""optim.RAdam/NAdam/Adamax/ASGD/Rprop and optim.swa_utils: parameter trajectories step for step against PyTorch
(when installed; same initial weights and gradients, CPU and the device) and against NumPy re-derivations of the
update rules (float64, so CI without torch checks the arithmetic), state-dict keys, errors, AveragedModel/SWALR/
update_bn."""
from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pytest

import openreg
from openreg import nn, optim
from openreg.optim import swa_utils

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

SHAPES = [(4, 3), (3,), (2, 2, 2)]
OPTIMIZERS = [
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.05, "betas": (0.7, 0.8), "weight_decay": 0.1, "eps": 1e-3, "maximize": True}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 0, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.1), "maximize": True}),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)]


def _data(steps: int):
    rng = np.random.default_rng(7)
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(steps)]
    # repeat some gradients' signs so Rprop's step sizes grow as well as shrink
    for k in range(1, steps, 3):
        grads[k] = [np.abs(g) * np.sign(p) for g, p in zip(grads[k], grads[k - 1])]
    return init, grads


def _np(t):
    return t.detach().cpu().numpy()


# -- NumPy re-derivations (float64) of each update rule, one parameter at a time ---------------------------------------
def _ref_radam(p, g, s, k, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
               maximize=False):
    b1, b2 = betas
    g = -g if maximize else g
    if weight_decay:
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
    mhat = s["m"] / (1 - b1 ** k)
    rho_inf = 2 / (1 - b2) - 1
    rho = rho_inf - 2 * k * b2 ** k / (1 - b2 ** k)
    if rho > 5:
        r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
        return p - lr * mhat * r * math.sqrt(1 - b2 ** k) / (np.sqrt(s["v"]) + eps)
    return p - lr * mhat


def _ref_nadam(p, g, s, k, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
               decoupled_weight_decay=False, maximize=False):
    b1, b2 = betas
    g = -g if maximize else g
    if weight_decay:
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    mu = b1 * (1 - 0.5 * 0.96 ** (k * momentum_decay))
    mu_next = b1 * (1 - 0.5 * 0.96 ** ((k + 1) * momentum_decay))
    s["prod"] = s.get("prod", 1.0) * mu
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
    denom = np.sqrt(s["v"] / (1 - b2 ** k)) + eps
    return p - lr * (1 - mu) / (1 - s["prod"]) * g / denom - lr * mu_next / (1 - s["prod"] * mu_next) * s["m"] / denom


def _ref_adamax(p, g, s, k, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, maximize=False):
    b1, b2 = betas
    g = -g if maximize else g
    g = g + weight_decay * p
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["u"] = np.maximum(b2 * s.get("u", 0), np.abs(g) + eps)
    return p - lr / (1 - b1 ** k) * s["m"] / s["u"]


def _ref_asgd(p, g, s, k, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, maximize=False):
    g = -g if maximize else g
    g = g + weight_decay * p
    eta, mu = s.get("eta", lr), s.get("mu", 1.0)
    p = p * (1 - lambd * eta) - eta * g
    s["ax"] = p if mu == 1 else s["ax"] + mu * (p - s["ax"])
    s["eta"] = lr / (1 + lambd * lr * k) ** alpha
    s["mu"] = 1 / max(1, k - t0)
    return p


def _ref_rprop(p, g, s, k, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    g = -g if maximize else g
    sign = np.sign(g * s.get("prev", 0))
    size = s.get("size", np.full_like(p, lr))
    s["size"] = np.clip(size * np.where(sign > 0, etas[1], np.where(sign < 0, etas[0], 1.0)), *step_sizes)
    g = np.where(sign < 0, 0, g)
    s["prev"] = g
    return p - np.sign(g) * s["size"]


REFS = {"RAdam": _ref_radam, "NAdam": _ref_nadam, "Adamax": _ref_adamax, "ASGD": _ref_asgd, "Rprop": _ref_rprop}
STATE_KEYS = {"RAdam": ["exp_avg", "exp_avg_sq", "step"], "NAdam": ["exp_avg", "exp_avg_sq", "mu_product", "step"],
              "Adamax": ["exp_avg", "exp_inf", "step"], "ASGD": ["ax", "eta", "mu", "step"],
              "Rprop": ["prev", "step", "step_size"]}


@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS, ids=IDS)
def test_optimizer_matches_numpy_update_rule(devices, name, kwargs):
    steps = 10
    init, grads = _data(steps)
    ps = [nn.Parameter(openreg.tensor(a, device=devices)) for a in init]
    opt = getattr(optim, name)(ps, **kwargs)
    ref = [a.astype(np.float64) for a in init]
    ref_state = [{} for _ in init]
    for k in range(steps):
        for p, g in zip(ps, grads[k]):
            p.grad = openreg.tensor(g, device=devices)
        opt.step()
        ref = [REFS[name](r, g.astype(np.float64), s, k + 1, **kwargs) for r, g, s in zip(ref, grads[k], ref_state)]
        for p, r in zip(ps, ref):
            np.testing.assert_allclose(_np(p), r, rtol=2e-4, atol=2e-5, err_msg=f"step {k}")
    assert all(sorted(opt.state[p]) == STATE_KEYS[name] for p in ps)
    assert opt.state[ps[0]]["step"].item() == steps and opt.state[ps[0]]["step"].dtype == openreg.float32
    if name == "ASGD":
        np.testing.assert_allclose(_np(opt.state[ps[0]]["ax"]), ref_state[0]["ax"], rtol=2e-4, atol=2e-5)


@needs_torch
@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS, ids=IDS)
def test_optimizer_matches_pytorch_step_for_step(devices, name, kwargs):
    steps = 10
    init, grads = _data(steps)
    mine = [nn.Parameter(openreg.tensor(a, device=devices)) for a in init]
    theirs = [torch.nn.Parameter(torch.tensor(a)) for a in init]
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
        assert list(state) == list(tsd["state"][i])
        for key, value in state.items():
            tv = tsd["state"][i][key]
            assert str(value.dtype).split(".")[-1] == str(tv.dtype).split(".")[-1], key
            np.testing.assert_allclose(_np(value), tv.numpy(), rtol=1e-6, atol=1e-7)
    # and the other way: a state dict saved by openreg loads into PyTorch's optimizer (plain tensors on the CPU)
    ref.load_state_dict({"state": {i: {k: torch.tensor(_np(v)) for k, v in s.items()} for i, s in sd["state"].items()},
                         "param_groups": sd["param_groups"]})


@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS[::2], ids=IDS[::2])
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


@pytest.mark.parametrize(("cls", "kwargs", "message"), [
    (optim.RAdam, {"lr": -1}, "Invalid learning rate: -1"),
    (optim.RAdam, {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    (optim.NAdam, {"momentum_decay": -1}, "Invalid momentum_decay value: -1"),
    (optim.NAdam, {"eps": -1}, "Invalid epsilon value: -1"),
    (optim.Adamax, {"betas": (0.9, 1.0)}, "Invalid beta parameter at index 1: 1.0"),
    (optim.Adamax, {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    (optim.ASGD, {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    (optim.Rprop, {"etas": (1.5, 1.2)}, "Invalid eta values: 1.5, 1.2"),
    (optim.Rprop, {"lr": openreg.ones(2)}, "Tensor lr must be 1-element"),
])
def test_invalid_hyperparameters(cls, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        cls([nn.Parameter(openreg.ones(1))], **kwargs)


def test_defaults_and_repr_name_every_option():
    p = [nn.Parameter(openreg.ones(1))]
    assert optim.NAdam(p).defaults["lr"] == 2e-3 and optim.Adamax(p).defaults["lr"] == 2e-3
    assert optim.ASGD(p).defaults["t0"] == 1e6 and optim.Rprop(p).defaults["step_sizes"] == (1e-6, 50)
    assert "momentum_decay: 0.004" in repr(optim.NAdam(p))
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        optim.RAdam(p, differentiable=True)


@needs_torch
def test_defaults_equal_pytorchs():
    for name in ("RAdam", "NAdam", "Adamax", "ASGD", "Rprop"):
        mine = getattr(optim, name)([nn.Parameter(openreg.ones(1))]).defaults
        theirs = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(1))]).defaults
        assert mine == theirs, name


# -- swa_utils --------------------------------------------------------------------------------------------------------
def _net(device):
    openreg.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2)).to(device)


def _torch_net(net):
    t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    t.load_state_dict({k: torch.tensor(_np(v)) for k, v in net.state_dict().items()})
    return t


def _perturb(k, net, tnet=None):
    with openreg.no_grad():
        for i, p in enumerate(net.parameters()):
            d = np.random.default_rng(k * 10 + i).standard_normal(tuple(p.shape)).astype(np.float32)
            p.add_(openreg.tensor(d, device=p.device))
            if tnet is not None:
                list(tnet.parameters())[i].data.add_(torch.tensor(d))
        x = np.random.default_rng(100 + k).standard_normal((5, 3)).astype(np.float32)
        net(openreg.tensor(x, device=next(net.parameters()).device))  # moves the batch-norm statistics
        if tnet is not None:
            tnet(torch.tensor(x))


@pytest.mark.parametrize("kind", ["swa", "ema", "avg_fn", "buffers"])
def test_averaged_model_matches_numpy_average(devices, kind):
    net = _net(devices)
    kwargs = {"ema": {"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.8)},
              "avg_fn": {"avg_fn": swa_utils.get_ema_avg_fn(0.8)},
              "buffers": {"use_buffers": True}}.get(kind, {})
    avg = swa_utils.AveragedModel(net, **kwargs)
    history = []
    for k in range(4):
        _perturb(k, net)
        avg.update_parameters(net)
        history.append({n: _np(v).astype(np.float64) for n, v in net.state_dict().items()})
    assert avg.n_averaged.item() == 4 and avg.n_averaged.dtype == openreg.int64
    assert sorted(avg.state_dict()) == sorted(["n_averaged"] + ["module." + n for n in net.state_dict()])
    averaged = dict(net.named_parameters())
    if kind == "buffers":
        averaged.update({n: b for n, b in net.named_buffers() if b.is_floating_point()})
    for name in net.state_dict():
        got = _np(avg.module.state_dict()[name])
        if kind == "buffers" and name not in averaged:  # an integer counter: averaged, truncated by copy_
            expect = history[0][name]
            for i, h in enumerate(history[1:], 1):
                expect = np.trunc(expect + (h[name] - expect) / (i + 1))
            assert got == expect == 1
            continue
        if name not in averaged:  # copied from the model at each update
            np.testing.assert_array_equal(got, history[-1][name])
            continue
        if kind in ("ema", "avg_fn"):
            expect = history[0][name]
            for h in history[1:]:
                expect = 0.8 * expect + 0.2 * h[name]
        else:
            expect = np.mean([h[name] for h in history], axis=0)
        np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-6, err_msg=name)
    x = openreg.randn(2, 3, device=devices)
    assert avg(x).shape == (2, 2)


@needs_torch
@pytest.mark.parametrize("kind", ["swa", "ema", "buffers"])
def test_averaged_model_matches_pytorch(kind):
    net = _net("cpu")
    tnet = _torch_net(net)
    mk = {"ema": {"multi_avg_fn": "ema"}, "buffers": {"use_buffers": True}}.get(kind, {})
    avg = swa_utils.AveragedModel(net, **{k: swa_utils.get_ema_multi_avg_fn(0.9) if v == "ema" else v
                                         for k, v in mk.items()})
    tavg = torch.optim.swa_utils.AveragedModel(tnet, **{k: torch.optim.swa_utils.get_ema_multi_avg_fn(0.9)
                                                        if v == "ema" else v for k, v in mk.items()})
    for k in range(5):
        _perturb(k, net, tnet)
        avg.update_parameters(net)
        tavg.update_parameters(tnet)
    sd, tsd = avg.state_dict(), tavg.state_dict()
    assert list(sd) == list(tsd)
    for key in sd:
        np.testing.assert_allclose(_np(sd[key]), tsd[key].numpy(), rtol=1e-6, atol=1e-7, err_msg=key)
    # PyTorch's checkpoint of the averaged model loads into openreg's
    avg.load_state_dict({k: openreg.tensor(v.numpy()) for k, v in tsd.items()})


def test_averaged_model_errors_and_device():
    net = nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        swa_utils.AveragedModel(net, avg_fn=swa_utils.get_swa_avg_fn(), multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
    with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided. Please provide a value in \[0,1\] range."):
        swa_utils.get_ema_multi_avg_fn(1.5)
    with pytest.raises(ValueError, match="Invalid decay value -0.1"):
        swa_utils.get_ema_avg_fn(-0.1)
    avg = swa_utils.AveragedModel(net)
    assert avg.module is not net and avg.module.weight is not net.weight


def test_update_bn_recomputes_statistics(devices):
    net = _net(devices)
    bn = net[1]
    bn.running_mean.fill_(5.0)
    net.eval()
    data = [openreg.tensor(np.random.default_rng(i).standard_normal((6, 3)).astype(np.float32), device=devices)
            for i in range(3)]
    swa_utils.update_bn([(x, 0) for x in data], net)
    assert not net.training and bn.momentum == 0.1 and bn.num_batches_tracked.item() == 3
    with openreg.no_grad():
        feats = [_np(net[0](x)) for x in data]
    np.testing.assert_allclose(_np(bn.running_mean), np.mean([f.mean(0) for f in feats], 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(bn.running_var), np.mean([f.var(0, ddof=1) for f in feats], 0), rtol=1e-5,
                               atol=1e-6)
    swa_utils.update_bn(data, nn.Linear(1, 1))  # no batch norm: nothing to do


@needs_torch
@pytest.mark.parametrize(("kwargs"), [{"swa_lr": 0.05}, {"swa_lr": [0.05, 0.2], "anneal_epochs": 3,
                                                         "anneal_strategy": "linear"},
                                      {"swa_lr": 0.5, "anneal_epochs": 0}])
def test_swalr_matches_pytorch(kwargs):
    def groups(P, mk):
        return [{"params": [P(mk(1))]}, {"params": [P(mk(1))], "lr": 0.3}]
    opt = optim.SGD(groups(nn.Parameter, openreg.ones), lr=1.0)
    ref = torch.optim.SGD(groups(torch.nn.Parameter, torch.ones), lr=1.0)
    mine, theirs = swa_utils.SWALR(opt, **kwargs), torch.optim.swa_utils.SWALR(ref, **kwargs)
    for _ in range(14):
        opt.step()
        ref.step()
        mine.step()
        theirs.step()
        np.testing.assert_allclose(mine.get_last_lr(), theirs.get_last_lr(), rtol=1e-12)
    assert sorted(mine.state_dict()) == sorted(theirs.state_dict())


def test_swalr_schedule_and_errors():
    opt = optim.SGD([nn.Parameter(openreg.ones(1))], lr=1.0)
    sched = swa_utils.SWALR(opt, swa_lr=0.2, anneal_epochs=4, anneal_strategy="cos")
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(6):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    expect = [0.2 + 0.8 * (1 + math.cos(math.pi * min(t, 4) / 4)) / 2 for t in range(7)]
    np.testing.assert_allclose(lrs, expect, rtol=1e-12)
    sd = sched.state_dict()
    assert "anneal_func" not in sd and sd["_anneal_strategy"] == "cos"
    other = swa_utils.SWALR(optim.SGD([nn.Parameter(openreg.ones(1))], lr=1.0), swa_lr=0.1, anneal_strategy="linear")
    other.load_state_dict(sd)
    assert other.anneal_func(0.5) == pytest.approx(0.5) and other.anneal_epochs == 4
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)
    with pytest.raises(ValueError, match="swa_lr must have the same length as optimizer.param_groups"):
        swa_utils.SWALR(opt, swa_lr=[0.1, 0.2])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        sched.get_lr()
    assert any("get_last_lr()" in str(x.message) for x in w)
