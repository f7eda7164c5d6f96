"""openreg.asarray / openreg.frombuffer: memory sharing, copies, dtypes, requires_grad and errors, against
PyTorch's behaviour (the same cases run through torch when it is installed)."""
import array
import warnings

import numpy as np
import pytest
from device_params import DEVICES

import openreg


def _cases(lib):
    """(name, make obj, kwargs); obj is made fresh for each library."""
    f32, f64, u8, i16 = lib.float32, lib.float64, lib.uint8, lib.int16
    return [
        ("ndarray", lambda: np.arange(4, dtype=np.float32), {}),
        ("ndarray-int", lambda: np.arange(4), {}),
        ("ndarray-f64", lambda: np.arange(4, dtype=np.float32), {"dtype": f64}),
        ("ndarray-copy", lambda: np.arange(4, dtype=np.float32), {"copy": True}),
        ("np-scalar", lambda: np.float64(2.5), {}),
        ("list-int", lambda: [1, 2, 3], {}),
        ("list-float", lambda: [[1.0, 2.0]], {}),
        ("list-dtype", lambda: [1, 2], {"dtype": f32}),
        ("scalar", lambda: 3.0, {}),
        ("bool-list", lambda: [True, False], {}),
        ("array-f", lambda: array.array("f", [1, 2, 3]), {}),
        ("array-d-as-default", lambda: array.array("d", [1, 2]), {}),
        ("bytearray-u8", lambda: bytearray(b"\x01\x02\x03"), {"dtype": u8}),
        ("bytearray-i16", lambda: bytearray(b"\x01\x02\x03\x04"), {"dtype": i16}),
    ]


def _run(lib, make, kwargs):
    obj = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = lib.asarray(obj, **kwargs)
    shares = None
    if isinstance(obj, (np.ndarray, array.array, bytearray)):
        before = bytes(memoryview(obj).cast("B"))
        out.view(-1)[0] = 7 if not out.dtype.is_floating_point else 7.0
        shares = bytes(memoryview(obj).cast("B")) != before
    return str(out.dtype).split(".")[-1], out.tolist(), shares


@pytest.mark.parametrize("case", range(len(_cases(openreg))))
def test_cases_match_torch(case):
    torch = pytest.importorskip("torch")
    name, make, kwargs = _cases(openreg)[case]
    _, tmake, tkwargs = _cases(torch)[case]
    assert _run(openreg, make, kwargs) == _run(torch, tmake, tkwargs), name


def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (torch, openreg):
        with pytest.raises(ValueError, match="can't alias arbitrary sequence into a tensor"):
            lib.asarray([1, 2], copy=False)
        with pytest.raises(ValueError, match="can't alias tensor with dtype 'Float' into dtype 'Double'"):
            lib.asarray(np.ones(2, dtype=np.float32), dtype=lib.float64, copy=False)
        with pytest.raises(RuntimeError, match="can't alias NumPy scalars"):
            lib.asarray(np.float32(1), copy=False)
        with pytest.raises(ValueError, match="must be a multiple of element size \\(4\\)"):
            lib.frombuffer(bytearray(b"\x01\x02"), dtype=lib.float32)
        with pytest.raises(ValueError, match="offset \\(5 bytes\\) must be non-negative"):
            lib.frombuffer(bytearray(b"\x01\x02"), dtype=lib.uint8, offset=5)
        with pytest.raises(ValueError, match="must not be greater than actual buffer length"):
            lib.frombuffer(bytearray(b"\x01\x02"), dtype=lib.uint8, count=3)
        with pytest.raises(ValueError, match="must not be 0"):
            lib.frombuffer(bytearray(b""), dtype=lib.uint8)


def test_requires_grad_rules_match_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, openreg):
        got = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for kw in [{}, {"requires_grad": False}, {"copy": True}, {"dtype": lib.float64},
                       {"copy": True, "requires_grad": False}]:
                leaf = lib.ones(3, requires_grad=True)
                mid = leaf * 2
                for src in (leaf, mid):
                    a = lib.asarray(src, **kw)
                    got.append((a is src, a.requires_grad, a.grad_fn is None, a.is_leaf,
                                a.data_ptr() == src.data_ptr()))
            x = lib.ones(2)
            a = lib.asarray(x, requires_grad=True)
            got.append((a is x, x.requires_grad))
        results.append(got)
    assert results[0] == results[1]


def test_requires_grad_warning():
    leaf = openreg.ones(2, requires_grad=True)
    from openreg import asarray as module
    module_globals = openreg.asarray.__globals__
    module_globals["_warned"]["requires_grad"] = False
    with pytest.warns(UserWarning, match="unspecified requires_grad now defaults to obj.requires_grad"):
        openreg.asarray(leaf)
    assert module is openreg.asarray


@pytest.mark.parametrize("device", DEVICES)
def test_devices(device):
    x = openreg.arange(3.0, device=device)
    assert openreg.asarray(x) is x and openreg.asarray(x, device=device) is x
    n = np.arange(3.0)
    y = openreg.asarray(n, device=device)
    assert y.device.type == openreg.device(device).type and y.tolist() == [0.0, 1.0, 2.0]
    if device != "cpu":
        with pytest.raises(ValueError, match="can't alias tensor from device"):
            openreg.asarray(n, device=device, copy=False)
        z = openreg.asarray([1.0, 2.0], device=device)
        assert z.device == y.device
    c = openreg.asarray(x, dtype=openreg.float64)
    assert c.dtype is openreg.float64 and c.device == x.device


def test_frombuffer_shares_and_reads_bytes():
    buf = bytearray(range(8))
    t = openreg.frombuffer(buf, dtype=openreg.int16, count=2, offset=2)
    assert t.tolist() == np.frombuffer(bytes(buf), dtype=np.int16, count=2, offset=2).tolist()
    t[0] = 0
    assert buf[2:4] == b"\x00\x00"
    openreg.__dict__["asarray"].__globals__["_warned"]["writable"] = False
    with pytest.warns(UserWarning, match="not writable"):
        r = openreg.frombuffer(b"abcd", dtype=openreg.uint8)
    assert r.tolist() == [97, 98, 99, 100]
    with pytest.raises(ValueError, match="buffer protocol"):
        openreg.frombuffer([1, 2], dtype=openreg.uint8)
    assert openreg.frombuffer(bytearray(4), dtype=openreg.float32, requires_grad=True).requires_grad
