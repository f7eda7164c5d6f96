"""operators/selection.py, discrete.py, grids.py and matrix_products.py against PyTorch: values, dtypes, shapes,
errors and (for the differentiable ones) gradients, on the CPU and the device."""
from __future__ import annotations

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

RNG = np.random.default_rng(7)


def _pair(arr, dtype="float64", device="cpu", grad=False):
    arr = np.asarray(arr)
    ours = openreg.tensor(arr.tolist(), dtype=getattr(openreg, dtype), device=device, requires_grad=grad)
    theirs = torch.tensor(arr.tolist(), dtype=getattr(torch, dtype), requires_grad=grad)
    return ours, theirs


def _same(ours, theirs, tol=1e-6):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t, tol)
        return
    if not isinstance(theirs, torch.Tensor):
        assert ours == theirs
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    a = np.asarray(ours.detach().cpu().tolist(), dtype=float)
    b = np.asarray(theirs.detach().tolist(), dtype=float)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


def _both(fn, *arrays, dtypes=None, device="cpu", grad=False, tol=1e-6):
    """fn(module, *tensors) on openreg and torch; values, and gradients of a weighted sum when ``grad``."""
    dtypes = dtypes or ["float64"] * len(arrays)
    pairs = [_pair(a, d, device, grad and "float" in d) for a, d in zip(arrays, dtypes)]
    ours = fn(openreg, *[p[0] for p in pairs])
    theirs = fn(torch, *[p[1] for p in pairs])
    _same(ours, theirs, tol)
    if grad:
        o = ours[0] if isinstance(ours, tuple) else ours
        t = theirs[0] if isinstance(theirs, tuple) else theirs
        w = RNG.uniform(0.5, 1.5, size=tuple(t.shape))
        (o * openreg.tensor(w.tolist(), dtype=o.dtype, device=device)).sum().backward()
        (t * torch.tensor(w.tolist(), dtype=t.dtype)).sum().backward()
        for (po, pt) in pairs:
            if pt.requires_grad:
                _same(po.grad, pt.grad, tol)


def _errors_match(fn):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)) as ours:
        fn(openreg)
    assert str(theirs.value).split("\n")[0][:50] in str(ours.value), (str(ours.value), str(theirs.value))


X = RNG.uniform(-2, 2, size=(3, 5))
TIES = np.array([[1.0, 3.0, 3.0, 2.0, 1.0], [2.0, 2.0, 5.0, 5.0, 0.0], [4.0, 4.0, 4.0, 1.0, 1.0]])
NANS = np.array([[1.0, np.nan, 3.0, 0.5], [3.0, 1.0, 2.0, 2.5], [2.0, np.nan, np.nan, 1.0]])
ALL_NAN = np.full((2, 3), np.nan)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_order_statistics(dim, keepdim, devices):
    _both(lambda m, x: m.median(x, dim, keepdim), X, device=devices, grad=True)
    _both(lambda m, x: m.nanmedian(x, dim, keepdim), X, device=devices, grad=True)
    _both(lambda m, x: m.kthvalue(x, 2, dim, keepdim), X, device=devices, grad=True)
    _both(lambda m, x: m.mode(x, dim, keepdim), TIES, device=devices)
    _both(lambda m, x: m.mode(x, dim, keepdim), TIES, dtypes=["int64"], device=devices)
    _both(lambda m, x: x.median(dim, keepdim).values, X, device=devices)


def test_medians_with_nan_and_all(devices):
    _both(lambda m, x: m.median(x, 1), NANS, device=devices)
    _both(lambda m, x: m.nanmedian(x, 1), NANS, device=devices)
    _both(lambda m, x: (m.median(x), m.nanmedian(x)), NANS, device=devices)
    _both(lambda m, x: (m.median(x, 1).values, m.nanmedian(x, 0).values, m.nanmedian(x)), ALL_NAN, device=devices)
    _both(lambda m, x: m.median(x), TIES, device=devices, grad=True)          # ties share the gradient
    _both(lambda m, x: m.nanmedian(x), X, device=devices, grad=True)
    _errors_match(lambda m: m.kthvalue(m.ones(2, 3), 4, 1))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cumulative_extremes(name, devices):
    _both(lambda m, x: getattr(m, name)(x, 1), TIES, device=devices)
    _both(lambda m, x: getattr(m, name)(x, 0), X, device=devices, grad=True)
    _both(lambda m, x: getattr(m, name)(x, 0), [1.0, 3.0, np.nan, 2.0, 5.0], device=devices)
    _both(lambda m, x: getattr(m, name)(x, 1), TIES, dtypes=["int64"], device=devices)


