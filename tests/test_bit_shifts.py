"""bitwise_left_shift / bitwise_right_shift (and <<, >>, <<=, >>=) against PyTorch: every integer dtype, shift
amounts out of range and negative, scalar operands on either side, out=, in-place and the errors."""
import pytest
from device_params import DEVICES

import openreg


def _run(lib, device="cpu"):
    out = []
    for dt in ["int8", "int16", "int32", "int64", "uint8"]:
        vals = [1, 8, 200, 7, 0, 255] if dt == "uint8" else [1, -8, 100, 7, 0, 127]
        a = lib.tensor(vals, dtype=getattr(lib, dt), device=device)
        amounts = [lib.tensor([0, 1, 3, 7, 8, 9], dtype=getattr(lib, dt), device=device),
                   lib.tensor([-1, 15, 16, 31, 33, 64], device=device), 2, 70, -1]
        for s in amounts:
            out.append(((a << s).tolist(), (a >> s).tolist()))
        out.append(((5 << a[:3].abs() % 5).tolist(), (300 >> a[:3].abs() % 5).tolist(),
                    lib.bitwise_left_shift(3, a[:3].abs() % 5).tolist()))
    out.append((lib.tensor([True], device=device) << 1).tolist())
    b = lib.tensor([1, 2, 3], device=device)
    b <<= 2
    c = b.clone()
    c >>= 1
    out.append((b.tolist(), c.tolist(), b.bitwise_left_shift_(1).tolist(),
                b.bitwise_right_shift(lib.tensor([1], device=device)).tolist(), b.bitwise_right_shift_(2).tolist()))
    o = lib.empty(3, dtype=lib.int64, device=device)
    lib.bitwise_left_shift(lib.tensor([1, 2, 3], device=device), 2, out=o)
    out.append(o.tolist())
    for f in [lambda: lib.tensor([1.5]) << 1, lambda: lib.tensor([1]) << 1.5,
              lambda: lib.tensor([True]) << lib.tensor([True]), lambda: lib.tensor([1.0]) >> 1]:
        try:
            f()
            out.append("ok")
        except Exception as e:  # noqa: BLE001 - the error is the result compared
            out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_shifts_match_torch(device):
    torch = pytest.importorskip("torch")
    assert _run(openreg, device) == _run(torch)


def test_shift_methods_exist():
    x = openreg.tensor([1, 2])
    assert (x << 1).tolist() == [2, 4] and (x >> 1).tolist() == [0, 1]
    assert openreg.bitwise_right_shift(x, openreg.tensor([1, 1])).tolist() == [0, 1]
