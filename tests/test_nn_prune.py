"""``openreg.nn.utils.prune`` (PyTorch's pruning tutorial stopped at ``No module named openreg.nn.utils.prune``):
masks against NumPy, the module re-parametrization (``<name>_orig``, ``<name>_mask``, the forward pre-hook,
``remove``), iterative pruning through ``PruningContainer`` and ``global_unstructured``; the same masks as
PyTorch's where the choice is deterministic."""
import numpy as np
import pytest

import openreg
from openreg.nn.utils import prune

try:
    import torch
    import torch.nn.utils.prune
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _linear(w, bias=True):
    m = openreg.nn.Linear(w.shape[1], w.shape[0], bias=bias)
    with openreg.no_grad():
        m.weight.copy_(openreg.tensor(w))
    return m


def test_l1_unstructured_mask_and_reparametrization():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((5, 7)).astype(np.float32)
    m = _linear(w)
    prune.l1_unstructured(m, "weight", amount=0.4)
    k = round(0.4 * w.size)
    expected = np.ones(w.size, np.float32)
    expected[np.argsort(np.abs(w).ravel(), kind="stable")[:k]] = 0
    expected = expected.reshape(w.shape)
    np.testing.assert_array_equal(m.weight_mask.numpy(), expected)
    np.testing.assert_array_equal(m.weight.detach().numpy(), w * expected)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_mask"]
    assert "weight" not in m._parameters
    assert sorted(m.state_dict()) == ["bias", "weight_mask", "weight_orig"]
    assert prune.is_pruned(m) and len(m._forward_pre_hooks) == 1
    # the hook recomputes the pruned weight from weight_orig before each forward; gradients reach weight_orig
    with openreg.no_grad():
        m.weight_orig.add_(1.0)
    x = openreg.tensor(rng.standard_normal((3, 7)).astype(np.float32))
    m(x).sum().backward()
    np.testing.assert_allclose(m.weight.detach().numpy(), (w + 1) * expected)
    np.testing.assert_allclose(m.weight_orig.grad.numpy(), np.tile(x.numpy().sum(0), (5, 1)) * expected, rtol=1e-6)


def test_remove_makes_pruning_permanent_and_errors():
    w = np.arange(8.0, dtype=np.float32).reshape(2, 4) - 3.5
    m = _linear(w)
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(m, "weight")
    prune.l1_unstructured(m, "weight", amount=4)
    prune.remove(m, "weight")
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
    assert isinstance(m.weight, openreg.nn.Parameter) and list(m.named_buffers()) == []
    assert not prune.is_pruned(m)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.where(np.abs(w) > 2.0, w, 0))


def test_amount_validation_leaves_module_unchanged():
    m = _linear(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="should either be a float in the range"):
        prune.l1_unstructured(m, "weight", amount=1.5)
    with pytest.raises(TypeError, match="Invalid type for amount"):
        prune.l1_unstructured(m, "weight", amount="half")
    with pytest.raises(ValueError, match="should be smaller than the number of parameters"):
        prune.l1_unstructured(m, "weight", amount=7)
    with pytest.raises(ValueError, match="Structured pruning can only be applied to multidimensional"):
        prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
    assert list(m.named_buffers()) == [] and len(m._forward_pre_hooks) == 0


def test_ln_structured_on_top_of_unstructured_uses_a_container():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((6, 3, 2, 2)).astype(np.float32)
    conv = openreg.nn.Conv2d(3, 6, 2)
    with openreg.no_grad():
        conv.weight.copy_(openreg.tensor(w))
    prune.l1_unstructured(conv, "weight", amount=5)
    first = conv.weight_mask.numpy().copy()
    prune.ln_structured(conv, "weight", amount=0.5, n=2, dim=0)
    hooks = list(conv._forward_pre_hooks.values())
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer)
    assert [type(h).__name__ for h in hooks[0]] == ["L1Unstructured", "LnStructured"]
    norms = np.sqrt(((w * first) ** 2).sum(axis=(1, 2, 3)))
    keep = np.zeros(6, bool)
    keep[np.argsort(-norms, kind="stable")[:3]] = True
    np.testing.assert_array_equal(conv.weight_mask.numpy(), first * keep[:, None, None, None])
    # a third pruning of the same parameter extends the same container
    prune.random_unstructured(conv, "weight", amount=2)
    assert len(hooks[0]) == 3 and list(conv._forward_pre_hooks.values()) == hooks
    kept_before = (first * keep[:, None, None, None]).sum()
    assert conv.weight_mask.numpy().sum() == kept_before - 2


def test_global_unstructured_and_custom_method():
    a = _linear(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), bias=False)
    b = _linear(np.array([[5.0, 6.0], [7.0, 0.5]], np.float32), bias=False)
    prune.global_unstructured([(a, "weight"), (b, "weight")], prune.L1Unstructured, amount=3)
    assert a.weight_mask.tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert b.weight_mask.tolist() == [[1.0, 1.0], [1.0, 0.0]]
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE'):
        prune.global_unstructured([(a, "weight")], prune.RandomStructured, amount=1)

    class EveryOther(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.flatten()[::2] = 0
            return mask

    m = _linear(np.ones((2, 5), np.float32))
    EveryOther.apply(m, "bias")
    assert m.bias_mask.tolist() == [0.0, 1.0]
    prune.custom_from_mask(m, "weight", openreg.tensor([[1.0, 0, 1, 0, 1], [0, 1, 0, 1, 0]]))
    assert m.weight.detach().sum().item() == 5.0


@needs_torch
@pytest.mark.parametrize("case", range(6))
def test_deterministic_masks_match_torch(case):
    rng = np.random.default_rng(10 + case)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    imp = rng.standard_normal(w.shape).astype(np.float32)
    masks = []
    for lib, P in ((openreg, prune), (torch, torch.nn.utils.prune)):
        conv = lib.nn.Conv2d(3, 4, 3)
        with lib.no_grad():
            conv.weight.copy_(lib.tensor(w))
        P.l1_unstructured(conv, "weight", amount=0.3)
        P.ln_structured(conv, "weight", amount=1, n=[1, 2, float("inf")][case % 3], dim=case % 4)
        P.l1_unstructured(conv, "weight", amount=7, importance_scores=lib.tensor(imp))
        lin = lib.nn.Linear(4, 3)
        with lib.no_grad():
            conv.bias.copy_(lib.tensor(imp.reshape(-1)[:4] * 0.3))
            lin.weight.copy_(lib.tensor(w.reshape(-1)[:12].reshape(3, 4)))
        P.global_unstructured([(conv, "bias"), (lin, "weight")], P.L1Unstructured, amount=0.25)
        masks.append([np.asarray(t.detach().numpy()) for t in
                      (conv.weight_mask, conv.bias_mask, lin.weight_mask, conv.weight, lin.weight)])
    for x, y in zip(*masks):
        np.testing.assert_array_equal(x, y)
