"""LazyConvTranspose1d/2d/3d, LazyInstanceNorm1d/2d/3d and UninitializedParameter/UninitializedBuffer against
PyTorch: the materialized module's class, shapes, state_dict keys and outputs."""
import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

CASES = [
    ("LazyConvTranspose1d", (2, 3), {"stride": 2}, (2, 4, 5)),
    ("LazyConvTranspose2d", (5, 3), {"stride": 2, "padding": 1, "output_padding": 1}, (2, 4, 6, 6)),
    ("LazyConvTranspose3d", (2, 2), {"groups": 2}, (1, 4, 3, 3, 3)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {"bias": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"affine": False, "track_running_stats": False}, (2, 3, 2, 2, 2)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_lazy_modules_match_torch(case, devices):
    name, args, kw, shape = CASES[case]
    x = np.random.default_rng(case).uniform(-1, 1, shape)
    tm, om = getattr(torch.nn, name)(*args, **kw), getattr(openreg.nn, name)(*args, **kw, device=devices)
    tm(torch.tensor(x, dtype=torch.float32))
    om(openreg.tensor(x.tolist(), device=devices))
    assert type(om).__name__ == type(tm).__name__
    ts, os_ = tm.state_dict(), om.state_dict()
    assert sorted(ts) == sorted(os_)
    for k in ts:
        assert tuple(ts[k].shape) == tuple(os_[k].shape), k
    om.load_state_dict({k: openreg.tensor(v.tolist(), dtype=getattr(openreg, str(v.dtype).split(".")[1]))
                        for k, v in ts.items()})
    t_out = tm(torch.tensor(x, dtype=torch.float32)).detach().numpy()
    o_out = np.array(om(openreg.tensor(x.tolist(), device=devices)).tolist())
    np.testing.assert_allclose(o_out, t_out, rtol=1e-4, atol=1e-5)


def test_uninitialized_parameter_and_buffer():
    for lib in (torch, openreg):
        p = lib.nn.UninitializedParameter()
        assert repr(p) == "<UninitializedParameter>" and p.requires_grad
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            _ = p.shape
        p.materialize((2, 3), dtype=lib.float64)
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype is lib.float64
        b = lib.nn.UninitializedBuffer()
        b.materialize(4)
        assert type(b) is lib.Tensor and tuple(b.shape) == (4,) and not b.requires_grad
    assert openreg.nn.parameter.is_lazy(openreg.nn.UninitializedParameter())
