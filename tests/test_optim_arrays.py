"""The host-array paths of SGD, RMSprop and Adagrad (optim/_sgd_arrays.py, _rmsprop_arrays.py,
_adagrad_arrays.py) give bitwise the results of their operator calls (Adam's: test_adam_arrays.py)."""
import itertools

import numpy as np
import pytest

import openreg
from openreg.optim import _adagrad_arrays, _rmsprop_arrays, _sgd_arrays

DEVICES = ["cpu"] + (["privateuseone"] if openreg.privateuseone.is_available() else [])
PATHS = {"SGD": _sgd_arrays, "RMSprop": _rmsprop_arrays, "Adagrad": _adagrad_arrays}

# SGD's (momentum, dampening, nesterov): plain, heavy ball, dampened, Nesterov, momentum 1 (no scaling of the buffer)
MOMENTA = [(0, 0, False), (0.9, 0, False), (0.9, 0.3, False), (0.9, 0, True), (1, 0, False)]
CONFIGS = {
    "SGD": [{"momentum": m, "dampening": d, "nesterov": n, "weight_decay": wd, "maximize": mx}
            for (m, d, n), wd, mx in itertools.product(MOMENTA, (0, 0.1), (False, True))],
    "RMSprop": [{"alpha": a, "momentum": m, "centered": c, "weight_decay": wd, "maximize": mx}
                for a, m, c, wd, mx in itertools.product((0.99, 0.3), (0, 0.9), (False, True), (0, 0.1),
                                                         (False, True))],
    "Adagrad": [{"lr_decay": d, "initial_accumulator_value": v, "weight_decay": wd, "maximize": mx}
                for d, v, wd, mx in itertools.product((0, 0.1), (0, 0.5), (0, 0.1), (False, True))],
}


def _trajectory(name, cfg, dtype, dev, arrays_path, monkeypatch, steps=5):
    """Parameters, their versions and the optimizer state after ``steps`` steps (two parameter groups, the second
    with its own options; one parameter without a gradient on the first steps)."""
    module = PATHS[name]
    calls, real = [], module.update

    def update(*args, **kwargs):   # the arrays path (recording that it applied), or none
        calls.append(real(*args, **kwargs))
        return calls[-1]
    monkeypatch.setattr(module, "update", update if arrays_path else lambda *a, **k: False)
    openreg.manual_seed(1)
    params = [openreg.nn.Parameter(openreg.randn(*s, dtype=dtype).to(dev)) for s in [(3, 4), (5,), (2, 2, 2), (4,)]]
    opt = getattr(openreg.optim, name)([{"params": params[:3]}, {"params": params[3:], "lr": 0.5,
                                                                  "weight_decay": 1}], lr=0.01, **cfg)
    g = openreg.Generator().manual_seed(3)
    for i in range(steps):
        for j, p in enumerate(params):   # gradients of several magnitudes; params[1] has none before step 2
            p.grad = None if (j == 1 and i < 2) else \
                openreg.randn(p.shape, generator=g, dtype=dtype).to(dev) * 10.0 ** (i % 3 - 2)
        opt.step()
    monkeypatch.undo()
    assert all(calls) and (len(calls) > 0) == arrays_path
    out = [p.detach().cpu().numpy() for p in params] + [np.array([p._version for p in params])]
    for p in params:
        state = opt.state[p]
        out.append(np.array(list(state)))            # the state's keys in their order (state_dict's)
        for key, v in state.items():
            if key == "step":
                assert v.device.type == "cpu" and v.dtype == openreg.float32
            else:
                assert v.device == p.device and v.dtype == p.dtype and not v.requires_grad
            out += [v.cpu().numpy(), np.array(v._version)]
    return out, opt


def _assert_same(fast, ops, msg):
    assert len(fast) == len(ops), msg
    for a, b in zip(fast, ops):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b, err_msg=msg)


@pytest.mark.parametrize("name", list(PATHS))
@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
def test_arrays_path_is_bitwise_the_operator_path(name, dev, dtype, monkeypatch):
    for cfg in CONFIGS[name]:
        fast, _ = _trajectory(name, cfg, dtype, dev, True, monkeypatch)
        ops, _ = _trajectory(name, cfg, dtype, dev, False, monkeypatch)
        _assert_same(fast, ops, f"{name} {cfg}")


@pytest.mark.parametrize("name", list(PATHS))
@pytest.mark.parametrize("dev", DEVICES)
def test_state_dict_round_trip_is_unchanged(name, dev, monkeypatch):
    """A state saved after steps on the arrays path loads into a fresh optimizer that continues exactly as the
    operator path does."""
    cfg = CONFIGS[name][-1]
    results = []
    for arrays_path in (True, False):
        _, opt = _trajectory(name, cfg, openreg.float32, dev, arrays_path, monkeypatch, steps=3)
        sd = opt.state_dict()
        params = [p for group in opt.param_groups for p in group["params"]]
        fresh = getattr(openreg.optim, name)([{"params": params[:3]}, {"params": params[3:]}], lr=1.0)
        fresh.load_state_dict(sd)
        assert fresh.state_dict()["param_groups"] == sd["param_groups"]
        for p in params:
            p.grad = openreg.ones(p.shape).to(dev)
        fresh.step()
        results.append([p.detach().cpu().numpy() for p in params]
                       + [v.cpu().numpy() for p in params for v in fresh.state[p].values()])
    _assert_same(*results, f"{name} state_dict round trip")


