"""optim.Adafactor against torch.optim.Adafactor: parameters after several steps (vectors, matrices and a batch
of matrices; weight decay, maximize, eps, d) on the CPU and the device, the state layout and the errors."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

SHAPES = [(5,), (4, 3), (2, 3, 4)]
OPTIONS = [{}, {"weight_decay": 0.1, "lr": 0.05}, {"maximize": True, "eps": (1e-30, 1e-3), "d": 2.0},
           {"beta2_decay": -0.5}]


@pytest.mark.parametrize("opts", range(len(OPTIONS)))
def test_steps_match_torch(opts, devices):
    rng = np.random.default_rng(opts)
    inits = [rng.uniform(-1, 1, s) for s in SHAPES]
    grads = [[rng.uniform(-1, 1, s) for s in SHAPES] for _ in range(4)]
    tp = [torch.nn.Parameter(torch.tensor(a)) for a in inits]
    op = [openreg.nn.Parameter(openreg.tensor(a.tolist(), dtype=openreg.float64, device=devices)) for a in inits]
    topt, oopt = torch.optim.Adafactor(tp, **OPTIONS[opts]), openreg.optim.Adafactor(op, **OPTIONS[opts])
    for step in grads:
        for t, o, g in zip(tp, op, step):
            t.grad = torch.tensor(g)
            o.grad = openreg.tensor(g.tolist(), dtype=openreg.float64, device=devices)
        topt.step()
        oopt.step()
    for t, o in zip(tp, op):
        np.testing.assert_allclose(np.array(o.tolist()), t.detach().numpy(), rtol=1e-12, atol=1e-14)
    for t, o in zip(tp, op):
        assert sorted(topt.state[t]) == sorted(oopt.state[o])
        for k in topt.state[t]:
            assert tuple(topt.state[t][k].shape) == tuple(oopt.state[o][k].shape)


def test_errors_match_torch():
    for kw in [{"lr": -1.0}, {"beta2_decay": 0.5}, {"eps": (-1.0, 1e-3)}, {"eps": (None, -1.0)}, {"d": 0.5},
               {"weight_decay": -1.0}]:
        with pytest.raises(ValueError) as theirs:
            torch.optim.Adafactor([torch.nn.Parameter(torch.ones(1))], **kw)
        with pytest.raises(ValueError) as ours:
            openreg.optim.Adafactor([openreg.nn.Parameter(openreg.ones(1))], **kw)
        assert str(ours.value) == str(theirs.value)
