"""``F.nll_loss``/``F.cross_entropy`` of 2-d host inputs call ``nll_loss_forward``'s kernel and record
``NllLossBackward0`` themselves (nn/_nll_arrays.py), and a backward pass without create_graph calls the
``nll_loss_backward`` and ``_log_softmax_backward_data`` kernels without the dispatcher: the bits, the graph and
the gradients must be the dispatched calls' (create_graph=True takes the operators)."""
import numpy as np
import pytest

import openreg
import openreg.nn.functional as F
from openreg._dispatch.ops import A
from openreg.nn._nll_arrays import nll_loss_host
from openreg.utils.dispatch_mode import DispatchMode


def N(t):
    return t.detach().numpy()


def _structure(fn):
    if fn is None:
        return None
    return (fn.name(), [(_structure(f), nr) for f, nr in fn.next_functions])


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [-100, 2])
def test_cross_entropy_on_arrays_has_the_dispatched_bits_graph_and_gradients(dtype, reduction, ignore):
    enum = {"none": 0, "mean": 1, "sum": 2}[reduction]
    results = []
    for create_graph, fast in ((False, True), (True, False)):
        openreg.manual_seed(0)
        x = openreg.randn(64, 10, dtype=dtype, requires_grad=True)
        t = openreg.randint(0, 10, (64,))
        logp = F.log_softmax(x, 1)
        if fast:
            loss = nll_loss_host(logp, t, enum, ignore)
            assert loss is not None
            assert _structure(loss.grad_fn) == _structure(F.cross_entropy(x, t, reduction=reduction,
                                                                          ignore_index=ignore).grad_fn)
        else:
            loss = A.nll_loss_forward(logp, t, None, enum, ignore)[0]
        g = openreg.ones_like(loss) if reduction == "none" else None
        loss.backward(g, create_graph=create_graph)
        results.append((N(loss).tobytes(), N(x.grad).tobytes()))
    assert results[0] == results[1]


def test_saved_tensors_and_outputs_are_the_dispatched_calls():
    x = openreg.randn(4, 3, requires_grad=True)
    t = openreg.tensor([0, 2, 1, 1])
    fast, slow = F.nll_loss(x, t), A.nll_loss_forward(x, t, None, 1, -100)[0]
    for node in (fast.grad_fn, slow.grad_fn):
        assert node.name() == "NllLossBackward0" and fast._output_nr == 0
    a, b = fast.grad_fn.args, slow.grad_fn.args
    assert list(a._values) == list(b._values) and a._meta == b._meta
    assert a.reduction == b.reduction and a.ignore_index == b.ignore_index
    assert N(a.result1).tobytes() == N(b.result1).tobytes()
    assert fast.grad_fn.input_meta == slow.grad_fn.input_meta
    h = x * 1
    loss = F.nll_loss(h, t)
    h.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_other_cases_take_the_dispatcher():
    x, t = openreg.randn(4, 3), openreg.tensor([0, 2, 1, 1])
    assert nll_loss_host(x.half(), t, 1, -100) is None
    assert nll_loss_host(x, t.int(), 1, -100) is None
    assert nll_loss_host(x[0], t[0], 1, -100) is None
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        F.nll_loss(x, openreg.tensor([0, 5, 1, 1]))
    with openreg.autocast("cpu"):
        assert nll_loss_host(x, t, 1, -100) is None
    seen = []

    class Log(DispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        assert nll_loss_host(x, t, 1, -100) is None
        F.cross_entropy(x, t)
    assert any("nll_loss_forward" in s for s in seen)
    w = openreg.rand(3)
    np.testing.assert_allclose(N(F.nll_loss(x, t, weight=w)),
                               -(N(x)[np.arange(4), N(t)] * N(w)[N(t)]).sum() / N(w)[N(t)].sum(), rtol=1e-6)
