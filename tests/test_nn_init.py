"""nn.init: bounds and moments of the random initialisers on CPU and the device, the deterministic ones exactly,
fan/gain rules and errors as PyTorch (compared with it when installed)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import openreg
from openreg.nn import init

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


def test_calculate_gain_and_fans():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01**2))
    assert init.calculate_gain("leaky_relu", 0) == math.sqrt(2.0)
    assert init.calculate_gain("selu") == 0.75 and init.calculate_gain("tanh") == 5.0 / 3
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)
    assert init._calculate_fan_in_and_fan_out(openreg.empty(5, 3)) == (3, 5)
    assert init._calculate_fan_in_and_fan_out(openreg.empty(6, 2, 3, 4)) == (24, 72)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(openreg.empty(4))
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(openreg.empty(2, 2), mode="fan_avg")


def test_random_initialisers_bounds_and_moments(devices):
    n_out, n_in = 256, 384
    g = openreg.Generator(device=devices).manual_seed(0) if devices == "cpu" else None
    w = openreg.nn.Parameter(openreg.empty(n_out, n_in, device=devices))
    fan_in, fan_out = n_in, n_out

    init.uniform_(w, -0.5, 0.25, generator=g)
    v = _np(w)
    assert v.min() >= -0.5 and v.max() < 0.25 and abs(v.mean() + 0.125) < 0.01
    assert w.requires_grad and w.grad_fn is None and w.is_leaf  # filled under no_grad

    init.normal_(w, 2.0, 0.5, generator=g)
    v = _np(w)
    assert abs(v.mean() - 2.0) < 0.01 and abs(v.std() - 0.5) < 0.01

    init.xavier_uniform_(w, gain=2.0, generator=g)
    bound = 2.0 * math.sqrt(6.0 / (fan_in + fan_out))
    v = _np(w)
    assert np.abs(v).max() <= bound and abs(v.std() - bound / math.sqrt(3)) < 0.02 * bound

    init.xavier_normal_(w, generator=g)
    assert abs(_np(w).std() - math.sqrt(2.0 / (fan_in + fan_out))) < 0.01 * math.sqrt(2.0 / (fan_in + fan_out)) * 3

    init.kaiming_uniform_(w, a=math.sqrt(5), generator=g)
    bound = math.sqrt(6.0 / ((1 + 5) * fan_in))
    assert np.abs(_np(w)).max() <= bound

    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu", generator=g)
    std = math.sqrt(2.0) / math.sqrt(fan_out)
    assert abs(_np(w).std() - std) < 0.03 * std

    init.trunc_normal_(w, mean=0.5, std=1.0, a=0.0, b=1.0, generator=g)
    v = _np(w)
    # N(0.5, 1) truncated to [0, 1]: nearly uniform, mean 0.5, std a little under 1/sqrt(12)
    assert v.min() >= 0.0 and v.max() <= 1.0 and abs(v.mean() - 0.5) < 0.01 and abs(v.std() - 0.2805) < 0.01


def test_generator_makes_init_reproducible(devices):
    a, b = openreg.empty(10, 10, device=devices), openreg.empty(10, 10, device=devices)
    for fn in (init.xavier_normal_, init.kaiming_uniform_, init.trunc_normal_, init.orthogonal_):
        fn(a, generator=openreg.Generator(device=devices).manual_seed(7))
        fn(b, generator=openreg.Generator(device=devices).manual_seed(7))
        assert np.array_equal(_np(a), _np(b)), fn.__name__


def test_deterministic_initialisers(devices):
    t = openreg.empty(2, 3, device=devices)
    assert _np(init.constant_(t, 0.3)).tolist() == [[np.float32(0.3).item()] * 3] * 2
    assert _np(init.ones_(t)).sum() == 6 and _np(init.zeros_(t)).sum() == 0
    assert _np(init.eye_(t)).tolist() == [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(openreg.empty(2, 2, 2))
    w = init.dirac_(openreg.empty(4, 2, 3, 3, device=devices), groups=2)
    ref = np.zeros((4, 2, 3, 3))
    for g in range(2):
        for d in range(2):
            ref[g * 2 + d, d, 1, 1] = 1
    assert np.array_equal(_np(w), ref)
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(openreg.empty(3, 2, 3), groups=2)


@pytest.mark.parametrize("shape", [(4, 4), (3, 7), (7, 3), (6, 2, 2)])
def test_orthogonal(devices, shape):
    w = init.orthogonal_(openreg.empty(*shape, device=devices), gain=1.5)
    m = _np(w).reshape(shape[0], -1)
    small = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    assert np.allclose(small, 2.25 * np.eye(small.shape[0]), atol=1e-5)
    assert w.device.type == openreg.device(devices).type
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(openreg.empty(3))


def test_warnings_and_deprecated_aliases():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        init.kaiming_uniform_(openreg.empty(0, 3))
        init.trunc_normal_(openreg.empty(3), mean=10.0, std=1.0, a=-2.0, b=2.0)
        init.xavier_uniform(openreg.empty(2, 2))
    msgs = [str(w.message) for w in rec]
    assert "Initializing zero-element tensors is a no-op" in msgs
    assert any("mean is more than 2 std from [a, b]" in m for m in msgs)
    assert any("`nn.init.xavier_uniform` is now deprecated in favor of `nn.init.xavier_uniform_`" in m for m in msgs)


@needs_torch
def test_normal_quantile_matches_pytorch_ndtri():
    p = np.concatenate([np.linspace(0, 1, 20001), [1e-12, 1 - 1e-9]])
    mine = _np(init._normal_quantile_(openreg.tensor(p, dtype=openreg.float64)))
    theirs = torch.special.ndtri(torch.tensor(p)).numpy()
    finite = np.isfinite(theirs)
    assert np.array_equal(np.isfinite(mine), finite) and np.array_equal(np.sign(mine), np.sign(theirs))
    assert np.allclose(mine[finite], theirs[finite], rtol=2e-9, atol=1e-12)


@needs_torch
def test_gains_fans_and_messages_match_pytorch():
    for name in ("linear", "conv1d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"):
        assert init.calculate_gain(name) == torch.nn.init.calculate_gain(name)
    for shape in ((5, 3), (2, 3, 4), (6, 2, 3, 3)):
        assert init._calculate_fan_in_and_fan_out(openreg.empty(*shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    for fn in ("orthogonal_", "xavier_normal_", "eye_"):
        with pytest.raises(ValueError) as mine:
            getattr(init, fn)(openreg.empty(3))
        with pytest.raises(ValueError) as theirs:
            getattr(torch.nn.init, fn)(torch.empty(3))
        assert str(mine.value) == str(theirs.value)
