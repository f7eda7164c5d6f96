"""GradScaler and its two ops (_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_) on CPU and device."""
import pickle
import warnings

import numpy as np
import pytest
from device_params import DEVICES, needs_device

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")
A = openreg.ops.aten


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_unscale_op_matches_numpy(device, dtype):
    dt = getattr(openreg, dtype)
    vals = np.array([1.0, -3.0, 250.0, 0.5], np.float32)
    g = openreg.tensor(vals, dtype=dt, device=device)
    found = openreg.zeros(1, device=device)
    A._amp_foreach_non_finite_check_and_unscale_([g], found, openreg.tensor(0.25, device=device))
    assert found.cpu().tolist() == [0.0]
    np.testing.assert_allclose(g.cpu().float().numpy(), vals * 0.25, rtol=1e-2)
    bad = openreg.tensor([1.0, float("nan")], dtype=dt, device=device)
    A._amp_foreach_non_finite_check_and_unscale_([g, bad], found, openreg.tensor(2.0, device=device))
    assert found.cpu().tolist() == [1.0]


@pytest.mark.parametrize("device", DEVICES)
def test_update_scale_op(device):
    scale = openreg.tensor(4.0, device=device)
    tracker = openreg.tensor(0, dtype=openreg.int32, device=device)
    clean, bad = openreg.zeros(1, device=device), openreg.ones(1, device=device)
    out = A._amp_update_scale_(scale, tracker, clean, 2.0, 0.5, 2)
    assert out is scale and (scale.item(), tracker.item()) == (4.0, 1)
    A._amp_update_scale_(scale, tracker, clean, 2.0, 0.5, 2)
    assert (scale.item(), tracker.item()) == (8.0, 0)
    A._amp_update_scale_(scale, tracker, bad, 2.0, 0.5, 2)
    assert (scale.item(), tracker.item()) == (4.0, 0)
    huge = openreg.tensor(3e38, device=device)
    A._amp_update_scale_(huge, tracker, clean, 2.0, 0.5, 1)          # growing to inf keeps the scale
    assert (huge.item(), tracker.item()) == (pytest.approx(3e38), 0)


def _errors(lib, ops, f64, i32):
    g = [lib.ones(2)]
    return [
        lambda: ops._amp_foreach_non_finite_check_and_unscale_(g, lib.zeros(2), lib.tensor(1.0)),
        lambda: ops._amp_foreach_non_finite_check_and_unscale_(g, lib.zeros(1), lib.ones(2)),
        lambda: ops._amp_foreach_non_finite_check_and_unscale_(g, lib.zeros(1), lib.tensor(1.0, dtype=f64)),
        lambda: ops._amp_foreach_non_finite_check_and_unscale_(g, lib.zeros(1, dtype=f64), lib.tensor(1.0)),
        lambda: ops._amp_update_scale_(lib.tensor(4.0), lib.tensor(0.0), lib.zeros(1), 2.0, 0.5, 2),
        lambda: ops._amp_update_scale_(lib.tensor(4.0, dtype=f64), lib.tensor(0, dtype=i32), lib.zeros(1), 2.0,
                                       0.5, 2),
        lambda: ops._amp_update_scale_(lib.ones(2), lib.tensor(0, dtype=i32), lib.zeros(1), 2.0, 0.5, 2),
        lambda: ops._amp_update_scale_(lib.tensor(4.0), lib.zeros(2, dtype=i32), lib.zeros(1), 2.0, 0.5, 2),
    ]


def test_op_errors_change_nothing():
    g, found, scale = openreg.ones(2), openreg.zeros(2), openreg.tensor(4.0)
    with pytest.raises(RuntimeError, match="found_inf must be a 1-element tensor"):
        A._amp_foreach_non_finite_check_and_unscale_([g], found, openreg.tensor(0.5))
    with pytest.raises(RuntimeError, match="growth_tracker must be an int tensor"):
        A._amp_update_scale_(scale, openreg.tensor(0.0), openreg.ones(1), 2.0, 0.5, 1)
    assert g.tolist() == [1.0, 1.0] and found.tolist() == [0.0, 0.0] and scale.item() == 4.0


@needs_torch
def test_op_errors_match_pytorch():
    ours = _errors(openreg, A, openreg.float64, openreg.int32)
    theirs = _errors(torch, torch, torch.float64, torch.int32)
    for a, b in zip(ours, theirs):
        with pytest.raises(RuntimeError) as e_theirs:
            b()
        with pytest.raises(RuntimeError) as e_ours:
            a()
        assert str(e_ours.value) == str(e_theirs.value).splitlines()[0]


