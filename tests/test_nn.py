"""openreg.nn (Parameter, Module, layers, functional losses) and openreg.optim (SGD, Adam) on CPU and device."""
from __future__ import annotations

import math

import numpy as np
import pytest

import openreg
import openreg.nn.functional as F
from openreg import nn


def npy(x):
    return np.asarray(x.detach().cpu())


def test_parameter_and_module_registration():
    p = nn.Parameter(openreg.ones(2))
    assert p.requires_grad and p.is_leaf and isinstance(p, openreg.Tensor)
    assert "Parameter containing" in repr(p)
    m = nn.Module()
    m.w = p
    m.sub = nn.Linear(2, 3)
    m.register_buffer("running", openreg.zeros(3))
    m.register_buffer("tmp", openreg.zeros(1), persistent=False)
    assert [n for n, _ in m.named_parameters()] == ["w", "sub.weight", "sub.bias"]
    assert [n for n, _ in m.named_buffers()] == ["running", "tmp"]
    assert list(m.state_dict()) == ["w", "running", "sub.weight", "sub.bias"]
    with pytest.raises(TypeError, match="cannot assign"):
        m.w = openreg.ones(2)
    with pytest.raises(AttributeError, match="has no attribute"):
        _ = m.nothing


def test_linear_matches_numpy(devices):
    lin = nn.Linear(3, 2).to(devices)
    x = openreg.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]], device=devices)
    w, b = npy(lin.weight), npy(lin.bias)
    np.testing.assert_allclose(npy(lin(x)), npy(x) @ w.T + b, rtol=1e-5)
    assert np.all(np.abs(w) <= 1 / np.sqrt(3))
    y3 = lin(openreg.ones(2, 4, 3, device=devices))
    assert tuple(y3.shape) == (2, 4, 2)


