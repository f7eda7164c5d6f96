"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch with the same weights: output, loss, gradients, log_prob,
predict, unbatched inputs and the errors, on the CPU and the device."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")


def _pair(device, head_bias):
    torch.manual_seed(0)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[3, 7], div_value=2.0, head_bias=head_bias).double()
    om = openreg.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[3, 7], div_value=2.0, head_bias=head_bias,
                                               dtype=openreg.float64, device=device)
    om.load_state_dict({k: openreg.tensor(v.tolist(), dtype=openreg.float64) for k, v in tm.state_dict().items()})
    return tm, om


@pytest.mark.parametrize("head_bias", [False, True])
def test_matches_torch(head_bias, devices):
    tm, om = _pair(devices, head_bias)
    x = np.random.default_rng(2).uniform(-1, 1, (6, 8))
    y = [0, 2, 3, 6, 7, 11]
    tx = torch.tensor(x, requires_grad=True)
    ox = openreg.tensor(x.tolist(), dtype=openreg.float64, device=devices, requires_grad=True)
    to, oo = tm(tx, torch.tensor(y)), om(ox, openreg.tensor(y, device=devices))
    np.testing.assert_allclose(np.array(oo.output.tolist()), to.output.detach().numpy(), rtol=1e-12, atol=1e-12)
    to.loss.backward()
    oo.loss.backward()
    np.testing.assert_allclose(np.array(ox.grad.tolist()), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (name, tp), op in zip(tm.named_parameters(), om.parameters()):
        np.testing.assert_allclose(np.array(op.grad.tolist()), tp.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    xs = torch.tensor(x)
    oxs = openreg.tensor(x.tolist(), dtype=openreg.float64, device=devices)
    np.testing.assert_allclose(np.array(om.log_prob(oxs).tolist()), tm.log_prob(xs).detach().numpy(), rtol=1e-12)
    assert om.predict(oxs).tolist() == tm.predict(xs).tolist()
    single = om(oxs[0], openreg.tensor(7, device=devices))
    assert single.output.dim() == 0
    np.testing.assert_allclose(single.output.item(), tm(xs[0], torch.tensor(7)).output.item(), rtol=1e-12)


def test_errors_match_torch():
    for kw in [{"cutoffs": []}, {"cutoffs": [5, 3]}, {"cutoffs": [3, 12]}]:
        with pytest.raises(ValueError) as theirs:
            torch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, **kw)
        with pytest.raises(ValueError) as ours:
            openreg.nn.AdaptiveLogSoftmaxWithLoss(8, 12, **kw)
        assert str(ours.value) == str(theirs.value)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[3])
    om = openreg.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[3])
    for lib, m in ((torch, tm), (openreg, om)):
        with pytest.raises(RuntimeError, match="Target values should be in \\[0, 11\\]"):
            m(lib.ones(2, 8), lib.tensor([1, 12]))
        with pytest.raises(RuntimeError, match="same size in the batch dimension"):
            m(lib.ones(2, 8), lib.tensor([1, 2, 3]))
