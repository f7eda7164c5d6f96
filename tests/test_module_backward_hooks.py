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


def test_no_hook_work_without_grad_and_deprecated_form_is_refused():
    m = openreg.nn.Linear(3, 2)
    seen = []
    m.register_full_backward_hook(lambda *a: seen.append(a))
    with openreg.no_grad():
        out = m(openreg.ones(1, 3, requires_grad=True))
    assert out.grad_fn is None and seen == []
    with pytest.raises(NotImplementedError, match="register_full_backward_hook"):
        m.register_backward_hook(lambda *a: None)


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