def test_linear_of_a_contiguous_nd_input_is_one_addmm_as_in_pytorch(devices):
    # PyTorch's linear runs a contiguous n-d input with a bias as one addmm over its rows, viewed back
    # (grad_fn ViewBackward0 over AddmmBackward0); any other input is matmul plus the bias.
    w = openreg.randn(5, 4, device=devices, requires_grad=True)
    b = openreg.randn(5, device=devices, requires_grad=True)
    x = openreg.randn(2, 3, 4, device=devices, requires_grad=True)
    y = F.linear(x, w, b)
    assert y.grad_fn.name() == "ViewBackward0" and y.grad_fn.next_functions[0][0].name() == "AddmmBackward0"
    assert tuple(y.shape) == (2, 3, 5) and y.is_contiguous()
    xn, wn, bn = npy(x).astype(np.float64), npy(w).astype(np.float64), npy(b).astype(np.float64)
    np.testing.assert_allclose(npy(y), xn @ wn.T + bn, rtol=1e-5, atol=1e-5)
    g = openreg.randn(2, 3, 5, device=devices)
    y.backward(g)
    gn = npy(g).astype(np.float64)
    np.testing.assert_allclose(npy(x.grad), gn @ wn, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(npy(w.grad), gn.reshape(6, 5).T @ xn.reshape(6, 4), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(npy(b.grad), gn.sum((0, 1)), rtol=1e-5, atol=1e-5)
    assert F.linear(x.transpose(0, 1), w, b).grad_fn.name() == "AddBackward0"
    assert tuple(F.linear(openreg.zeros(0, 3, 4, device=devices), w, b).shape) == (0, 3, 5)


def test_module_to_keeps_parameter_identity_and_moves_grad(devices):
    lin = nn.Linear(2, 2)
    w = lin.weight
    lin(openreg.ones(1, 2)).sum().backward()
    lin.to(devices)
    assert lin.weight is w and lin.weight.device.type == devices.split(":")[0]
    assert lin.weight.grad.device == lin.weight.device
    lin.to(openreg.float64)
    assert lin.weight.dtype == openreg.float64
    lin.cpu()
    assert lin.weight.device.type == "cpu"


def test_device_method_on_module():
    if not openreg.privateuseone.is_available():
        pytest.skip("no device")
    lin = nn.Linear(2, 2)
    lin._apply(lambda t: t.to("privateuseone"))
    assert lin.weight.device.type == "privateuseone"
    if hasattr(nn.Module, "privateuseone"):  # after generate_methods_for_privateuse1_backend()
        assert nn.Linear(2, 2).privateuseone().weight.device.type == "privateuseone"


def test_state_dict_roundtrip_and_errors():
    a, b = nn.Linear(2, 3), nn.Linear(2, 3)
    res = b.load_state_dict(a.state_dict())
    assert res.missing_keys == [] and res.unexpected_keys == []
    np.testing.assert_array_equal(npy(a.weight), npy(b.weight))
    sd = a.state_dict()
    del sd["bias"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        b.load_state_dict(sd)
    res = b.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["bias"]
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        b.load_state_dict(nn.Linear(3, 3).state_dict())


def test_train_eval_dropout(devices):
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)).to(devices)
    assert model.training and model[1].training
    model.eval()
    assert not model[1].training
    x = openreg.ones(8, 4, device=devices)
    np.testing.assert_allclose(npy(model(x)), npy(model[0](x)))
    model.train()
    out = npy(nn.Dropout(0.5)(openreg.ones(1000, device=devices)))
    assert set(np.unique(out)) <= {0.0, 2.0} and 300 < (out == 0).sum() < 700


def test_sequential_indexing_and_repr():
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(s) == 3 and isinstance(s[1], nn.ReLU) and len(s[:2]) == 2
    assert "(0): Linear(in_features=2, out_features=3, bias=True)" in repr(s)


def test_functional_losses_match_numpy(devices):
    logits = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])
    target = np.array([1, 2])
    x = openreg.tensor(logits, dtype=openreg.float64, device=devices, requires_grad=True)
    tgt = openreg.tensor(target, device=devices)
    loss = F.cross_entropy(x, tgt)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    np.testing.assert_allclose(loss.item(), -logp[[0, 1], target].mean(), rtol=1e-10)
    loss.backward()
    p = np.exp(logp)
    onehot = np.eye(3)[target]
    np.testing.assert_allclose(npy(x.grad), (p - onehot) / 2, rtol=1e-10)
    w = openreg.tensor([1.0, 2.0, 3.0], dtype=openreg.float64, device=devices)
    expected = -(logp[[0, 1], target] * np.array([2.0, 3.0])).sum() / 5.0
    np.testing.assert_allclose(F.cross_entropy(x, tgt, weight=w).item(), expected, rtol=1e-10)
    ign = openreg.tensor([1, -100], device=devices)
    np.testing.assert_allclose(F.cross_entropy(x, ign).item(), -logp[0, 1], rtol=1e-10)
    a = openreg.tensor([1.0, 2.0], device=devices)
    b = openreg.tensor([0.0, 4.0], device=devices)
    assert F.mse_loss(a, b).item() == pytest.approx(2.5)
    np.testing.assert_allclose(npy(F.softmax(x, dim=1)), p, rtol=1e-10)
    np.testing.assert_allclose(npy(F.relu(openreg.tensor([-1.0, 2.0], device=devices))), [0.0, 2.0])


def test_nll_loss_fused_op_matches_numpy(devices):
    rng = np.random.default_rng(3)
    logp = rng.normal(size=(5, 4))
    target = np.array([0, 3, 1, 3, 2])
    wnp = np.array([0.5, 1.0, 2.0, 1.5])
    x = openreg.tensor(logp, dtype=openreg.float64, device=devices, requires_grad=True)
    tgt = openreg.tensor(target, device=devices)
    w = openreg.tensor(wnp, dtype=openreg.float64, device=devices)
    keep = target != 3                       # ignore_index=3
    per = -logp[np.arange(5), target] * wnp[target] * keep
    for reduction, expected in (("none", per), ("sum", per.sum()), ("mean", per.sum() / (wnp[target] * keep).sum())):
        out = F.nll_loss(x, tgt, weight=w, ignore_index=3, reduction=reduction)
        assert out.grad_fn.name() == "NllLossBackward0"
        np.testing.assert_allclose(npy(out), expected, rtol=1e-12)
    F.nll_loss(x, tgt, weight=w, ignore_index=3).backward()
    g = np.zeros((5, 4))
    g[np.arange(5), target] = -wnp[target] * keep / (wnp[target] * keep).sum()
    np.testing.assert_allclose(npy(x.grad), g, rtol=1e-12)
    assert openreg.autograd.gradgradcheck(lambda a: F.cross_entropy(a, tgt, weight=w), (x,))
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        F.nll_loss(x, openreg.tensor([0, 7, 1, 1, 1], device=devices))
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 4 classes"):
        F.nll_loss(x, tgt, weight=openreg.ones(3, dtype=openreg.float64, device=devices))
    m = openreg.ops.aten.nll_loss_forward(openreg.empty(5, 4, device="meta"), openreg.empty(5, dtype=openreg.int64,
                                                                                              device="meta"), None, 0, -100)
    assert m[0].shape == (5,) and m[1].shape == ()


