"""nn.utils.parametrize (register/remove/is_parametrized/cached, right_inverse, errors), the parametrizations
weight_norm/spectral_norm and the hook forms weight_norm/remove_weight_norm, spectral_norm/remove_spectral_norm:
values and gradients against NumPy (norms, SVD) and, when installed, PyTorch (same weights, state dicts loaded
across), on the CPU and the device; state-dict keys as PyTorch's."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import openreg
from openreg import nn
from openreg.nn.utils import parametrizations, parametrize

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _np(t):
    return t.detach().cpu().numpy()


def _old_weight_norm(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return nn.utils.weight_norm(*args, **kwargs)


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)

    def right_inverse(self, a):
        return a.triu()


class Scale(nn.Module):
    def forward(self, x):
        return x * 2

    def right_inverse(self, y):
        return y / 2


class Split(nn.Module):  # right_inverse returns two tensors: original0, original1
    def forward(self, a, b):
        return a + b

    def right_inverse(self, x):
        return x * 0.25, x * 0.75


def test_register_parametrization_values_gradients_and_keys(devices):
    m = nn.Linear(3, 3).to(devices)
    w0 = _np(m.weight)
    weight_param = m.weight
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    original = m.parametrizations.weight.original
    assert original is weight_param  # the parameter object is kept, its value set to right_inverse(weight)
    np.testing.assert_allclose(_np(original), np.triu(w0))
    np.testing.assert_allclose(_np(m.weight), np.triu(w0) + np.triu(w0, 1).T)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    x = openreg.randn(2, 3, device=devices)
    m(x).sum().backward()
    g = _np(x).sum(0)  # d(sum(x @ W.T))/dW = ones(out) x sum_x
    full = np.ones((3, 1)) * g[None, :]
    expect = np.triu(full) + np.triu(full.T, 1)
    np.testing.assert_allclose(_np(original.grad), expect, rtol=1e-5)
    # assignment goes through right_inverse
    with openreg.no_grad():
        m.weight = openreg.eye(3, device=devices) * 3
    np.testing.assert_allclose(_np(original), np.eye(3) * 3)
    # a second parametrization joins the list
    parametrize.register_parametrization(m, "weight", Scale())
    np.testing.assert_allclose(_np(m.weight), np.eye(3) * 6)
    assert len(m.parametrizations.weight) == 2
    with parametrize.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert m.weight is weight_param and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(_np(m.weight), np.eye(3) * 6)
    assert list(m.state_dict()) == ["bias", "weight"]


def test_remove_without_leaving_parametrized_and_multi_tensor_originals(devices):
    m = nn.Linear(2, 2).to(devices)
    w = _np(m.weight)
    parametrize.register_parametrization(m, "weight", Scale())
    np.testing.assert_allclose(_np(m.weight), w, rtol=1e-6)
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    np.testing.assert_allclose(_np(m.weight), w / 2, rtol=1e-6)
    parametrize.register_parametrization(m, "bias", Split())
    pl = m.parametrizations.bias
    assert pl.ntensors == 2 and not pl.is_tensor
    assert sorted(m.state_dict()) == ["parametrizations.bias.original0", "parametrizations.bias.original1", "weight"]
    assert isinstance(pl.original0, nn.Parameter)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        parametrize.remove_parametrizations(m, "bias", leave_parametrized=False)
    b = _np(m.bias)
    parametrize.remove_parametrizations(m, "bias")
    assert isinstance(m.bias, nn.Parameter)
    np.testing.assert_allclose(_np(m.bias), b, rtol=1e-6)


def test_parametrize_errors():
    m = nn.Linear(2, 3)

    class Flatten(nn.Module):
        def forward(self, x):
            return x.reshape(-1)

    class Double(nn.Module):
        def forward(self, x):
            return x.double()

    with pytest.raises(ValueError, match="may not change the shape of the tensor, unless `unsafe` flag is enabled"):
        parametrize.register_parametrization(m, "weight", Flatten())
    with pytest.raises(ValueError, match="may not change the dtype of the tensor"):
        parametrize.register_parametrization(m, "weight", Double())
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with name "
                                         "'nothing'"):
        parametrize.register_parametrization(m, "nothing", Scale())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(m, "weight")
    parametrize.register_parametrization(m, "weight", Flatten(), unsafe=True)
    assert m.weight.shape == (6,)
    parametrize.register_parametrization(m, "bias", nn.Identity())
    with pytest.raises(RuntimeError, match="parametrization Identity does not implement right_inverse"):
        m.bias = nn.Parameter(openreg.zeros(3))
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through "
                                           "state_dict()"):
        m.__getstate__()


def test_deepcopy_and_load_state_dict_of_parametrized_module():
    import copy
    m = parametrizations.weight_norm(nn.Linear(3, 2))
    c = copy.deepcopy(m)
    assert type(c) is type(m) and c.parametrizations.weight.original0 is not m.parametrizations.weight.original0
    np.testing.assert_allclose(_np(c.weight), _np(m.weight))
    other = parametrizations.weight_norm(nn.Linear(3, 2))
    other.load_state_dict(m.state_dict())
    np.testing.assert_allclose(_np(other.weight), _np(m.weight))


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_both_forms_match_numpy(devices, dim):
    conv = nn.Conv2d(3, 4, 2).to(devices)
    w = _np(conv.weight).astype(np.float64)
    axes = tuple(d for d in range(4) if d != dim) if dim is not None else None
    norm = np.sqrt((w ** 2).sum(axis=axes, keepdims=dim is not None))
    m_new = parametrizations.weight_norm(conv, dim=dim)
    g = _np(m_new.parametrizations.weight.original0)
    np.testing.assert_allclose(g, norm, rtol=1e-5)
    np.testing.assert_allclose(_np(m_new.weight), w, rtol=1e-5, atol=1e-6)
    with openreg.no_grad():
        m_new.parametrizations.weight.original0.mul_(2)
    np.testing.assert_allclose(_np(m_new.weight), 2 * w, rtol=1e-5, atol=1e-6)
    old = _old_weight_norm(nn.Conv2d(3, 4, 2).to(devices), dim=dim)
    assert list(old.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert old.weight_g.shape == (() if dim is None else norm.shape)
    x = openreg.randn(1, 3, 3, 3, device=devices)
    old(x).sum().backward()
    assert old.weight_g.grad is not None and old.weight_v.grad is not None
    # the norm direction carries no gradient into v: <grad_v, v> == 0 per normalized slice
    gv, v = _np(old.weight_v.grad).astype(np.float64), _np(old.weight_v).astype(np.float64)
    np.testing.assert_allclose((gv * v).sum(axis=axes), 0, atol=1e-4)


def test_weight_norm_errors_and_remove():
    m = _old_weight_norm(nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
        _old_weight_norm(m)
    w = _np(m.weight)
    nn.utils.remove_weight_norm(m)
    np.testing.assert_allclose(_np(m.weight), w)
    assert isinstance(m.weight, nn.Parameter) and list(m.state_dict()) == ["bias", "weight"]
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in Linear"):
        nn.utils.remove_weight_norm(m)
    with pytest.warns(FutureWarning, match="is deprecated in favor of `torch.nn.utils.parametrizations.weight_norm`"):
        nn.utils.weight_norm(nn.Linear(1, 1))
    # an old checkpoint (weight_g/weight_v) loads into the parametrization
    old = _old_weight_norm(nn.Linear(3, 2))
    new = parametrizations.weight_norm(nn.Linear(3, 2))
    new.load_state_dict(old.state_dict())
    np.testing.assert_allclose(_np(new.weight), _np(old.weight), rtol=1e-6)


@pytest.mark.parametrize("form", ["hook", "parametrization"])
def test_spectral_norm_converges_to_numpy_singular_value(devices, form):
    openreg.manual_seed(3)
    m = nn.Linear(6, 5).to(devices)
    w = _np(m.weight).astype(np.float64)
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    sn = nn.utils.spectral_norm if form == "hook" else parametrizations.spectral_norm
    m = sn(m, n_power_iterations=3)
    x = openreg.randn(2, 6, device=devices)
    for _ in range(40):
        m(x)
    np.testing.assert_allclose(_np(m.weight), w / sigma, rtol=1e-3, atol=1e-4)
    u = _np(m.weight_u if form == "hook" else m.parametrizations.weight[0]._u)
    np.testing.assert_allclose(np.linalg.norm(u), 1.0, rtol=1e-5)
    m.eval()
    before = u.copy()
    m(x)
    np.testing.assert_array_equal(before, _np(m.weight_u if form == "hook" else m.parametrizations.weight[0]._u))
    (m(x) ** 2).sum().backward()
    orig = m.weight_orig if form == "hook" else m.parametrizations.weight.original
    assert orig.grad is not None and np.isfinite(_np(orig.grad)).all()


def test_spectral_norm_keys_dims_and_errors():
    m = nn.utils.spectral_norm(nn.ConvTranspose2d(3, 4, 2))
    assert m.weight_u.shape == (4,) and m.weight_v.shape == (12,)  # dim=1 for transposed convolutions
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        nn.utils.spectral_norm(m)
    nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        nn.utils.remove_spectral_norm(m)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got n_power_iterations=0"):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    p = parametrizations.spectral_norm(nn.Conv1d(2, 3, 2))
    assert list(p.state_dict()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
                                    "parametrizations.weight.0._v"]
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nothing'"):
        parametrizations.spectral_norm(nn.Linear(2, 2), name="nothing")
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\] but got 2\)"):
        parametrizations.spectral_norm(nn.Linear(2, 2), dim=2)
    vec = parametrizations.spectral_norm(nn.Linear(2, 2), name="bias")  # 1-d: normalized
    np.testing.assert_allclose(np.linalg.norm(_np(vec.bias)), 1.0, rtol=1e-6)


# -- against PyTorch ----------------------------------------------------------------------------------------------------
def _to_torch_sd(sd):
    return {k: torch.tensor(_np(v)) for k, v in sd.items()}


def _from_torch_sd(sd, device):
    return {k: openreg.tensor(v.detach().numpy(), device=device) for k, v in sd.items()}


@needs_torch
@pytest.mark.parametrize("which", ["parametrizations.weight_norm", "weight_norm", "parametrizations.spectral_norm",
                                   "spectral_norm"])
def test_matches_pytorch_forward_backward_and_state_dict(devices, which):
    def apply(mod_nn, utils, module):
        fn = utils
        for part in which.split("."):
            fn = getattr(fn, part)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return fn(module)
    torch.manual_seed(0)
    tm = apply(torch.nn, torch.nn.utils, torch.nn.Conv2d(3, 4, 2))
    m = apply(nn, nn.utils, nn.Conv2d(3, 4, 2).to(devices))
    tsd = tm.state_dict()
    assert list(m.state_dict()) == list(tsd)
    m.load_state_dict(_from_torch_sd(tsd, devices))
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    for step in range(3):  # training forwards run the power iteration
        tout = tm(torch.tensor(x))
        out = m(openreg.tensor(x, device=devices))
        np.testing.assert_allclose(_np(out), tout.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=f"step {step}")
    (tout ** 2).sum().backward()
    (out ** 2).sum().backward()
    for (name, p), (tname, tp) in zip(m.named_parameters(), tm.named_parameters()):
        assert name == tname
        np.testing.assert_allclose(_np(p.grad), tp.grad.numpy(), rtol=1e-3, atol=1e-4, err_msg=name)
    for key, value in m.state_dict().items():
        np.testing.assert_allclose(_np(value), tm.state_dict()[key].numpy(), rtol=1e-4, atol=1e-5, err_msg=key)
    # and openreg's checkpoint loads into PyTorch's module
    tm.load_state_dict(_to_torch_sd(m.state_dict()))