def test_logcumsumexp(devices):
    _both(lambda m, x: m.logcumsumexp(x, 1), X * 300, device=devices, grad=True)
    _both(lambda m, x: m.logcumsumexp(x, 0), [1.0, -np.inf, 2.0], device=devices)
    _errors_match(lambda m: m.logcumsumexp(m.tensor([1, 2]), 0))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantiles(interpolation, devices):
    for q in (0.3, [0.0, 0.25, 0.5, 1.0]):
        for dim, keepdim in ((None, False), (1, False), (0, True), (None, True)):
            def fn(m, x, q=q, dim=dim, keepdim=keepdim):
                qq = q if isinstance(q, float) else m.tensor(q, dtype=x.dtype, device=x.device)
                return m.quantile(x, qq, dim, keepdim, interpolation=interpolation)
            _both(fn, X, device=devices, grad=interpolation == "linear")
    _both(lambda m, x: m.quantile(x, 0.5, 1), NANS, device=devices)
    _both(lambda m, x: m.nanquantile(x, 0.4, 1, interpolation=interpolation), NANS, device=devices)
    _both(lambda m, x: x.nanquantile(0.4), NANS, device=devices)


def test_quantile_errors():
    _errors_match(lambda m: m.quantile(m.tensor([1, 2]), 0.5))
    _errors_match(lambda m: m.quantile(m.tensor([1.0, 2.0]), 1.5))
    _errors_match(lambda m: m.quantile(m.tensor([1.0, 2.0]), 0.5, interpolation="foo"))


def test_masked_select_and_take_along_dim(devices):
    mask = np.array([True, False, True, True, False])
    _both(lambda m, x: m.masked_select(x, m.tensor(mask.tolist(), device=x.device)), X, device=devices, grad=True)
    idx = np.argsort(X, axis=1)
    _both(lambda m, x: m.take_along_dim(x, m.tensor(idx.tolist(), device=x.device), 1), X, device=devices,
          grad=True)
    _both(lambda m, x: m.take_along_dim(x, m.tensor([[0], [4], [2]], device=x.device), 1), X, device=devices)
    _both(lambda m, x: m.take_along_dim(x, m.tensor([3, 0, 14], device=x.device)), X, device=devices)
    _errors_match(lambda m: m.masked_select(m.ones(2), m.tensor([1, 0])))


def test_unique_family(devices):
    v = [3, 1, 2, 1, 3, 3]
    for kw in ({}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "return_counts": True}):
        _both(lambda m, x, kw=kw: m.unique(x, **kw), v, dtypes=["int64"], device=devices)
        _both(lambda m, x, kw=kw: x.unique(**kw), [2.5, 1.0, 2.5], device=devices)
        _both(lambda m, x, kw=kw: m.unique_consecutive(x, **kw), [1, 1, 2, 2, 3, 1, 1], dtypes=["int64"],
              device=devices)
    rows = [[1, 2], [1, 2], [0, 5]]
    _both(lambda m, x: m.unique(x, dim=0, return_inverse=True, return_counts=True), rows, dtypes=["int64"],
          device=devices)
    _both(lambda m, x: m.unique(x, dim=1, return_inverse=True), [[1, 1], [1, 1], [2, 3]], dtypes=["int64"],
          device=devices)
    _both(lambda m, x: m.unique_consecutive(x, dim=0, return_counts=True), [[1, 1], [1, 1], [2, 3]],
          dtypes=["int64"], device=devices)
    _both(lambda m, x: m.unique(x), [np.nan, 1.0, np.nan], device=devices)


def test_searchsorted_bucketize(devices):
    seq = [1.0, 3.0, 5.0, 7.0]
    vals = [[3.0, 6.0], [0.0, 9.0]]
    for kw in ({}, {"right": True}, {"side": "right"}, {"out_int32": True}):
        _both(lambda m, s, v, kw=kw: m.searchsorted(s, v, **kw), seq, vals, device=devices)
        _both(lambda m, v, s, kw=kw: m.bucketize(v, s, **{k: a for k, a in kw.items() if k != "side"}), vals, seq,
              device=devices)
    _both(lambda m, s, v: m.searchsorted(s, v), [[1, 3, 5], [2, 4, 6]], [[3, 6], [1, 2]], dtypes=["int64"] * 2,
          device=devices)
    _both(lambda m, s: m.searchsorted(s, 4), seq, device=devices)
    _both(lambda m, s, v: m.searchsorted(s, v, sorter=m.tensor([1, 2, 0], device=s.device)), [5, 1, 3], [3, 6],
          dtypes=["int64"] * 2, device=devices)
    _errors_match(lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([3]), side="left", right=True))
    _errors_match(lambda m: m.bucketize(m.tensor([3]), m.tensor([[1, 3]])))
    _errors_match(lambda m: m.searchsorted(m.tensor([[1, 3, 5]]), m.tensor([[3, 6], [1, 2]])))


