"""Module backward hooks: ``register_full_backward_hook`` / ``register_full_backward_pre_hook`` see the gradients
with respect to the module's inputs and outputs (and may replace them), as PyTorch's; Grad-CAM style code."""
import warnings

import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:     # the comparisons with PyTorch skip; the others run
    torch = None

DEVICES = ["cpu", "privateuseone"]


def _shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


@pytest.mark.parametrize("device", DEVICES)
def test_hooks_see_input_and_output_gradients(device):
    m = openreg.nn.Linear(3, 2).to(device)
    seen = []
    m.register_full_backward_pre_hook(lambda mod, gout: seen.append(("pre", mod, _shapes(gout))))
    m.register_full_backward_hook(lambda mod, gin, gout: seen.append(("full", _shapes(gin), _shapes(gout))))
    x = openreg.ones(4, 3, device=device, requires_grad=True)
    m(x).sum().backward()
    assert seen == [("pre", m, [(4, 2)]), ("full", [(4, 3)], [(4, 2)])]
    # the gradients the hook sees are the real ones: grad_input is x.grad, grad_output the ones of sum()
    got = {}
    m.register_full_backward_hook(lambda mod, gin, gout: got.update(gin=gin[0].clone(), gout=gout[0].clone()))
    x.grad = None
    m(x).sum().backward()
    np.testing.assert_allclose(got["gin"].cpu().numpy(), x.grad.cpu().numpy())
    assert got["gout"].cpu().tolist() == [[1.0, 1.0]] * 4


def test_hooks_replace_gradients():
    m = openreg.nn.ReLU()
    m.register_full_backward_pre_hook(lambda mod, gout: (gout[0] * 2,))
    h = m.register_full_backward_hook(lambda mod, gin, gout: (gin[0] + 1,))
    x = openreg.tensor([1.0, -1.0], requires_grad=True)
    m(x).sum().backward()
    assert x.grad.tolist() == [3.0, 1.0]        # relu' * (2 * 1), then + 1
    h.remove()
    x.grad = None
    m(x).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0]
    m.register_full_backward_hook(lambda mod, gin, gout: (gin[0], gin[0]))
    with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of grad_input"):
        m(x).sum().backward()


def test_inputs_without_grad_fire_with_none_and_warn():
    m = openreg.nn.Linear(3, 2)
    seen = []
    m.register_full_backward_hook(lambda mod, gin, gout: seen.append(_shapes(gin)))
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        m(openreg.ones(4, 3)).sum().backward()
    assert seen == [[None]]
    assert m.weight.grad is not None


def test_no_hook_work_without_grad_and_the_two_forms_do_not_mix():
    m = openreg.nn.Linear(3, 2)
    seen = []
    m.register_full_backward_hook(lambda *a: seen.append(a))
    with openreg.no_grad():
        out = m(openreg.ones(1, 3, requires_grad=True))
    assert out.grad_fn is None and seen == []
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
        m.register_backward_hook(lambda *a: None)
    d = openreg.nn.ReLU()
    d.register_backward_hook(lambda *a: seen.append(a))
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
        d.register_full_backward_hook(lambda *a: None)
    with openreg.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error")          # no node to hook: neither a call nor a warning
        d(openreg.ones(2, requires_grad=True))
    assert seen == []


def test_forward_hooks_and_tuple_outputs_keep_working():
    lstm = openreg.nn.LSTM(3, 2, batch_first=True)
    seen = []
    lstm.register_forward_hook(lambda mod, args, out: seen.append("fwd"))
    lstm.register_full_backward_hook(lambda mod, gin, gout: seen.append(("bwd", len(gin), len(gout))))
    out, _state = lstm(openreg.randn(2, 4, 3, requires_grad=True))
    out.sum().backward()
    assert seen == ["fwd", ("bwd", 1, 2)]      # one grad_output per top-level output: out and the (h, c) tuple


