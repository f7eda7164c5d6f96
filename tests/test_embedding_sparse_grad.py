"""``Embedding(sparse=True)``/``EmbeddingBag(sparse=True)`` against torch 2.13: the sparse COO weight gradient
(indices, values, order, nnz, coalesced flag), its accumulation (sparse + sparse in PyTorch's merge order, dense +
sparse), ``zero_grad(set_to_none=False)``, and training with the optimizers that take sparse gradients (SGD with
momentum/Nesterov/dampening/maximize, Adagrad, SparseAdam) in float64, on the CPU and the device."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")


def _same_sparse(o, t):
    assert o.is_sparse and t.is_sparse
    assert tuple(o.shape) == tuple(t.shape) and o._nnz() == t._nnz()
    assert o.is_coalesced() == t.is_coalesced()
    np.testing.assert_array_equal(np.array(o._indices().cpu().tolist(), dtype=np.int64).reshape(
        t._indices().shape), t._indices().numpy())
    np.testing.assert_array_equal(np.array(o._values().cpu().tolist()).reshape(t._values().shape),
                                  t._values().numpy())


def _both(fn):
    return fn(openreg, "cpu"), fn(torch, "cpu")


@pytest.mark.parametrize("padding_idx", [None, 0, -2])
def test_embedding_sparse_grad_matches_torch(devices, padding_idx):
    w = np.random.default_rng(0).standard_normal((5, 3))
    idx = [[1, 1, 3], [0, 1, 3]]
    g = np.arange(18.0).reshape(2, 3, 3)

    def run(lib, dev):
        weight = lib.tensor(w, device=dev, requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor(idx, device=dev), weight, padding_idx=padding_idx, sparse=True)
        out.backward(lib.tensor(g, device=dev))
        return weight.grad

    og, tg = run(openreg, devices), run(torch, "cpu")
    assert og.device.type == openreg.device(devices).type
    _same_sparse(og, tg)
    assert og.grad_fn is None and not og.requires_grad


def test_all_padding_gives_empty_gradient(devices):
    def run(lib, dev):
        weight = lib.ones(4, 2, dtype=lib.float64, device=dev, requires_grad=True)
        lib.nn.functional.embedding(lib.tensor([2, 2], device=dev), weight, padding_idx=2, sparse=True).sum().backward()
        return weight.grad

    og, tg = run(openreg, devices), run(torch, "cpu")
    _same_sparse(og, tg)
    assert tuple(og._indices().shape) == (1, 0)


def test_scale_grad_by_freq_refused_in_backward():
    weight = openreg.ones(4, 2, requires_grad=True)
    out = openreg.nn.functional.embedding(openreg.tensor([1, 1]), weight, scale_grad_by_freq=True, sparse=True)
    with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse gradients"):
        out.sum().backward()


@pytest.mark.parametrize("mode,padding_idx,weighted", [("sum", None, False), ("mean", 1, False),
                                                       ("sum", 1, True), ("mean", None, False)])
def test_embedding_bag_sparse_grad_matches_torch(devices, mode, padding_idx, weighted):
    w = np.random.default_rng(1).standard_normal((6, 2))
    psw = [0.5, 2.0, -1.0, 3.0, 0.25, 1.5]

    def run(lib, dev):
        bag = lib.nn.EmbeddingBag(6, 2, mode=mode, sparse=True, padding_idx=padding_idx, dtype=lib.float64,
                                  device=dev)
        with lib.no_grad():
            bag.weight.copy_(lib.tensor(w))
        kw = {"per_sample_weights": lib.tensor(psw, dtype=lib.float64, device=dev)} if weighted else {}
        out = bag(lib.tensor([1, 2, 1, 4, 0, 5], device=dev), lib.tensor([0, 2, 2], device=dev), **kw)
        (out * lib.tensor([[1.0, 2.0]], dtype=lib.float64, device=dev)).sum().backward()
        return bag.weight.grad

    _same_sparse(run(openreg, devices), run(torch, "cpu"))


def test_sparse_gradients_accumulate_as_torch():
    w = np.random.default_rng(2).standard_normal((6, 2))

    def run(lib, _dev):
        emb = lib.nn.Embedding(6, 2, sparse=True, dtype=lib.float64)
        with lib.no_grad():
            emb.weight.copy_(lib.tensor(w))
        (emb(lib.tensor([2, 4, 0])) * 2).sum().backward()
        emb(lib.tensor([3, 4])).sum().backward()          # sparse + sparse: PyTorch's merge order
        first = emb.weight.grad.clone()
        # one graph using the weight twice: the engine sums two sparse gradients
        emb.weight.grad = None
        (emb(lib.tensor([5, 1])).sum() + emb(lib.tensor([1, 0])).sum() * 3).backward()
        twice = emb.weight.grad
        # a dense gradient meeting a sparse one gives a dense .grad
        emb.weight.grad = None
        (emb(lib.tensor([3])).sum() + (emb.weight * 2).sum()).backward()
        return first, twice, emb.weight.grad

    (of, ot, od), (tf, tt, td) = _both(run)
    _same_sparse(of, tf)
    _same_sparse(ot, tt)
    assert not od.is_sparse and not td.is_sparse
    np.testing.assert_array_equal(np.array(od.tolist()), td.numpy())


def test_sparse_plus_sparse_merge_order():
    def run(lib, _dev):
        a = lib.sparse_coo_tensor([[3, 1, 0]], [1.0, 2.0, 3.0], (5,))
        b = lib.sparse_coo_tensor([[3, 0, 2]], [10.0, 20.0, 30.0], (5,))
        c = lib.sparse_coo_tensor([[3, 1]], [1.0, 2.0], (5,)).coalesce()
        d = lib.sparse_coo_tensor([[4, 1]], [1.0, 5.0], (5,)).coalesce()
        return a + b, a.add(b, alpha=2), c + d, b + lib.sparse_coo_tensor(lib.zeros(1, 0, dtype=lib.int64), [], (5,))

    for o, t in zip(*_both(run)):
        _same_sparse(o, t)


def test_zero_grad_without_set_to_none_and_sparse_refusals():
    def run(lib, _dev):
        emb = lib.nn.Embedding(5, 2, sparse=True)
        opt = lib.optim.SGD(emb.parameters(), lr=0.1)
        emb(lib.tensor([1, 2])).sum().backward()
        opt.zero_grad(set_to_none=False)
        zeroed = emb.weight.grad.clone()
        emb(lib.tensor([3])).sum().backward()
        errors = []
        for make in (lambda: lib.optim.Adam(emb.parameters()), lambda: lib.optim.AdamW(emb.parameters()),
                     lambda: lib.optim.RMSprop(emb.parameters()), lambda: lib.optim.Adadelta(emb.parameters()),
                     lambda: lib.optim.SGD(emb.parameters(), lr=0.1, weight_decay=0.1),
                     lambda: lib.optim.Adagrad(emb.parameters(), weight_decay=0.1)):
            with pytest.raises(RuntimeError) as info:
                make().step()
            errors.append(str(info.value))
        return zeroed, emb.weight.grad, errors

    (oz, og, oe), (tz, tg, te) = _both(run)
    _same_sparse(oz, tz)
    _same_sparse(og, tg)
    assert oe == te


@pytest.mark.parametrize("name,kw", [
    ("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.5}), ("SGD", {"lr": 0.1, "maximize": True}),
    ("Adagrad", {"lr": 0.1}), ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "maximize": True}),
    ("SparseAdam", {"lr": 0.1})])
@pytest.mark.parametrize("bag", [False, True])
def test_training_with_sparse_gradients_matches_torch(devices, name, kw, bag):
    w = np.random.default_rng(3).standard_normal((7, 3))
    batches = [np.random.default_rng(10 + s).integers(0, 7, (4, 3)) for s in range(4)]

    def run(lib, dev):
        if bag:
            m = lib.nn.EmbeddingBag(7, 3, mode="mean", sparse=True, dtype=lib.float64, device=dev)
        else:
            m = lib.nn.Embedding(7, 3, sparse=True, padding_idx=2, dtype=lib.float64, device=dev)
        head = lib.nn.Linear(3, 1, dtype=lib.float64, device=dev)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(w))
            head.weight.copy_(lib.tensor([[0.5, -0.25, 1.0]]))
            head.bias.fill_(0.1)
        opt = getattr(lib.optim, name)(m.parameters(), **kw)
        opt_head = lib.optim.SGD(head.parameters(), lr=0.1)
        losses = []
        for idx in batches:
            x = lib.tensor(idx, device=dev)
            y = m(x.reshape(-1), lib.tensor([0, 3, 5, 9], device=dev)) if bag else m(x).sum(1)
            loss = ((head(y) - 1) ** 2).mean()
            opt.zero_grad()
            opt_head.zero_grad()
            loss.backward()
            opt.step()
            opt_head.step()
            losses.append(loss.item())
        return losses, m.weight.detach().cpu().numpy() if lib is torch else np.array(m.weight.tolist())

    (ol, ow), (tl, tw) = run(openreg, devices), run(torch, "cpu")
    np.testing.assert_allclose(ol, tl, rtol=1e-13)
    np.testing.assert_allclose(ow, tw, rtol=1e-13, atol=1e-15)
