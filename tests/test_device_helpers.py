"""get_device_module, is_storage, chain_matmul and the torch.<op>_ in-place functions added here, against PyTorch."""
import warnings

import pytest

import openreg


def test_helpers():
    dev = openreg.utils.get_privateuse1_backend_name()
    assert openreg.get_device_module("cpu") is openreg.cpu
    assert openreg.get_device_module(openreg.device(dev)) is getattr(openreg, dev)
    assert openreg.get_device_module() is getattr(openreg, openreg.accelerator.current_accelerator().type)
    with pytest.raises(RuntimeError, match="Invalid value of device '3'"):
        openreg.get_device_module(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert openreg.is_storage(openreg.ones(1).storage()) and openreg.is_storage(openreg.ones(1).untyped_storage())
    assert not openreg.is_storage(openreg.ones(1))


def test_against_torch():
    torch = pytest.importorskip("torch")
    out = []
    for lib in (torch, openreg):
        x = lib.tensor([6, 4])
        lib.gcd_(x, lib.tensor([4, 6]))
        y = lib.tensor([6, 4])
        lib.lcm_(y, lib.tensor([4, 6]))
        z = lib.tensor([1.0, 2.0])
        lib.ldexp_(z, lib.tensor([1, 2]))
        out.append((x.tolist(), y.tolist(), z.tolist(), lib.fix_(lib.tensor([-1.5])).tolist(),
                    lib.i0_(lib.tensor([0.5], dtype=lib.float64)).tolist(), lib.conj_physical_(lib.tensor([1 + 2j])).tolist(),
                    lib.chain_matmul(lib.ones(2, 3), lib.ones(3, 4), lib.ones(4, 1)).tolist()))
        with pytest.raises(RuntimeError, match="Tensor dimension is 1, expected 2 instead"):
            lib.chain_matmul(lib.ones(2))
    assert out[0] == out[1]
