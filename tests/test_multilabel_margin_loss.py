"""F.multilabel_margin_loss / nn.MultiLabelMarginLoss against PyTorch: values, input gradients, reductions,
unbatched inputs, repeated classes, empty class lists and the errors, on the CPU and the device."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

X = np.random.default_rng(0).uniform(-1, 1, (5, 6))
Y = [[3, 0, -1, 1, 2, 2], [5, -1, 0, 0, 0, 0], [0, 1, 2, 3, 4, 5], [-1, 2, 3, 0, 0, 0], [2, 2, -1, 0, 0, 0]]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_matches_torch(reduction, devices):
    for x, y in ((X, Y), (X[0], Y[0])):
        tx = torch.tensor(x, requires_grad=True)
        ox = openreg.tensor(np.asarray(x).tolist(), dtype=openreg.float64, device=devices, requires_grad=True)
        tl = torch.nn.MultiLabelMarginLoss(reduction=reduction)(tx, torch.tensor(y))
        ol = openreg.nn.MultiLabelMarginLoss(reduction=reduction)(ox, openreg.tensor(y, device=devices))
        assert tuple(ol.shape) == tuple(tl.shape)
        (tl * 1.5).sum().backward()
        (ol * 1.5).sum().backward()
        np.testing.assert_allclose(np.array(ol.tolist()), tl.detach().numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.array(ox.grad.tolist()), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_errors_match_torch():
    cases = [lambda m: m.nn.functional.multilabel_margin_loss(m.ones(1, 4), m.ones(1, 4)),
             lambda m: m.nn.functional.multilabel_margin_loss(m.ones(1, 4), m.zeros(4, dtype=m.int64)),
             lambda m: m.nn.functional.multilabel_margin_loss(m.ones(1, 4), m.tensor([[5, -1, 0, 0]]))]
    for case in cases:
        with pytest.raises(RuntimeError) as theirs:
            case(torch)
        with pytest.raises(RuntimeError) as ours:
            case(openreg)
        assert str(ours.value) == str(theirs.value)
