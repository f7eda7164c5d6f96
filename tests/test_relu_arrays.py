"""``F.relu`` of a row-major host tensor computes on the array and records ``ReluBackward0`` itself
(nn/_relu_arrays.py) when the dispatched ``aten::relu`` would do nothing else: result, graph and gradients must
be the dispatched call's, bit for bit; other cases take the dispatcher."""
import numpy as np
import pytest

import openreg
import openreg.nn.functional as F
from openreg.nn._relu_arrays import relu_host
from openreg.utils.dispatch_mode import DispatchMode


def N(t):
    return t.detach().numpy()


def _values(shape, dtype):
    openreg.manual_seed(0)
    x = openreg.randn(*shape, dtype=dtype)
    flat = x.view(-1)
    flat[0], flat[-1] = float("nan"), -0.0     # NaN stays NaN, -0.0 stays -0.0 (max(0, x) in that order)
    return x


@pytest.mark.parametrize("dtype", [openreg.float32, openreg.float64])
@pytest.mark.parametrize("shape", [(3, 4), (64, 256), (300, 300), (7,)])    # one constant chunk, several
@pytest.mark.parametrize("grad", [True, False])
def test_relu_on_the_array_has_the_dispatched_bits_graph_and_gradients(dtype, shape, grad):
    results = []
    for fn in (relu_host, lambda t: t.relu()):
        x = _values(shape, dtype).requires_grad_(grad)
        y = fn(x)
        assert y is not None
        if grad:
            assert y.grad_fn.name() == "ReluBackward0"
            assert [f.variable is x for f, _ in y.grad_fn.next_functions] == [True]
            (y * y).sum().backward()
        else:
            assert y.grad_fn is None and not y.requires_grad
        results.append((N(y).tobytes(), None if x.grad is None else N(x.grad).tobytes()))
    assert results[0] == results[1]


def test_saved_result_keeps_its_version_and_module_uses_it():
    x = openreg.randn(4, 5, requires_grad=True)
    y = F.relu(x * 1)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    m = openreg.nn.ReLU()
    z = m(x * 1)
    assert z.grad_fn.name() == "ReluBackward0"
    z.sum().backward()
    np.testing.assert_array_equal(N(x.grad), (N(x) > 0).astype(np.float32))


def test_other_cases_take_the_dispatcher():
    x = openreg.randn(4, 6)
    assert relu_host(x.t()) is None                    # the result would take the input's layout
    assert relu_host(x.half()) is None
    assert relu_host(openreg.tensor(2.0)) is None
    assert relu_host(openreg.tensor([1, -2])) is None
    with openreg.no_grad():
        assert relu_host(x) is not None
    with openreg.autocast("cpu"):
        assert relu_host(x) is None
    seen = []

    class Log(DispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        assert relu_host(x) is None
        F.relu(x)
    assert any("relu" in s for s in seen)
    import openreg.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, openreg.ones(4, 6))
        assert relu_host(dual) is None
        tangent = fwAD.unpack_dual(F.relu(dual)).tangent
    np.testing.assert_array_equal(N(tangent), (N(x) > 0).astype(np.float32))
    np.testing.assert_array_equal(N(F.relu(x.t())), np.maximum(N(x).T, 0))
    assert F.relu(x.t()).stride() == x.t().relu().stride()