def test_arrays_path_applies_and_bumps_versions():
    p = openreg.nn.Parameter(openreg.ones(3))
    p.grad = openreg.ones(3)
    state: dict = {}
    assert _sgd_arrays.update([p], [state], lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.0,
                              nesterov=False, maximize=False)
    buf = state["momentum_buffer"]
    assert p._version == 1 and buf._version == 0 and buf.tolist() == [1.0] * 3
    assert buf.data_ptr() != p.grad.data_ptr()          # a copy of the gradient, not the gradient
    assert _sgd_arrays.update([p], [state], lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.0,
                              nesterov=False, maximize=False)
    assert p._version == 2 and buf._version == 2 and p.grad._version == 0
    np.testing.assert_allclose(p.detach().numpy(), 1 - 0.1 - 0.1 * 1.9, rtol=1e-6)


def test_arrays_path_declines_what_it_does_not_cover():
    kw = {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weight_decay": 0.0, "nesterov": False, "maximize": False}
    p = openreg.nn.Parameter(openreg.ones(4, dtype=openreg.float16))
    p.grad = openreg.ones(4, dtype=openreg.float16)
    state: dict = {}
    assert not _sgd_arrays.update([p], [state], **kw)
    assert state == {} and p.tolist() == [1.0] * 4 and p._version == 0       # nothing written
    q = openreg.nn.Parameter(openreg.ones(4, 2))
    q.grad = openreg.ones(2, 4).t()                      # a non-contiguous gradient goes the operator way
    assert not _sgd_arrays.update([q], [{}], **kw)
    r = openreg.nn.Parameter(openreg.ones(2))
    r.grad = openreg.ones(2)
    buf = openreg.ones(4)[::2]                           # so does a non-contiguous momentum buffer
    assert not _sgd_arrays.update([r], [{"momentum_buffer": buf}], **kw)
    assert not _sgd_arrays.update([r], [{}], **{**kw, "lr": openreg.tensor(0.1)})   # and a tensor lr
    d = openreg.nn.Parameter(openreg.ones(2, dtype=openreg.float64))
    d.grad = openreg.ones(2, dtype=openreg.float64)
    assert not _sgd_arrays.update([r, d], [{}, {}], **kw)         # and parameters of two dtypes in one call
    assert d.tolist() == [1.0, 1.0]
    assert r.tolist() == [1.0, 1.0] and buf.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("dev", DEVICES)
def test_declined_cases_still_step_right(dev):
    """Parameters the arrays path declines (float16, a non-contiguous gradient and buffer) take PyTorch's update
    through the operators: p -= lr * buf, buf = momentum * buf + grad."""
    half = openreg.nn.Parameter(openreg.ones(4, dtype=openreg.float16).to(dev))
    q = openreg.nn.Parameter(openreg.ones(4, 2).to(dev))
    opt = openreg.optim.SGD([half, q], lr=0.5, momentum=0.5)
    expected_p, expected_buf = np.ones((4, 2)), None
    for i in range(3):
        half.grad = openreg.full((4,), 2.0, dtype=openreg.float16).to(dev)
        q.grad = openreg.full((2, 4), float(i + 1)).to(dev).t()
        assert not q.grad.is_contiguous()
        opt.step()
        grad = np.full((4, 2), float(i + 1))
        expected_buf = grad if expected_buf is None else 0.5 * expected_buf + grad
        expected_p = expected_p - 0.5 * expected_buf
        np.testing.assert_allclose(q.detach().cpu().numpy(), expected_p, rtol=1e-6)
    assert half.dtype == openreg.float16 and half.tolist() == [1.0 - 1.0 - 1.5 - 1.75] * 4


def test_rmsprop_adagrad_arrays_paths_decline_what_they_do_not_cover():
    p = openreg.nn.Parameter(openreg.ones(4, dtype=openreg.float16))
    p.grad = openreg.ones(4, dtype=openreg.float16)
    rms = {"lr": 0.1, "alpha": 0.9, "eps": 1e-8, "weight_decay": 0, "momentum": 0.9, "centered": True,
           "maximize": False}
    ada = {"lr": 0.1, "lr_decay": 0, "eps": 1e-10, "weight_decay": 0, "maximize": False}
    state = {k: openreg.zeros(4, dtype=openreg.float16) for k in ("square_avg", "momentum_buffer", "grad_avg")}
    assert not _rmsprop_arrays.update(p, state, **rms) and "step" not in state    # float16: nothing written
    assert all(v.tolist() == [0.0] * 4 and v._version == 0 for v in state.values())
    assert not _adagrad_arrays.update(p, {"sum": openreg.zeros(4, dtype=openreg.float16)}, **ada)
    assert p.tolist() == [1.0] * 4 and p._version == 0
    q = openreg.nn.Parameter(openreg.ones(2))
    q.grad = openreg.ones(2)
    square_avg = openreg.ones(2)          # a state from steps without momentum: the operator path reports it
    assert not _rmsprop_arrays.update(q, {"square_avg": square_avg, "step": openreg.ones(())}, **rms)
    assert not _adagrad_arrays.update(q, {}, **ada)                          # Adagrad's state has no sum
    assert square_avg.tolist() == [1.0, 1.0] and q.tolist() == [1.0, 1.0] and q._version == 0
    state = {"sum": openreg.zeros(2)}
    assert _adagrad_arrays.update(q, state, **ada)
    assert q._version == 1 and state["sum"]._version == 1 and state["step"].item() == 1.0
