"""The nn module classes against PyTorch's: parameter names and shapes (state_dict keys), default init, and, with
PyTorch's parameters loaded, equal outputs and gradients on CPU and the device; BatchNorm running statistics over
several steps; state_dict round trips."""
from __future__ import annotations

import numpy as np
import pytest
from torch_compare import assert_close, torch

import openreg
from openreg import nn

rng = np.random.default_rng(0)

MODULES = [
    ("Conv2d", (3, 6, 3), {"padding": 1}, (2, 3, 7, 6)),
    ("Conv2d", (4, 6, (3, 2)), {"stride": 2, "groups": 2, "bias": False}, (2, 4, 7, 6)),
    ("Conv2d", (3, 4, 3), {"padding": 1, "padding_mode": "reflect"}, (2, 3, 6, 6)),
    ("Conv2d", (3, 4, 3), {"padding": (1, 2), "padding_mode": "replicate"}, (2, 3, 6, 6)),
    ("Conv2d", (3, 4, 3), {"padding": 1, "padding_mode": "circular"}, (2, 3, 6, 6)),
    ("Conv2d", (3, 4, 4), {"padding": "same", "dilation": 2}, (2, 3, 9, 9)),
    ("Conv1d", (3, 5, 3), {"padding": 2, "dilation": 2}, (2, 3, 10)),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1}, (2, 3, 7, 6)),
    ("MaxPool1d", (2,), {}, (2, 3, 8)),
    ("AvgPool2d", (2,), {"ceil_mode": True}, (2, 3, 7, 5)),
    ("AvgPool1d", (3,), {"stride": 2}, (2, 3, 8)),
    ("AdaptiveAvgPool2d", ((2, 3),), {}, (2, 3, 7, 6)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 7)),
    ("LayerNorm", (6,), {}, (2, 3, 6)),
    ("LayerNorm", ((3, 6),), {"elementwise_affine": False}, (2, 3, 6)),
    ("LayerNorm", (6,), {"bias": False}, (2, 3, 6)),
    ("GroupNorm", (2, 4), {}, (3, 4, 5)),
    ("BatchNorm1d", (4,), {}, (5, 4)),
    ("BatchNorm1d", (4,), {"affine": False}, (5, 4, 3)),
    ("BatchNorm2d", (3,), {"momentum": None}, (4, 3, 2, 2)),
    ("BatchNorm2d", (3,), {"track_running_stats": False}, (4, 3, 2, 2)),
    ("GELU", (), {}, (3, 4)), ("GELU", (), {"approximate": "tanh"}, (3, 4)), ("SiLU", (), {}, (3, 4)),
    ("Tanh", (), {}, (3, 4)), ("Sigmoid", (), {}, (3, 4)), ("Softmax", (), {"dim": 1}, (3, 4)),
    ("LogSoftmax", (), {"dim": -1}, (3, 4)), ("LeakyReLU", (0.2,), {}, (3, 4)), ("ELU", (0.5,), {}, (3, 4)),
    ("Softplus", (), {"beta": 2.0}, (3, 4)), ("Softmin", (), {"dim": 0}, (3, 4)),
    ("Flatten", (), {}, (2, 3, 4)), ("Unflatten", (1, (2, 2)), {}, (3, 4)), ("Identity", (), {}, (3, 4)),
]


def _ids(entry):
    name, args, kwargs, _ = entry
    return f"{name}{args}{kwargs}"


def _load_torch_params(ours, theirs, device):
    state = {k: openreg.tensor(v.detach().numpy(), device=device) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)