def test_bincount_histc(devices):
    _both(lambda m, x: m.bincount(x), [1, 1, 3, 0], dtypes=["int64"], device=devices)
    _both(lambda m, x: m.bincount(x, minlength=7), [1, 1, 3], dtypes=["int64"], device=devices)
    _both(lambda m, x, w: m.bincount(x, w), [1, 1, 3], [0.5, 0.25, 2.0], dtypes=["int64", "float32"],
          device=devices)
    _both(lambda m, x, w: m.bincount(x, w), [1, 1, 3], [1, 2, 3], dtypes=["int64", "int64"], device=devices)
    _both(lambda m, x: m.histc(x, bins=4, min=0, max=3), [1.0, 2.0, 1.0, 4.0, 3.0], dtypes=["float32"],
          device=devices)
    _both(lambda m, x: m.histc(x, bins=5), X, device=devices)
    for case in (lambda m: m.bincount(m.tensor([-1, 2])), lambda m: m.bincount(m.tensor([1.0])),
                 lambda m: m.histc(m.tensor([1, 2])), lambda m: m.histc(m.tensor([1.0]), 3, 2, 1)):
        _errors_match(case)


def test_grids_and_arrangements(devices):
    for indexing in ("ij", "xy"):
        _both(lambda m, a, b, c, indexing=indexing: m.meshgrid(a, b, c, indexing=indexing), [1.0, 2.0], [3.0, 4.0, 5.0], [6.0],
              device=devices)
    with pytest.warns(UserWarning, match="indexing argument"):
        openreg.meshgrid(openreg.ones(2), openreg.ones(3))
    _both(lambda m, a, b: m.cartesian_prod(a, b), [1, 2], [3, 4, 5], dtypes=["int64"] * 2, device=devices)
    for r, rep in ((2, False), (2, True), (3, False), (0, False), (4, False)):
        _both(lambda m, x, r=r, rep=rep: m.combinations(x, r, rep), [1.0, 2.0, 3.0], device=devices)
    _both(lambda m, x: m.combinations(x, 2), [1.0, 2.0, 3.0], device=devices, grad=True)
    x3 = RNG.uniform(size=(2, 3, 4))
    for k in (-1, 0, 1, 2, 3, 5):
        _both(lambda m, x, k=k: m.rot90(x, k, [0, 2]), x3, device=devices, grad=True)
    _both(lambda m, x: (m.fliplr(x), m.flipud(x), m.ravel(x)), x3, device=devices)
    _both(lambda m, x: (x.flip(dims=(1,)), x.flip(dims=[0, 2]), x.flip(2), x.flip(0, 1), x.flip([1, 2])), x3,
          device=devices, grad=True)
    assert openreg.numel(openreg.ones(2, 3)) == 6
    assert openreg.equal(openreg.tensor([1, 2]), openreg.tensor([1.0, 2.0])) is True
    assert openreg.equal(openreg.tensor([1.0]), openreg.tensor([1.0, 1.0])) is False
    assert openreg.equal(openreg.tensor([openreg.nan]), openreg.tensor([openreg.nan])) is False
    assert openreg.is_nonzero(openreg.tensor([0.5])) and not openreg.is_nonzero(openreg.tensor(0))
    for case in (lambda m: m.rot90(m.ones(2), 1), lambda m: m.rot90(m.ones(2, 3), 1, [0, 0]),
                 lambda m: m.fliplr(m.ones(2)), lambda m: m.flipud(m.tensor(1.0)),
                 lambda m: m.meshgrid(m.ones(2), m.ones(3, dtype=m.long), indexing="ij"),
                 lambda m: m.combinations(m.ones(1, 3)), lambda m: m.is_nonzero(m.ones(2)),
                 lambda m: m.is_nonzero(m.ones(0))):
        _errors_match(case)


def test_logspace(devices):
    for args, kw in (((0, 2, 3), {}), ((0, 3, 4), {"base": 2}), ((0, 2, 3), {"dtype": "int64"}),
                     ((-1, 1, 5), {"dtype": "float64"}), ((1, 1, 1), {})):
        def fn(m, args=args, kw=kw):
            k = dict(kw)
            if "dtype" in k:
                k["dtype"] = getattr(m, k["dtype"])
            return m.logspace(*args, **k)
        _same(fn(openreg), fn(torch), 1e-6)
    assert openreg.logspace(0, 1, 2, device=devices).device.type == openreg.device(devices).type