def test_gradcheck_losses(devices):
    x = openreg.tensor(np.random.default_rng(1).normal(size=(3, 4)), dtype=openreg.float64, device=devices,
                       requires_grad=True)
    tgt = openreg.tensor([0, 3, 1], device=devices)
    y = openreg.tensor(np.random.default_rng(2).normal(size=(3, 4)), dtype=openreg.float64, device=devices)
    assert openreg.autograd.gradcheck(lambda a: F.cross_entropy(a, tgt, label_smoothing=0.1), (x,))
    assert openreg.autograd.gradcheck(lambda a: F.mse_loss(a, y), (x,), check_forward_ad=True)


def test_sgd_momentum_matches_reference(devices):
    p = nn.Parameter(openreg.tensor([1.0, -2.0], device=devices))
    opt = openreg.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01)
    ref, buf = np.array([1.0, -2.0]), None
    for _ in range(3):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
        g = 2 * ref + 0.01 * ref
        buf = g if buf is None else 0.9 * buf + g
        ref = ref - 0.1 * buf
    np.testing.assert_allclose(npy(p), ref, rtol=1e-5)


@pytest.mark.parametrize("opts", [{"momentum": 0.9, "dampening": 0.5}, {"momentum": 0.8, "nesterov": True},
                                  {"momentum": 0.0, "maximize": True, "weight_decay": 0.1}])
def test_sgd_variants_match_reference(devices, opts):
    rng = np.random.default_rng(4)
    inits = [rng.normal(size=(3, 2)), rng.normal(size=(2,)), rng.normal(size=(4,))]
    ps = [nn.Parameter(openreg.tensor(a, dtype=openreg.float64, device=devices)) for a in inits]
    ps.append(nn.Parameter(openreg.tensor([1.0, 2.0], dtype=openreg.float16, device=devices)))  # per-tensor path
    opt = openreg.optim.SGD(ps, lr=0.1, **opts)
    mom, damp, wd = opts.get("momentum", 0.0), opts.get("dampening", 0.0), opts.get("weight_decay", 0.0)
    refs, bufs = [a.copy() for a in inits] + [np.array([1.0, 2.0])], [None] * 4
    for _ in range(3):
        opt.zero_grad()
        sum((p * p * p).sum() for p in ps[:3]).backward()
        ps[3].grad = openreg.tensor([0.5, 0.25], dtype=openreg.float16, device=devices)
        opt.step()
        for i, r in enumerate(refs):
            g = 3 * r * r if i < 3 else np.array([0.5, 0.25])
            g = -g if opts.get("maximize") else g
            g = g + wd * r
            if mom:
                bufs[i] = g.copy() if bufs[i] is None else mom * bufs[i] + (1 - damp) * g
                g = g + mom * bufs[i] if opts.get("nesterov") else bufs[i]
            refs[i] = r - 0.1 * g
    for p, r in zip(ps, refs):
        np.testing.assert_allclose(npy(p).astype(np.float64), r, rtol=1e-3 if p.dtype == openreg.float16 else 1e-12)


def test_foreach_mul_(devices):
    a = [openreg.ones(2, device=devices), openreg.tensor([1, 2], device=devices), openreg.ones(3, device=devices)[::2]]
    versions = [t._version for t in a]
    openreg.ops.aten._foreach_mul_.Scalar(a, 3)
    assert [t.tolist() for t in a] == [[3.0, 3.0], [3, 6], [3.0, 3.0]]
    assert all(t._version > v for t, v in zip(a, versions))


