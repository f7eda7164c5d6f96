"""optim.SparseAdam against torch.optim.SparseAdam: parameters and moments after steps with sparse COO gradients
(repeated indices, 1 and 2 sparse dimensions, maximize) on the CPU, and its errors."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")


@pytest.mark.parametrize("maximize", [False, True])
def test_steps_match_torch(maximize):
    rng = np.random.default_rng(int(maximize))
    init = rng.uniform(-1, 1, (6, 3))
    tp = torch.nn.Parameter(torch.tensor(init))
    op = openreg.nn.Parameter(openreg.tensor(init.tolist(), dtype=openreg.float64))
    topt = torch.optim.SparseAdam([tp], lr=0.05, maximize=maximize)
    oopt = openreg.optim.SparseAdam([op], lr=0.05, maximize=maximize)
    for idx in ([1, 3, 1], [0, 5], [3, 3, 2, 4]):
        vals = rng.uniform(-1, 1, (len(idx), 3))
        tp.grad = torch.sparse_coo_tensor(torch.tensor([idx]), torch.tensor(vals), (6, 3))
        op.grad = openreg.sparse_coo_tensor(openreg.tensor([idx]), openreg.tensor(vals.tolist(),
                                                                                 dtype=openreg.float64), (6, 3))
        topt.step()
        oopt.step()
    np.testing.assert_allclose(np.array(op.tolist()), tp.detach().numpy(), rtol=1e-12, atol=1e-14)
    for k in ("exp_avg", "exp_avg_sq"):
        np.testing.assert_allclose(np.array(oopt.state[op][k].tolist()), topt.state[tp][k].numpy(), rtol=1e-12,
                                   atol=1e-15)
    assert oopt.state[op]["step"] == topt.state[tp]["step"] == 3


def test_two_sparse_dims_match_torch():
    init = np.arange(12.0).reshape(3, 4)
    tp, op = torch.nn.Parameter(torch.tensor(init)), openreg.nn.Parameter(openreg.tensor(init.tolist(),
                                                                                        dtype=openreg.float64))
    idx, vals = [[0, 2, 0], [1, 3, 1]], [1.0, -2.0, 0.5]
    tp.grad = torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(vals, dtype=torch.float64), (3, 4))
    op.grad = openreg.sparse_coo_tensor(openreg.tensor(idx), openreg.tensor(vals, dtype=openreg.float64), (3, 4))
    torch.optim.SparseAdam([tp]).step()
    openreg.optim.SparseAdam([op]).step()
    np.testing.assert_allclose(np.array(op.tolist()), tp.detach().numpy(), rtol=1e-12)


def test_errors_match_torch():
    for kw in [{"lr": 0.0}, {"eps": 0.0}, {"betas": (1.0, 0.9)}, {"betas": (0.9, -0.1)}]:
        with pytest.raises(ValueError) as theirs:
            torch.optim.SparseAdam([torch.nn.Parameter(torch.ones(1))], **kw)
        with pytest.raises(ValueError) as ours:
            openreg.optim.SparseAdam([openreg.nn.Parameter(openreg.ones(1))], **kw)
        assert str(ours.value) == str(theirs.value)
    p = openreg.nn.Parameter(openreg.ones(2))
    p.grad = openreg.ones(2)
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
        openreg.optim.SparseAdam([p]).step()
    with pytest.raises(ValueError, match="SparseAdam does not support complex parameters"):
        openreg.optim.SparseAdam([openreg.nn.Parameter(openreg.ones(2, dtype=openreg.complex64))])
