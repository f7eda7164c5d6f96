"""``nn.utils.parametrizations.orthogonal``: weights with orthonormal columns/rows through the matrix
exponential, Cayley and Householder maps, with and without the trivialization base; trained by SGD as PyTorch's."""
import numpy as np
import pytest

import openreg

CASES = [((4, 4), None, True), ((5, 3), None, True), ((3, 5), None, True), ((4, 4), "cayley", True),
         ((5, 3), "householder", False), ((3, 5), "householder", False), ((4, 4), "householder", True),
         ((4, 4), "householder", False)]


def _run(lib, shape, orthogonal_map, trivial):
    lin = lib.nn.Linear(shape[1], shape[0], bias=False)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32)))
    lib.nn.utils.parametrizations.orthogonal(lin, orthogonal_map=orthogonal_map, use_trivialization=trivial)
    weights = [np.array(lin.weight.tolist())]
    opt = lib.optim.SGD(lin.parameters(), lr=0.1)
    x = lib.tensor(np.arange(shape[1] * 2, dtype=np.float32).reshape(2, shape[1]) / 10)
    losses = []
    for _ in range(3):
        loss = (lin(x) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    weights.append(np.array(lin.weight.tolist()))
    return sorted(lin.state_dict()), weights, losses


@pytest.mark.parametrize("shape,orthogonal_map,trivial", CASES)
def test_weights_stay_orthonormal(shape, orthogonal_map, trivial):
    keys, weights, _ = _run(openreg, shape, orthogonal_map, trivial)
    assert ("parametrizations.weight.0.base" in keys) == trivial
    for w in weights:
        gram = w @ w.T if shape[0] <= shape[1] else w.T @ w
        np.testing.assert_allclose(gram, np.eye(min(shape)), atol=2e-6)


@pytest.mark.parametrize("shape,orthogonal_map,trivial", [c for c in CASES if not c[2] or c[0][0] == c[0][1]])
def test_training_follows_torch(shape, orthogonal_map, trivial):
    torch = pytest.importorskip("torch")      # (a trivialized non-square weight is completed with random columns)
    ours, theirs = _run(openreg, shape, orthogonal_map, trivial), _run(torch, shape, orthogonal_map, trivial)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, atol=2e-6)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=2e-6)


def test_errors():
    orthogonal = openreg.nn.utils.parametrizations.orthogonal
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        orthogonal(openreg.nn.Linear(3, 3), orthogonal_map="x")
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions"):
        orthogonal(openreg.nn.BatchNorm1d(3))
    m = orthogonal(openreg.nn.Linear(3, 3), orthogonal_map="cayley", use_trivialization=False)
    with pytest.raises(NotImplementedError, match="not possible to assign to the matrix exponential"), openreg.no_grad():
        m.weight = openreg.eye(3)
    m = orthogonal(openreg.nn.Linear(3, 3), orthogonal_map="householder", use_trivialization=False)
    with openreg.no_grad():
        m.weight = openreg.eye(3)[[1, 0, 2]]
    np.testing.assert_allclose(np.array(m.weight.tolist()), np.eye(3)[[1, 0, 2]], atol=1e-7)
