"""histogram / histogramdd and gradient against PyTorch: values, edges, dtypes and errors on the CPU and the device
(gradient's derivative too)."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")
RNG = np.random.default_rng(9)


def _hist_cases(lib, device):
    rng = np.random.default_rng(9)
    x = lib.tensor(rng.uniform(-2, 3, 50).round(1).tolist(), device=device)
    x64 = x.to(lib.float64)
    w = lib.tensor(rng.uniform(0, 1, 50).tolist(), device=device)
    pts = lib.tensor(rng.uniform(0, 1, (20, 2)).tolist(), device=device)
    return [
        lambda: lib.histogram(x, 7),
        lambda: lib.histogram(x, 4, range=(0.0, 3.0)),
        lambda: lib.histogram(x64, 5, weight=w.to(lib.float64), density=True),
        lambda: lib.histogram(x, lib.tensor([-1.0, 0.0, 0.5, 3.0], device=device)),
        lambda: lib.histogram(x, lib.tensor([-1.0, 0.0, 0.5, 3.0], device=device), weight=w, density=True),
        lambda: x.histogram(3),
        lambda: lib.histogram(lib.tensor([2.0, 2.0], device=device), 2),
        lambda: lib.histogramdd(pts, bins=[3, 2]),
        lambda: lib.histogramdd(pts, bins=2, range=[0.0, 0.5, 0.0, 1.0], weight=w[:20], density=True),
        lambda: lib.histogramdd(pts, bins=[lib.tensor([0.0, 0.3, 1.0], device=device),
                                           lib.tensor([0.0, 1.0], device=device)]),
    ]


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [_flat(x) for x in r]
    return (str(r.dtype).split(".")[-1], r.cpu().tolist())


def test_histograms_match_torch(devices):
    theirs = [_flat(f()) for f in _hist_cases(torch, "cpu")]
    ours = [_flat(f()) for f in _hist_cases(openreg, devices)]
    for o, t in zip(ours, theirs):
        np.testing.assert_equal(repr(o[0][0]), repr(t[0][0]))
        np.testing.assert_allclose(np.array(o[0][1]), np.array(t[0][1]), rtol=1e-6)
        assert len(o[1]) == len(t[1])
        if isinstance(t[1], list):          # histogramdd: one edges tensor per dimension
            for a, b in zip(o[1], t[1]):
                np.testing.assert_allclose(np.array(a[1]), np.array(b[1]), rtol=1e-6)
        else:
            np.testing.assert_allclose(np.array(o[1][1]), np.array(t[1][1]), rtol=1e-6)


def test_histogram_errors_match_torch():
    cases = [lambda m: m.histogram(m.tensor([1.0]), 0),
             lambda m: m.histogram(m.tensor([1.0]), 3, range=(3.0, 1.0)),
             lambda m: m.histogram(m.ones(6), 3, weight=m.ones(5)),
             lambda m: m.histogram(m.ones(6), m.tensor([0.0, 1.0], dtype=m.float64))]
    for case in cases:
        with pytest.raises(RuntimeError) as theirs:
            case(torch)
        with pytest.raises(RuntimeError) as ours:
            case(openreg)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        openreg.histogram(openreg.tensor([1, 2]), 3)


def _grad_cases(lib, t, c):
    return [{}, {"spacing": 2.0}, {"dim": 1}, {"dim": (0, 2), "spacing": [0.5, 3]}, {"dim": 1, "spacing": (c,)},
            {"dim": 1, "spacing": (c,), "edge_order": 2}, {"edge_order": 2}, {"dim": -1, "edge_order": 2}]


def test_gradient_matches_torch(devices):
    a = RNG.uniform(-1, 1, (4, 5, 6))
    x = np.cumsum(RNG.uniform(0.2, 1, 5))
    for kw_t, kw_o in zip(_grad_cases(torch, None, torch.tensor(x.tolist())),
                          _grad_cases(openreg, None, openreg.tensor(x.tolist(), device=devices))):
        ta = torch.tensor(a.tolist(), requires_grad=True)
        oa = openreg.tensor(a.tolist(), device=devices, requires_grad=True)
        tg, og = torch.gradient(ta, **kw_t), openreg.gradient(oa, **kw_o)
        assert len(tg) == len(og)
        for t, o in zip(tg, og):
            np.testing.assert_allclose(np.array(o.tolist()), t.detach().numpy(), rtol=1e-5, atol=1e-6)
        sum(((g * (i + 1)).sum() for i, g in enumerate(tg))).backward()
        sum(((g * (i + 1)).sum() for i, g in enumerate(og))).backward()
        np.testing.assert_allclose(np.array(oa.grad.tolist()), ta.grad.numpy(), rtol=1e-5, atol=1e-5)
    assert [g.tolist() for g in openreg.gradient(openreg.tensor([1, 2, 4, 8]))] == \
        [g.tolist() for g in torch.gradient(torch.tensor([1, 2, 4, 8]))]


def test_gradient_errors_match_torch():
    cases = [lambda m: m.gradient(m.ones(5), edge_order=3), lambda m: m.gradient(m.ones(2), edge_order=2),
             lambda m: m.gradient(m.ones(5), spacing=[1.0, 2.0])]
    for case in cases:
        with pytest.raises(RuntimeError) as theirs:
            case(torch)
        with pytest.raises(RuntimeError) as ours:
            case(openreg)
        assert str(ours.value) == str(theirs.value)
