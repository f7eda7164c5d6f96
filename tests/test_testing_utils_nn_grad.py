"""openreg.testing.make_tensor, openreg.utils.swap_tensors and openreg.nn.grad against PyTorch's rules."""
import warnings
import weakref

import numpy as np
import pytest
from device_params import DEVICES

import openreg
from openreg.testing import make_tensor


@pytest.mark.parametrize("device", DEVICES)
def test_make_tensor_ranges_and_options(device):
    for dt, lo, hi in [(openreg.float32, -9, 9), (openreg.float64, -9, 9), (openreg.float16, -9, 9),
                       (openreg.int64, -9, 10), (openreg.uint8, 0, 10), (openreg.bool, 0, 2)]:
        t = make_tensor(50, dtype=dt, device=device)
        v = np.array(t.to(openreg.float64).tolist())
        assert t.dtype is dt and t.device.type == openreg.device(device).type
        assert v.min() >= lo and v.max() < hi
    t = make_tensor((3, 4), dtype=openreg.float32, device=device, low=0.5, high=0.75, exclude_zero=True,
                    requires_grad=True)
    assert t.requires_grad and t.is_leaf and float(t.min()) >= 0.5 and float(t.max()) < 0.75
    nc = make_tensor(3, 4, dtype=openreg.int32, device=device, noncontiguous=True)
    assert nc.shape == (3, 4) and not nc.is_contiguous() and nc.stride() == (8, 2) and nc.storage_offset() == 1
    assert not (make_tensor(200, dtype=openreg.int8, device=device, low=-1, high=2, exclude_zero=True) == 0).any()
    c = make_tensor(4, dtype=openreg.complex64, device=device, low=-1, high=1)
    assert c.dtype is openreg.complex64 and float(openreg.view_as_real(c).abs().max()) < 1


def test_make_tensor_errors_match_torch():
    torch = pytest.importorskip("torch")
    cases = [{"low": 3, "high": 1}, {"low": float("nan")}, {"requires_grad": True, "dtype_": "int64"},
             {"noncontiguous": True, "memory_format": "channels_last"}, {"low": 300, "high": 400, "dtype_": "uint8"}]
    for case in cases:
        messages = []
        for lib in (torch, openreg):
            kw = dict(case)
            dt = getattr(lib, kw.pop("dtype_", "float32"))
            if "memory_format" in kw:
                kw["memory_format"] = lib.channels_last
            with pytest.raises(ValueError) as e:
                lib.testing.make_tensor(2, 3, dtype=dt, device="cpu", **kw)
            messages.append(str(e.value).replace("torch.", "").replace("openreg.", "").split(" but got")[0])
        assert messages[0] == messages[1]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        make_tensor(2, dtype=openreg.float32, device="cpu", low=1, high=1)
    assert w and w[0].category is FutureWarning


def test_swap_tensors():
    p = openreg.nn.Parameter(openreg.ones(2))
    q = openreg.zeros(3, dtype=openreg.float64)
    ip, iq = id(p), id(q)
    openreg.utils.swap_tensors(p, q)
    assert id(p) == ip and id(q) == iq
    assert type(p) is openreg.Tensor and type(q) is openreg.nn.Parameter
    assert p.tolist() == [0.0, 0.0, 0.0] and p.dtype is openreg.float64 and not p.requires_grad
    assert q.tolist() == [1.0, 1.0] and q.requires_grad
    (q * 3).sum().backward()
    assert q.grad.tolist() == [3.0, 3.0]
    a, b = openreg.ones(1), openreg.ones(1)
    ref = weakref.ref(a)
    with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref"):
        openreg.utils.swap_tensors(a, b)
    del ref


@pytest.mark.parametrize("device", DEVICES)
def test_nn_grad_matches_torch(device):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    for nd, spatial in [(1, (7,)), (2, (5, 6)), (3, (4, 5, 4))]:
        x = rng.uniform(-1, 1, (2, 4) + spatial)
        w = rng.uniform(-1, 1, (6, 2) + (3,) * nd)
        kw = {"stride": 2, "padding": 1, "dilation": 1, "groups": 2}
        out = getattr(torch.nn.functional, f"conv{nd}d")(torch.tensor(x), torch.tensor(w), **kw)
        g = rng.uniform(-1, 1, tuple(out.shape))

        def o(a):
            return openreg.tensor(a.tolist(), dtype=openreg.float64, device=device)
        ti = getattr(torch.nn.grad, f"conv{nd}d_input")(x.shape, torch.tensor(w), torch.tensor(g), **kw)
        oi = getattr(openreg.nn.grad, f"conv{nd}d_input")(x.shape, o(w), o(g), **kw)
        tw = getattr(torch.nn.grad, f"conv{nd}d_weight")(torch.tensor(x), w.shape, torch.tensor(g), **kw)
        ow = getattr(openreg.nn.grad, f"conv{nd}d_weight")(o(x), w.shape, o(g), **kw)
        np.testing.assert_allclose(np.array(oi.tolist()), ti.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.array(ow.tolist()), tw.numpy(), rtol=1e-12, atol=1e-12)