def _train(lib, device, grads_seq, **kw):
    w = lib.nn.Parameter(lib.ones(3, device=device))
    opt = lib.optim.SGD([w], lr=0.1)
    scaler = lib.amp.GradScaler(device, **kw)
    scales, weights = [], []
    for g in grads_seq:
        opt.zero_grad()
        loss = (w * lib.tensor(g, device=device)).sum()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
        weights.append(w.detach().cpu().tolist())
    return scales, weights, scaler


GRADS = [[1.0, 2.0, 3.0], [float("inf"), 1.0, 1.0], [0.5, 0.5, 0.5], [1.0, 1.0, 1.0], [1e38, 1.0, 1.0]]


@pytest.mark.parametrize("device", DEVICES)
def test_scaler_skips_nonfinite_steps_and_adapts(device):
    scales, weights, scaler = _train(openreg, device, GRADS, init_scale=8.0, growth_interval=2)
    assert scales == [8.0, 4.0, 4.0, 8.0, 4.0]
    assert weights[1] == weights[0]                        # the inf step was skipped
    np.testing.assert_allclose(weights[0], [0.9, 0.8, 0.7], rtol=1e-6)
    assert weights[4] == weights[3]                        # 1e38 * scale overflows: skipped
    sd = scaler.state_dict()
    assert sd == {"scale": 4.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2,
                  "_growth_tracker": 0}
    other = openreg.amp.GradScaler(device)
    other.load_state_dict(sd)
    assert other.get_scale() == 4.0 and other.get_growth_interval() == 2
    assert pickle.loads(pickle.dumps(scaler)).get_scale() == 4.0


@needs_torch
def test_scaler_matches_pytorch_on_cpu():
    ours = _train(openreg, "cpu", GRADS, init_scale=8.0, growth_interval=2)
    theirs = _train(torch, "cpu", GRADS, init_scale=8.0, growth_interval=2)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert ours[2].state_dict() == theirs[2].state_dict()


def test_scaler_usage_errors():
    w = openreg.nn.Parameter(openreg.ones(2))
    opt = openreg.optim.SGD([w], lr=0.1)
    scaler = openreg.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="Attempted update but _scale is None"):
        scaler.update()
    scaler.scale(w.sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step"):
        scaler.unscale_(opt)
    scaler.update()
    w16 = openreg.nn.Parameter(openreg.ones(2, dtype=openreg.float16))
    opt16 = openreg.optim.SGD([w16], lr=0.1)
    scaler.scale(w16.float().sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        scaler.unscale_(opt16)
    with pytest.raises(AssertionError, match="growth factor must be > 1.0"):
        openreg.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        scaler.load_state_dict({})


def test_disabled_scaler_passes_through():
    w = openreg.nn.Parameter(openreg.ones(2))
    opt = openreg.optim.SGD([w], lr=1.0)
    scaler = openreg.amp.GradScaler("cpu", enabled=False)
    loss = w.sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert w.tolist() == [0.0, 0.0] and scaler.get_scale() == 1.0 and scaler.state_dict() == {}


def test_unsupported_devices():
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  Disabling."):
        s = openreg.amp.GradScaler("cuda")
    assert not s.is_enabled()
    with pytest.raises(NotImplementedError, match="does not support the 'meta' device"):
        openreg.amp.GradScaler("meta")
    with pytest.raises(RuntimeError, match="Expected one of cpu"):
        openreg.amp.GradScaler("nope")


def test_cuda_amp_deprecated_aliases():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = openreg.cuda.amp.GradScaler()
        ctx = openreg.cuda.amp.autocast()
    msgs = [str(x.message) for x in w if x.category is FutureWarning]
    assert any("openreg.cuda.amp.GradScaler(args...)` is deprecated" in m for m in msgs)
    assert any("openreg.cuda.amp.autocast(args...)` is deprecated" in m for m in msgs)
    assert isinstance(s, openreg.amp.GradScaler) and isinstance(ctx, openreg.amp.autocast)
    from openreg.cuda.amp import custom_fwd  # noqa: F401 - importable as in PyTorch


@needs_device
def test_scaler_on_device_runs_there():
    w = openreg.nn.Parameter(openreg.ones(2, device="privateuseone"))
    opt = openreg.optim.SGD([w], lr=0.5)
    scaler = openreg.amp.GradScaler("privateuseone", init_scale=2.0)
    scaler.scale((w * 2).sum()).backward()
    assert scaler._scale.device.type == "privateuseone"
    scaler.step(opt)
    scaler.update()
    assert w.cpu().tolist() == [0.0, 0.0]