def test_foreach_mul_tensor_and_foreach_norm(devices):
    a = [openreg.ones(2, device=devices), openreg.tensor([1.0, 2.0], dtype=openreg.float64, device=devices),
         openreg.ones(3, device=devices)[::2]]
    versions = [t._version for t in a]
    openreg.ops.aten._foreach_mul_.Tensor(a, openreg.tensor(3.0, device=devices))
    assert [t.tolist() for t in a] == [[3.0, 3.0], [3.0, 6.0], [3.0, 3.0]]
    assert all(t._version > v for t, v in zip(a, versions))
    with pytest.raises(RuntimeError, match="0 dim"):
        openreg.ops.aten._foreach_mul_.Tensor(a, openreg.ones(2, device=devices))
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((4, 5)), rng.standard_normal(7), rng.standard_normal((2, 3))]
    xs = [openreg.tensor(arrays[0], dtype=openreg.float32, device=devices),
          openreg.tensor(arrays[1], dtype=openreg.float64, device=devices),
          openreg.tensor(arrays[2], dtype=openreg.float32, device=devices).t()]      # not contiguous: per tensor
    for ord in (2, 1, math.inf):
        norms = openreg.ops.aten._foreach_norm.Scalar(xs, ord)
        for n, x, arr in zip(norms, xs, arrays):
            assert n.shape == () and n.dtype == x.dtype and n.device == x.device
            want = np.linalg.norm(arr.ravel(), ord)
            np.testing.assert_allclose(n.item(), want, rtol=1e-6 if x.dtype == openreg.float32 else 1e-12)
            assert n.item() == openreg.linalg.vector_norm(x, ord).item()


def test_adam_matches_reference(devices):
    p = nn.Parameter(openreg.tensor([1.0, -2.0], device=devices))
    opt = openreg.optim.Adam([p], lr=0.1)
    ref, m, v = np.array([1.0, -2.0]), 0.0, 0.0
    for step in range(1, 4):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
        g = 2 * ref
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        ref = ref - 0.1 * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    np.testing.assert_allclose(npy(p), ref, rtol=1e-5)
    sd = opt.state_dict()
    assert sd["state"][0]["step"] == 3


def test_optimizer_errors():
    with pytest.raises(ValueError, match="empty parameter list"):
        openreg.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        openreg.optim.SGD([nn.Parameter(openreg.ones(1))], lr=-1)


def test_small_mlp_trains(devices):
    openreg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2)).to(devices)
    x = openreg.randn(64, 2, device=devices)
    y = (x.sum(1) > 0).to(openreg.int64)
    opt = openreg.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    first = None
    for _ in range(60):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        first = loss.item() if first is None else first
        loss.backward()
        opt.step()
    assert loss.item() < 0.2 * first


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64, openreg.bfloat16])
def test_nll_loss_without_weights_is_the_weighted_loss_with_ones(devices, dtype, reduction):
    # the unweighted case (every target a class, none ignored) takes a shorter path: same bits
    z = openreg.randn(16, 5).to(dtype).to(devices).requires_grad_()
    y = openreg.randint(0, 5, (16,)).to(devices)
    a = F.cross_entropy(z, y, reduction=reduction)
    b = F.cross_entropy(z, y, weight=openreg.ones(5, dtype=dtype, device=devices), reduction=reduction)
    ga, = openreg.autograd.grad(a.sum(), z)
    gb, = openreg.autograd.grad(b.sum(), z)
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(a.detach().float().cpu().numpy(), b.detach().float().cpu().numpy())
    np.testing.assert_array_equal(ga.float().cpu().numpy(), gb.float().cpu().numpy())
    y[3] = -100                       # an ignored row and a bad target still take the general path
    assert F.cross_entropy(z, y, reduction="sum").item() == pytest.approx(
        F.cross_entropy(z, y, weight=openreg.ones(5, dtype=dtype, device=devices), reduction="sum").item())
    y[3] = 5
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(z, y)
