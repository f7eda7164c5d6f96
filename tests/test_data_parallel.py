"""nn.DataParallel over several devices: the batch split with tensor.chunk, the module replicated on each device
(gradients of every replica add up in the module's parameters), outputs gathered on output_device."""
import collections
import warnings

import numpy as np
import pytest

import openreg
from openreg import nn
from openreg.nn.parallel import gather, parallel_apply, replicate, scatter

DEV = openreg.privateuseone
two_devices = pytest.mark.skipif(not DEV.is_available() or DEV.device_count() < 2,
                                 reason="needs two devices (OPENREG_EMULATED_DEVICES >= 2)")


def N(t):
    return t.detach().cpu().numpy()


def _model():
    openreg.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).double()


@two_devices
@pytest.mark.parametrize("batch", [6, 5, 1])
def test_outputs_and_gradients_equal_one_device(batch):
    x = openreg.randn(batch, 4, dtype=openreg.float64)
    ref = _model().to("privateuseone:0")
    ref_out = ref(x.to("privateuseone:0"))
    ref_out.square().sum().backward()
    model = _model().to("privateuseone:0")
    dp = nn.DataParallel(model)
    assert dp.device_ids == [0, 1] and dp.output_device == 0
    out = dp(x)
    assert out.device == openreg.device("privateuseone", 0) and out.shape == (batch, 3)
    np.testing.assert_allclose(N(out), N(ref_out), rtol=1e-12, atol=1e-12)
    out.square().sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert p.grad.device == p.device
        np.testing.assert_allclose(N(p.grad), N(q.grad), rtol=1e-10, atol=1e-12)


@two_devices
def test_each_device_gets_its_chunk_and_kwargs_are_split():
    seen = []

    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(openreg.ones(1))

        def forward(self, x, shift=None, tag="t"):
            seen.append((x.device.index, x.shape[0], None if shift is None else shift.device.index, tag,
                         DEV.current_device(), self.scale.device.index))
            return {"y": x * self.scale + (0 if shift is None else shift), "n": openreg.tensor(float(x.shape[0]),
                                                                                               device=x.device)}
    probe = Probe().to("privateuseone:0")
    x = openreg.arange(10.0).reshape(5, 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = nn.DataParallel(probe, output_device=1)(x, shift=openreg.ones(5, 1), tag="a")
    assert seen == [(0, 3, 0, "a", 0, 0), (1, 2, 1, "a", 1, 1)]
    assert out["y"].device == openreg.device("privateuseone", 1)
    np.testing.assert_array_equal(N(out["y"]), N(x) + 1)
    assert out["n"].tolist() == [3.0, 2.0]      # 0-d outputs become a vector, with PyTorch's warning
    assert any("all input tensors were scalars" in str(m.message) for m in w)


@two_devices
def test_buffers_of_the_first_device_are_the_modules_and_replicas_leave_them():
    bn = nn.BatchNorm1d(2).to("privateuseone:0")
    x = openreg.tensor([[1.0, 2.0], [3.0, 6.0], [100.0, 200.0], [300.0, 600.0]])
    nn.DataParallel(bn)(x)
    expected = 0.9 * 0 + 0.1 * np.array([2.0, 4.0])    # the first chunk's mean only
    np.testing.assert_allclose(N(bn.running_mean), expected, rtol=1e-6)
    assert bn.num_batches_tracked.item() == 1


@two_devices
def test_module_must_be_on_the_first_device():
    dp = nn.DataParallel(nn.Linear(2, 2))     # several devices: the module is not moved, as in PyTorch
    with pytest.raises(RuntimeError, match="module must have its parameters and buffers on device"):
        dp(openreg.ones(2, 2))


@two_devices
def test_input_gradient_flows_back_through_scatter():
    lin = nn.Linear(3, 1).to("privateuseone:0")
    x = openreg.randn(4, 3, requires_grad=True)
    nn.DataParallel(lin)(x).sum().backward()
    np.testing.assert_allclose(N(x.grad), np.tile(N(lin.weight), (4, 1)), rtol=1e-6)


def test_scatter_gather_on_the_cpu():
    Pair = collections.namedtuple("Pair", "a b")
    parts = scatter((openreg.arange(5.0), [openreg.zeros(5, 1)], Pair(openreg.ones(5), 7), "s"), ["cpu"] * 2)
    assert len(parts) == 2
    assert parts[0][0].tolist() == [0.0, 1.0, 2.0] and parts[1][0].tolist() == [3.0, 4.0]
    assert parts[1][1][0].shape == (2, 1) and parts[1][2].b == 7 and parts[1][3] == "s"
    joined = gather([Pair(openreg.ones(2), None), Pair(openreg.zeros(1), None)], -1)
    assert isinstance(joined, Pair) and joined.a.tolist() == [1.0, 1.0, 0.0] and joined.b is None
    with pytest.raises(ValueError, match="same number of keys"):
        gather([{"a": openreg.ones(1)}, {"a": openreg.ones(1), "b": openreg.ones(1)}], "cpu")


def test_replicas_share_submodules_and_send_gradients_home():
    shared = nn.Linear(2, 2)
    net = nn.Sequential(shared, nn.ReLU(), shared)
    copy = replicate(net, ["cpu"])[0]
    assert copy is not net and copy[0] is copy[2] and list(copy.parameters()) == []
    x = openreg.ones(1, 2)
    outs = parallel_apply([net, copy], [(x,), (x,)])
    np.testing.assert_array_equal(N(outs[0]), N(outs[1]))
    (outs[0].sum() + outs[1].sum()).backward()
    from_both = N(shared.weight.grad).copy()
    shared.weight.grad = shared.bias.grad = None
    (2 * net(x).sum()).backward()
    np.testing.assert_allclose(from_both, N(shared.weight.grad), rtol=1e-6)