@pytest.mark.parametrize("entry", MODULES, ids=[_ids(e) for e in MODULES])
def test_module_matches_torch(devices, entry):
    name, args, kwargs, shape = entry
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    ours = getattr(nn, name)(*args, **kwargs).to(devices).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (k, v), (k2, v2) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert k == k2 and tuple(v.shape) == tuple(v2.shape) and str(v.dtype).split(".")[-1] == \
            str(v2.dtype).split(".")[-1], (k, v.shape, v2.shape)
    assert repr(ours) == repr(theirs)
    _load_torch_params(ours, theirs, devices)
    x = rng.standard_normal(shape)
    xo = openreg.tensor(x, device=devices, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    for step in range(2):          # two steps: running statistics feed the second
        out_o, out_t = ours(xo), theirs(xt)
        assert_close(out_o, out_t, rtol=1e-9, atol=1e-10)
        w = rng.standard_normal(tuple(out_t.shape))
        (out_o * openreg.tensor(w, device=devices)).sum().backward()
        (out_t * torch.tensor(w)).sum().backward()
        assert_close(xo.grad, xt.grad, rtol=1e-8, atol=1e-10)
        for (k, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert_close(p.grad, q.grad, rtol=1e-8, atol=1e-10)
        for (k, b), (_, c) in zip(ours.named_buffers(), theirs.named_buffers()):
            assert_close(b, c, rtol=1e-12, atol=1e-12)
    ours.eval()
    theirs.eval()
    assert_close(ours(xo), theirs(xt), rtol=1e-9, atol=1e-10)


def test_embedding_matches_torch(devices):
    torch.manual_seed(0)
    theirs = torch.nn.Embedding(6, 3, padding_idx=2).double()
    ours = nn.Embedding(6, 3, padding_idx=2).to(devices).double()
    assert ours.weight[2].tolist() == [0.0, 0.0, 0.0]
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == ["weight"]
    _load_torch_params(ours, theirs, devices)
    idx = [[1, 2, 5], [2, 0, 1]]
    out_o, out_t = ours(openreg.tensor(idx, device=devices)), theirs(torch.tensor(idx))
    assert_close(out_o, out_t)
    out_o.sum().backward()
    out_t.sum().backward()
    assert_close(ours.weight.grad, theirs.weight.grad)
    assert ours.weight.grad[2].tolist() == [0.0, 0.0, 0.0]
    pre = nn.Embedding.from_pretrained(openreg.eye(3))
    assert not pre.weight.requires_grad and pre(openreg.tensor([1])).tolist() == [[0.0, 1.0, 0.0]]
    capped = nn.Embedding.from_pretrained(openreg.full((3, 4), 1.0), max_norm=1.0)   # norms 2 -> 1, in place
    assert capped(openreg.tensor([0])).tolist() == [[0.5, 0.5, 0.5, 0.5]] and capped.weight[1].tolist() == [1.0] * 4
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=3)


def test_default_init_follows_pytorch():
    openreg.manual_seed(0)
    conv = nn.Conv2d(4, 8, 3, groups=2)
    bound = 1 / np.sqrt(2 * 9)
    w = np.asarray(conv.weight.detach())
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert np.abs(np.asarray(conv.bias.detach())).max() <= bound
    ln, gn, bn = nn.LayerNorm(5), nn.GroupNorm(2, 4), nn.BatchNorm2d(3)
    assert ln.weight.tolist() == [1.0] * 5 and ln.bias.tolist() == [0.0] * 5
    assert gn.weight.tolist() == [1.0] * 4 and bn.running_var.tolist() == [1.0] * 3
    assert bn.num_batches_tracked.dtype == openreg.int64
    emb = nn.Embedding(1000, 8)
    std = float(np.asarray(emb.weight.detach()).std())
    assert 0.9 < std < 1.1


def test_batchnorm_cumulative_average_and_state_dict_round_trip(devices):
    bn = nn.BatchNorm1d(3, momentum=None).to(devices)
    tbn = torch.nn.BatchNorm1d(3, momentum=None)
    xs = [rng.standard_normal((6, 3)).astype(np.float32) for _ in range(3)]
    for x in xs:
        bn(openreg.tensor(x, device=devices))
        tbn(torch.tensor(x))
    assert_close(bn.running_mean, tbn.running_mean, rtol=1e-5)
    assert_close(bn.running_var, tbn.running_var, rtol=1e-5)
    assert bn.num_batches_tracked.item() == 3
    clone = nn.BatchNorm1d(3).to(devices)
    clone.load_state_dict(bn.state_dict())
    assert clone.running_mean.tolist() == bn.running_mean.tolist() and clone.num_batches_tracked.item() == 3
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(openreg.ones(2, 3))


def test_module_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(3, 4, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(3, 4)
    with pytest.raises(RuntimeError, match="expected input\\[1, 2, 5, 5\\] to have 3 channels"):
        nn.Conv2d(3, 4, 3)(openreg.ones(1, 2, 5, 5))


@pytest.mark.parametrize("make", [lambda m: m.GroupNorm(2, 4, affine=False), lambda m: m.GroupNorm(2, 4, bias=False),
                                  lambda m: m.BatchNorm2d(3, bias=False), lambda m: m.LayerNorm(3, bias=False)])
def test_bias_flags_match_torch(make):
    ours, theirs = make(nn), make(torch.nn)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())


def test_batch_norm_used_twice_before_backward_matches_torch(devices):
    """A siamese network runs one BatchNorm on two inputs, then one backward: the running statistics change
    between the forward passes and training's backward does not read them (PyTorch's behaviour)."""
    theirs = torch.nn.BatchNorm2d(3)
    ours = nn.BatchNorm2d(3).to(devices)
    _load_torch_params(ours, theirs, devices)
    a, b = rng.standard_normal((4, 3, 2, 2)).astype("float32"), rng.standard_normal((4, 3, 2, 2)).astype("float32")
    xo = [openreg.tensor(v, device=devices, requires_grad=True) for v in (a, b)]
    xt = [torch.tensor(v, requires_grad=True) for v in (a, b)]
    (ours(xo[0]).sum() * 2 + (ours(xo[1]) ** 2).sum()).backward()
    (theirs(xt[0]).sum() * 2 + (theirs(xt[1]) ** 2).sum()).backward()
    for o, t in zip(xo, xt):
        assert_close(o.grad, t.grad, 1e-4, 1e-5)
    assert_close(ours.weight.grad, theirs.weight.grad, 1e-4, 1e-5)
    assert_close(ours.running_mean, theirs.running_mean, 1e-5, 1e-6)
