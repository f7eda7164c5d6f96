"""F.ctc_loss / nn.CTCLoss: against a brute-force sum over every alignment (NumPy), gradients by gradcheck, the
reductions, concatenated targets, zero_infinity; against torch when it is installed."""
import itertools

import numpy as np
import pytest
from device_params import DEVICES

import openreg
import openreg.nn.functional as F

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the NumPy checks still run
    torch = None

RNG = np.random.default_rng(0)


def _brute_nll(lp, target, blank=0):
    """-log of the summed probability of every path collapsing (repeats merged, blanks dropped) to ``target``."""
    T, C = lp.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or c != path[i - 1])]
        if collapsed == list(target):
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


@pytest.mark.parametrize("device", DEVICES)
def test_against_brute_force(device):
    T, N, C = 5, 3, 3
    x = RNG.standard_normal((T, N, C))
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    targets = [[1, 1], [2], [1, 2, 1]]
    in_len, tg_len = [5, 4, 5], [2, 1, 3]
    padded = np.zeros((N, 3), dtype=np.int64)
    for b, t in enumerate(targets):
        padded[b, :len(t)] = t
    expected = np.array([_brute_nll(lp[:in_len[b], b], targets[b]) for b in range(N)])
    out = F.ctc_loss(openreg.tensor(lp, device=device), openreg.tensor(padded, device=device), in_len, tg_len,
                     reduction="none")
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-10)
    flat = openreg.tensor(np.concatenate(targets), device=device)
    mean = openreg.nn.CTCLoss()(openreg.tensor(lp, device=device), flat, openreg.tensor(in_len),
                                openreg.tensor(tg_len))
    assert mean.item() == pytest.approx(float((expected / np.array(tg_len)).mean()), rel=1e-10)


def test_gradcheck_and_zero_infinity():
    x = openreg.tensor(RNG.standard_normal((4, 2, 3)), requires_grad=True)

    def f(t):
        return F.ctc_loss(t.log_softmax(2), openreg.tensor([[1, 2], [2, 2]]), [4, 4], [2, 2], reduction="sum")

    assert openreg.autograd.gradcheck(f, (x,))
    # target [1, 1, 2] needs 4 frames: with 3 the loss is infinite; zero_infinity zeroes it and its gradient
    y = openreg.tensor(RNG.standard_normal((3, 1, 3)), requires_grad=True)
    loss = F.ctc_loss(y.log_softmax(2), openreg.tensor([[1, 1, 2]]), [3], [3], reduction="sum", zero_infinity=True)
    loss.backward()
    assert loss.item() == 0.0 and not y.grad.abs().sum().item()
    assert F.ctc_loss(y.log_softmax(2), openreg.tensor([[1, 1, 2]]), [3], [3], reduction="none").isinf().all()
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 3"):
        F.ctc_loss(y.log_softmax(2), openreg.tensor([[1]]), [4], [1])


@pytest.mark.parametrize("device", DEVICES)
def test_gradcheck_ragged_lengths(device):
    """The beta recursion starts at each sample's own last frame: shorter inputs, an empty target, a repeated
    label, frames past an input's length (zero gradient there)."""
    x = openreg.tensor(RNG.standard_normal((5, 3, 4)), requires_grad=True, device=device)
    targets = openreg.tensor([[1, 1, 3], [2, 0, 0], [3, 2, 0]], device=device)

    def f(t):
        return F.ctc_loss(t.log_softmax(2), targets, [5, 3, 4], [3, 0, 2], reduction="none")

    assert openreg.autograd.gradcheck(f, (x,))
    f(x).sum().backward()
    assert x.grad[3:, 1].abs().sum().item() == 0 and x.grad[4:, 2].abs().sum().item() == 0


@pytest.mark.parametrize("device", DEVICES)
def test_every_target_empty(device):
    """Only blanks fit: the loss is -sum(log_probs[:, :, blank]) over each input's frames."""
    x = RNG.standard_normal((4, 2, 3))
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    out = F.ctc_loss(openreg.tensor(lp, device=device), openreg.tensor([[0], [0]], device=device), [4, 2], [0, 0],
                     blank=2, reduction="none")
    np.testing.assert_allclose(out.cpu().numpy(), [-lp[:, 0, 2].sum(), -lp[:2, 1, 2].sum()], rtol=1e-12)


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_against_torch(reduction):
    T, N, C = 12, 4, 6
    x = RNG.standard_normal((T, N, C))
    tl, il = [4, 1, 0, 5], [12, 7, 3, 10]
    tg = RNG.integers(1, C, (N, 5))
    res = []
    for fw in (openreg, torch):
        xt = fw.tensor(x, requires_grad=True)
        loss = fw.nn.functional.ctc_loss(xt.log_softmax(2), fw.tensor(tg), fw.tensor(il), fw.tensor(tl),
                                         reduction=reduction)
        (loss * (fw.arange(loss.numel(), dtype=loss.dtype).reshape(loss.shape) + 1)).sum().backward()
        res.append((loss.detach().numpy(), xt.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-8, atol=1e-12)
