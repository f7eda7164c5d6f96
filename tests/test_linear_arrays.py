"""``F.linear`` of a 2-d input with a bias computes on the arrays and records ``AddmmBackward0`` itself
(nn/_linear_arrays.py) when the dispatched ``addmm(bias, input, weight.t())`` would do nothing else: its result,
graph and gradients must be the dispatched call's, bit for bit, and every other case must take the dispatcher."""
import numpy as np
import pytest

import openreg
import openreg.nn.functional as F
from openreg._dispatch.ops import A
from openreg.nn._linear_arrays import linear_2d
from openreg.utils.dispatch_mode import DispatchMode


def N(t):
    return t.detach().numpy()


def _structure(fn):
    """Names of ``fn``'s graph, depth first, with each node's edge input numbers."""
    if fn is None:
        return None
    return (fn.name(), [(_structure(f), nr) for f, nr in fn.next_functions])


def _run(linear, dtype, rows, k, n, needs):
    openreg.manual_seed(0)
    x = openreg.randn(rows, k, dtype=dtype, requires_grad="x" in needs)
    w = openreg.randn(n, k, dtype=dtype, requires_grad="w" in needs)
    b = openreg.randn(n, dtype=dtype, requires_grad="b" in needs)
    y = linear(x, w, b)
    out = N(y).copy()
    graph = _structure(y.grad_fn)
    if needs:
        (y * y).sum().backward()
    return out, graph, [None if t.grad is None else N(t.grad).copy() for t in (x, w, b)]


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
@pytest.mark.parametrize("rows,k,n", [(3, 4, 5), (64, 256, 256), (8, 1, 1)])   # 64x256x256: _matmul's by-rows form
@pytest.mark.parametrize("needs", ["xwb", "wb", "x", "w", ""])
def test_linear_on_arrays_has_the_dispatched_bits_graph_and_gradients(dtype, rows, k, n, needs):
    taken = []

    def fast(x, w, b):
        y = linear_2d(x, w, b)
        taken.append(y is not None)
        return y

    got = _run(fast, dtype, rows, k, n, needs)
    want = _run(lambda x, w, b: A.addmm(b, x, w.t()), dtype, rows, k, n, needs)
    assert taken == [True]
    assert got[0].dtype == want[0].dtype and got[0].tobytes() == want[0].tobytes()
    assert got[1] == want[1]
    for g, h in zip(got[2], want[2]):
        assert (g is None) == (h is None) and (g is None or g.tobytes() == h.tobytes())


def test_linear_layer_graph_is_pytorchs_decomposition():
    lin = openreg.nn.Linear(4, 3)
    x = openreg.randn(2, 4, requires_grad=True)
    y = lin(x)
    fn = y.grad_fn
    assert fn.name() == "AddmmBackward0"
    names = [None if f is None else f.name() for f, _ in fn.next_functions]
    assert names == ["torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad", "TBackward0"]
    t_node = fn.next_functions[2][0]
    assert t_node.next_functions[0][0].variable is lin.weight
    assert fn._sequence_nr > t_node._sequence_nr
    # the saved input keeps its version: changing it in place before backward raises PyTorch's error
    with openreg.no_grad():
        x2 = openreg.randn(2, 4)
    h = x2.clone().requires_grad_()
    z = h * 1
    out = lin(z)
    z.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_double_backward_through_the_recorded_node():
    w = openreg.randn(3, 4, dtype=openreg.float64, requires_grad=True)
    b = openreg.randn(3, dtype=openreg.float64, requires_grad=True)
    x = openreg.randn(2, 4, dtype=openreg.float64, requires_grad=True)
    assert openreg.autograd.gradcheck(lambda x, w, b: F.linear(x, w, b), (x, w, b))
    assert openreg.autograd.gradgradcheck(lambda x, w, b: F.linear(x, w, b), (x, w, b))


def test_views_and_no_grad_and_plain_tensors():
    w = openreg.randn(5, 6, requires_grad=True)
    b = openreg.randn(5, requires_grad=True)
    base = openreg.randn(6, 4, requires_grad=True)
    x = base.t()                                   # a view of a tensor requiring grad
    y = linear_2d(x, w, b)
    y.sum().backward()
    np.testing.assert_allclose(N(base.grad), N(w).sum(0)[:, None].repeat(4, 1), rtol=1e-6)
    with openreg.no_grad():
        z = linear_2d(x, w, b)
    assert z is not None and z.grad_fn is None and not z.requires_grad
    plain = linear_2d(openreg.ones(2, 6), w.detach(), b.detach())
    assert plain.grad_fn is None and not plain.requires_grad


class _Sub(openreg.Tensor):
    pass


def test_other_cases_take_the_dispatcher():
    w, b, x = openreg.randn(3, 4), openreg.randn(3), openreg.randn(2, 4)
    assert linear_2d(x.half(), w.half(), b.half()) is None
    assert linear_2d(x.double(), w, b) is None
    assert linear_2d(x, w, openreg.randn(1)) is None          # broadcast bias: the dispatcher's rule
    assert linear_2d(openreg.randn(2, 5), w, b) is None
    with pytest.raises(RuntimeError):
        F.linear(openreg.randn(2, 5), w, b)                    # PyTorch's shape error from addmm
    with openreg.autocast("cpu"):
        assert linear_2d(x, w, b) is None
        assert F.linear(x, w, b).dtype == openreg.bfloat16
    seen = []

    class Log(DispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        assert linear_2d(x, w, b) is None
        F.linear(x, w, b)
    assert any("addmm" in s for s in seen)
    import openreg.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, openreg.ones(2, 4))
        assert linear_2d(dual, w, b) is None
        tangent = fwAD.unpack_dual(F.linear(dual, w, b)).tangent
    np.testing.assert_allclose(N(tangent), np.ones((2, 4), np.float32) @ N(w).T, rtol=1e-6)
    if hasattr(openreg.Tensor, "as_subclass"):
        assert linear_2d(x.as_subclass(_Sub), w, b) is None


def test_inference_tensors_behave_as_the_dispatched_call():
    with openreg.inference_mode():
        x = openreg.randn(2, 4)
    w = openreg.randn(3, 4, requires_grad=True)
    b = openreg.randn(3)
    assert linear_2d(x, w, b) is None
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        F.linear(x, w, b)       # as PyTorch: addmm saves mat1 for the weight's gradient
    assert not F.linear(x, w.detach(), b).requires_grad
