"""``nn.functional.embedding_bag``, ``torch.embedding_bag`` (with its offset2bag/bag_size/max_indices outputs) and
``max_norm`` (``torch.embedding_renorm_``) against a NumPy reference and PyTorch: PyTorch's CPU kernel runs the last
bag to the end of the indices under ``include_last_offset`` and sends a max bag's gradient to the first position of
each maximum only."""
import numpy as np
import pytest

import openreg
import openreg.nn.functional as F

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch: the NumPy checks still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _reference(w, idx, offsets, mode, include_last_offset=False, padding_idx=None, psw=None):
    """Bags of ``w``'s rows, the slow way: one bag at a time."""
    starts = list(offsets[:-1] if include_last_offset else offsets)
    ends = starts[1:] + [len(idx)]
    out = np.zeros((len(starts), w.shape[1]))
    for b, (lo, hi) in enumerate(zip(starts, ends)):
        pos = [p for p in range(lo, hi) if padding_idx is None or idx[p] != padding_idx % len(w)]
        if not pos:
            continue
        rows = w[idx[pos]] * (1.0 if psw is None else psw[pos][:, None])
        out[b] = {"sum": rows.sum(0), "mean": rows.mean(0), "max": rows.max(0) if len(rows) else 0}[mode]
    return out


def _case(seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((7, 3))
    idx = rng.integers(0, 7, int(rng.integers(1, 9)))
    offsets = np.sort(rng.integers(0, len(idx) + 1, int(rng.integers(2, 5))))
    offsets[0] = 0
    return rng, w, idx, offsets


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_bags_equal_numpy(devices, seed, mode):
    rng, w, idx, offsets = _case(seed)
    ilo = bool(seed % 2)
    pad = int(rng.integers(-7, 7)) if seed % 3 == 0 else None
    psw = rng.standard_normal(len(idx)) if mode == "sum" and seed % 4 == 1 else None
    got = F.embedding_bag(openreg.tensor(idx, device=devices), openreg.tensor(w, device=devices),
                          openreg.tensor(offsets, device=devices), mode=mode, include_last_offset=ilo,
                          padding_idx=pad, per_sample_weights=None if psw is None else openreg.tensor(psw,
                                                                                                     device=devices))
    np.testing.assert_allclose(got.cpu().numpy(), _reference(w, idx, offsets, mode, ilo, pad, psw), rtol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_gradcheck(mode):
    rng, w, idx, offsets = _case(3)
    W = openreg.tensor(w, requires_grad=True)
    P = openreg.tensor(rng.standard_normal(len(idx)), requires_grad=True) if mode == "sum" else None
    inputs = (W,) if P is None else (W, P)

    def fn(*args):
        return F.embedding_bag(openreg.tensor(idx), args[0], openreg.tensor(offsets), mode=mode,
                               include_last_offset=True, per_sample_weights=args[1] if len(args) > 1 else None)
    assert openreg.autograd.gradcheck(fn, inputs)


def test_max_gradient_goes_to_the_first_maximum():
    w = openreg.tensor([[1.0, 2.0], [1.0, 0.0], [0.5, 2.0]], requires_grad=True)
    out, _, _, max_indices = openreg.embedding_bag(w, openreg.tensor([1, 0, 2]), openreg.tensor([0]), mode=2)
    out.sum().backward()
    assert max_indices.tolist() == [[1, 0]] and out.tolist() == [[1.0, 2.0]]
    assert w.grad.tolist() == [[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]


def test_max_norm_renormalizes_rows_in_place():
    w = openreg.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    out = F.embedding(openreg.tensor([0, 1]), w, max_norm=1.0)
    expect = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    expect[0] *= 1.0 / (5.0 + 1e-7)
    np.testing.assert_allclose(w.numpy(), expect, rtol=1e-6)       # row 2 was not looked up: unchanged
    np.testing.assert_allclose(out.numpy(), expect[:2], rtol=1e-6)
    with pytest.raises(RuntimeError, match="'indices'"):
        openreg.embedding_renorm_(w, openreg.tensor([0.0]), 1.0, 2.0)


def test_errors_are_pytorchs():
    w = openreg.ones(3, 2)
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        openreg.embedding_bag(w, openreg.tensor([0]), openreg.tensor([0]), mode=3)
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        openreg.embedding_bag(w, openreg.tensor([0]), openreg.tensor([0]), mode=1,
                              per_sample_weights=openreg.ones(1))
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(openreg.tensor([0, 1]), w, openreg.tensor([1]))


@needs_torch
@pytest.mark.parametrize("seed", range(40))
def test_embedding_bag_outputs_and_gradients_equal_pytorchs(seed):
    rng, w, idx, offsets = _case(seed)
    w = w.round(1)                                                   # ties between rows for max
    mode = seed % 3
    ilo = bool(rng.integers(0, 2))
    psw = rng.standard_normal(len(idx)) if mode == 0 and seed % 2 else None
    pad = int(rng.integers(-7, 7)) if seed % 4 == 1 else None
    dtype = "float32" if seed % 5 == 0 else "float64"
    if ilo and dtype == "float32":
        # PyTorch's float32 kernel ends the last bag at offsets[-1] for the sum but counts it to the end for the
        # mean: inputs keep the documented contract there (the last offset is the number of indices)
        offsets[-1] = len(idx)
    results = []
    for lib in (torch, openreg):
        W = lib.tensor(w.astype(dtype), requires_grad=True)
        r = lib.embedding_bag(W, lib.tensor(idx), lib.tensor(offsets), False, mode, False,
                              None if psw is None else lib.tensor(psw.astype(dtype)), ilo, pad)
        (r[0] * lib.tensor(np.arange(r[0].numel(), dtype=dtype).reshape(r[0].shape))).sum().backward()
        results.append([t.detach().numpy() for t in r] + [W.grad.numpy()])
    for a, b in zip(*results):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)


@needs_torch
@pytest.mark.parametrize("seed", range(10))
def test_max_norm_equals_pytorchs(seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((6, 3)) * 2
    idx = rng.integers(0, 6, 5)
    p, max_norm = float(rng.choice([1.0, 2.0, 3.0])), float(rng.uniform(0.5, 3))
    results = []
    for lib in (torch, openreg):
        W = lib.tensor(w, requires_grad=True)
        if seed % 2:
            out = lib.nn.functional.embedding(lib.tensor(idx), W, max_norm=max_norm, norm_type=p)
        else:
            out = lib.nn.functional.embedding_bag(lib.tensor(idx), W, lib.tensor([0, 2]), max_norm=max_norm,
                                                  norm_type=p)
        out.sum().backward()
        results.append((out.detach().numpy(), W.detach().numpy(), W.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-6)