def test_matrix_products(devices):
    m23, m34 = RNG.uniform(-1, 1, (2, 3)), RNG.uniform(-1, 1, (3, 4))
    v2, v3, v4 = RNG.uniform(-1, 1, 2), RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 4)
    b = RNG.uniform(-1, 1, (5, 2, 3)), RNG.uniform(-1, 1, (5, 3, 4))
    _both(lambda m, a, v: m.mv(a, v), m23, v3, device=devices, grad=True)
    _both(lambda m, s, a, v: m.addmv(s, a, v, beta=0.5, alpha=2), v2, m23, v3, device=devices, grad=True)
    _both(lambda m, s, a, v: m.addmv(s, a, v, beta=0), [np.nan, 1.0], m23, v3, device=devices)
    _both(lambda m, s, a, c: m.addr(s, a, c, alpha=3), m23, v2, v3, device=devices, grad=True)
    _both(lambda m, s, a, c: m.addbmm(s, a, c, beta=2), RNG.uniform(size=(2, 4)), *b, device=devices, grad=True)
    _both(lambda m, a, c: (m.inner(a, c), m.kron(a, c)), m23, RNG.uniform(size=(4, 3)), device=devices, grad=True)
    _both(lambda m, a, c: m.kron(a, c), m23, v4, device=devices)
    for dims in (1, ([1], [0]), ([0, 1], [1, 0])):
        rhs = m34 if dims != ([0, 1], [1, 0]) else m23.T
        _both(lambda m, a, c, dims=dims: m.tensordot(a, c, dims=dims), m23, rhs, device=devices, grad=True)
    a3, c3 = RNG.uniform(size=(4, 3)), RNG.uniform(size=(4, 3))
    _both(lambda m, a, c: (m.cross(a, c, dim=1), m.linalg.cross(a, c)), a3, c3, device=devices, grad=True)
    _both(lambda m, a, c: m.dist(a, c, 3), m23, v3, device=devices, grad=True)
    _both(lambda m, a, c: m.cdist(a, c), RNG.uniform(size=(5, 3)), RNG.uniform(size=(4, 3)), device=devices,
          grad=True)
    _both(lambda m, a, c: m.cdist(a, c, p=1), RNG.uniform(size=(2, 5, 3)), RNG.uniform(size=(2, 4, 3)),
          device=devices, grad=True)
    _both(lambda m, a: (m.trace(a), m.diag(a), m.diag(a, 1), m.diagflat(a, -1)), m34, device=devices)
    _both(lambda m, a: m.trace(a), [[1, 2], [3, 4]], dtypes=["int32"], device=devices)
    _both(lambda m, v: (m.diag(v), m.diag(v, -2), m.diag_embed(v), m.diag_embed(v, 1, 0, 2)), m23, device=devices)
    _both(lambda m, v: m.diag_embed(v, -1), m23, device=devices, grad=True)
    _both(lambda m, a, c: m.block_diag(a, c, m.tensor(5.0, dtype=a.dtype, device=a.device)), m23, v3,
          device=devices, grad=True)
    _both(lambda m, a, c: m.block_diag(a, c), [[1, 2]], [3.0], dtypes=["int64", "float32"], device=devices)


def test_matrix_product_errors():
    for case in (lambda m: m.mv(m.ones(2, 3), m.ones(2)), lambda m: m.mv(m.ones(2), m.ones(2)),
                 lambda m: m.addr(m.ones(2, 3), m.ones(2), m.ones(3, 2)),
                 lambda m: m.inner(m.ones(2, 3), m.ones(4, 2)),
                 lambda m: m.tensordot(m.ones(2, 3), m.ones(4, 4), dims=1),
                 lambda m: m.cross(m.ones(2, 4), m.ones(2, 4)),
                 lambda m: m.linalg.cross(m.ones(2, 4), m.ones(2, 4)),
                 lambda m: m.cdist(m.ones(2, 3), m.ones(4, 2)), lambda m: m.cdist(m.ones(2, 3), m.ones(4, 3), p=-1),
                 lambda m: m.trace(m.ones(2, 3, 4)), lambda m: m.diag(m.ones(2, 3, 4)),
                 lambda m: m.block_diag(m.ones(2, 3, 4))):
        _errors_match(case)
    with pytest.warns(UserWarning, match="without specifying the dim"):
        openreg.cross(openreg.ones(2, 3), openreg.ones(2, 3))