def test_entries_per_positional_argument_and_unused_outputs_are_none():
    class Two(openreg.nn.Module):
        def forward(self, a, scale, b):
            return a * scale, b * 3

    seen = []
    t = Two()
    t.register_full_backward_hook(lambda mod, gin, gout: seen.append((_shapes(gin), _shapes(gout))))
    a, b = openreg.ones(2, requires_grad=True), openreg.ones(3, requires_grad=True)
    x, _ = t(a, 2.0, b)
    x.sum().backward()
    # as PyTorch: the unused output's grad_output is None, its input's gradient zeros (the node materializes it)
    assert seen == [([(2,), None, (3,)], [(2,), None])]
    assert a.grad.tolist() == [2.0, 2.0] and b.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_grad_cam_matches_torch():
    """Grad-CAM: the feature map's gradient captured by a backward hook on the last conv layer."""
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((2, 3, 8, 8)).astype(np.float64)
    results = []
    for lib in (openreg, torch):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3, padding=1), lib.nn.ReLU(), lib.nn.Conv2d(4, 5, 3, padding=1),
                                lib.nn.ReLU(), lib.nn.AdaptiveAvgPool2d(1), lib.nn.Flatten(), lib.nn.Linear(5, 3)).double()
        with lib.no_grad():
            for k, p in enumerate(net.parameters()):
                p.copy_(lib.tensor(np.cos(np.arange(p.numel()) * 0.7 + k).reshape(tuple(p.shape))))
        store = {}
        net[2].register_forward_hook(lambda mod, args, out, store=store: store.update(act=out.detach()))
        net[2].register_full_backward_hook(lambda mod, gin, gout, store=store: store.update(grad=gout[0].detach()))
        x = lib.tensor(xa).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            logits = net(x)
            logits[:, 1].sum().backward()
        weights = store["grad"].mean((2, 3), keepdim=True)
        cam = lib.relu((weights * store["act"]).sum(1))
        results.append([cam.numpy(), x.grad.numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# -- PyTorch's deprecated register_backward_hook: the gradients of the forward's last operation -----------------
class _TwoOutputs:
    """A module with two outputs made by different nodes (its hook sees the first output's node only)."""

    @staticmethod
    def make(lib):
        class Two(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(3, 2)

            def forward(self, x):
                return self.lin(x).tanh(), x.sin()
        return Two()


def _last_node_run(lib, make, x_np, hook_result=None):
    """Builds the module with deterministic parameters, hooks it with register_backward_hook, runs a backward and
    returns (node name, grad_input, grad_output, x.grad, parameter grads, FutureWarning texts)."""
    m = make(lib).double()
    with lib.no_grad():
        for k, p in enumerate(m.parameters()):
            p.copy_(lib.tensor(np.cos(np.arange(p.numel()) * 0.9 + k).reshape(tuple(p.shape))))
    seen = []

    def hook(mod, gin, gout):
        assert mod is m
        seen.append(([None if g is None else g.detach().numpy().copy() for g in gin],
                     [None if g is None else g.detach().numpy().copy() for g in gout]))
        return hook_result(gin) if hook_result else None

    m.register_backward_hook(hook)
    x = lib.tensor(x_np).requires_grad_()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = m(x)
    first = out if isinstance(out, lib.Tensor) else out[0]
    total = sum((o * (k + 1)).sum() for k, o in enumerate(out)) if isinstance(out, tuple) else (out * out).sum()
    total.backward()
    (gin, gout), = seen
    return (first.grad_fn.name(), gin, gout, x.grad.numpy(), [p.grad.numpy() for p in m.parameters()],
            [(w.category, str(w.message)) for w in caught if issubclass(w.category, FutureWarning)])


_LAST_NODE_MODULES = {
    "linear": (lambda lib: lib.nn.Linear(3, 2), (4, 3)),
    "linear_3d": (lambda lib: lib.nn.Linear(3, 2), (2, 4, 3)),
    "sequential": (lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2)), (4, 3)),
    "relu": (lambda lib: lib.nn.ReLU(), (4, 3)),
    "conv": (lambda lib: lib.nn.Conv2d(2, 3, 3), (1, 2, 5, 5)),
    "two_outputs": (_TwoOutputs.make, (4, 3)),
}


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", sorted(_LAST_NODE_MODULES))
@pytest.mark.parametrize("replace", [False, True])
def test_register_backward_hook_matches_torch(name, replace):
    make, shape = _LAST_NODE_MODULES[name]
    x_np = np.sin(np.arange(np.prod(shape)) * 1.3).reshape(shape)
    # a returned tuple replaces grad_input: the last operation's input gradients, scaled per entry
    result = (lambda gin: tuple(None if g is None else g * (k + 2) for k, g in enumerate(gin))) if replace else None
    ours, theirs = (_last_node_run(lib, make, x_np, result) for lib in (openreg, torch))
    assert ours[0] == theirs[0]                                 # the hooked node
    for a_list, b_list in ((ours[1], theirs[1]), (ours[2], theirs[2]), ([ours[3]], [theirs[3]]), (ours[4], theirs[4])):
        assert [None if a is None else a.shape for a in a_list] == [None if b is None else b.shape for b in b_list]
        for a, b in zip(a_list, b_list):
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert ours[5] == theirs[5] and ours[5]                     # the same FutureWarning(s)


def test_register_backward_hook_checks_what_the_hook_returns():
    def short(mod, gin, gout):
        return gin[:1]

    m = openreg.nn.Linear(3, 2)
    m.register_backward_hook(short)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(RuntimeError, match="hook 'short' has returned an incorrect number of values "
                                               r"\(got 1, but expected 3\)"):
            m(openreg.ones(4, 3, requires_grad=True)).sum().backward()
        r = openreg.nn.ReLU()
        r.register_backward_hook(lambda mod, gin, gout: list(gin))
        with pytest.raises(TypeError, match="expected tuple, but hook returned 'list'"):
            r(openreg.ones(4, 3, requires_grad=True)).sum().backward()


def test_register_backward_hook_warns_about_nested_outputs_and_non_tensor_inputs():
    class Nested(openreg.nn.Module):
        def forward(self, x, scale):
            return {"y": x * scale}

    m = Nested()
    seen = []
    h = m.register_backward_hook(lambda mod, gin, gout: seen.append(len(gout)))
    with pytest.warns(FutureWarning, match="does not return a single Tensor or a tuple of Tensors"):
        out = m(openreg.ones(2, requires_grad=True), 3.0)
    out["y"].sum().backward()
    assert seen == [1]
    h.remove()
    out = m(openreg.ones(2, requires_grad=True), 3.0)   # a removed hook is not registered on the node
    out["y"].sum().backward()
    assert seen == [1]
