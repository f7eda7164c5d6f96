"""Legacy tensor constructors and types: openreg.Tensor(...), FloatTensor/LongTensor/..., x.new(...),
isinstance against a legacy type, x.type(<legacy type>), the device module's types.

Old and new programs alike write ``nn.Parameter(torch.Tensor(out, in))``, ``torch.LongTensor(n)``,
``torch.FloatTensor(list)`` and ``x.type(torch.cuda.FloatTensor)``; the language model of
yunjey/pytorch-tutorial stopped on ``torch.LongTensor``.
"""
from __future__ import annotations

import numpy as np
import pytest
from device_params import DEVICES, needs_device

import openreg

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparison is skipped, the direct checks still run
    torch = None


def test_sizes_make_uninitialized_tensors_of_the_type():
    assert openreg.FloatTensor(2, 3).shape == (2, 3)
    assert openreg.FloatTensor(openreg.Size([4])).shape == (4,)
    assert openreg.LongTensor(5).dtype == openreg.int64
    assert openreg.ByteTensor(2).dtype == openreg.uint8
    assert openreg.FloatTensor().shape == (0,)
    assert openreg.Tensor(2, 3).dtype == openreg.float32


def test_data_is_converted_to_the_type():
    assert openreg.LongTensor([1.7, 2]).tolist() == [1, 2]
    assert openreg.DoubleTensor((2, 3)).tolist() == [2.0, 3.0]   # a tuple is data, not a size
    x = openreg.FloatTensor(np.array([1, 2], dtype=np.int64))
    assert x.dtype == openreg.float32 and x.tolist() == [1.0, 2.0]
    assert openreg.BoolTensor([1, 0]).tolist() == [True, False]
    assert openreg.Tensor([[1, 2], [3, 4]]).dtype == openreg.float32


def test_tensor_follows_the_default_dtype_and_typed_constructors_do_not():
    openreg.set_default_dtype(openreg.float64)
    try:
        assert openreg.Tensor(2).dtype == openreg.float64
        assert openreg.FloatTensor(2).dtype == openreg.float32
    finally:
        openreg.set_default_dtype(openreg.float32)


def test_a_tensor_argument_is_an_alias():
    x = openreg.ones(3, requires_grad=True)
    y = openreg.FloatTensor(x)
    assert y.data_ptr() == x.data_ptr() and y.requires_grad
    assert openreg.Tensor(openreg.ones(2, dtype=openreg.int64)).dtype == openreg.int64
    with pytest.raises(TypeError, match="expected openreg.FloatTensor"):
        openreg.FloatTensor(openreg.ones(2, dtype=openreg.int64))


@pytest.mark.parametrize("call, error", [
    (lambda: openreg.FloatTensor(2.5), TypeError),
    (lambda: openreg.Tensor(2, 1.5), TypeError),
    (lambda: openreg.Tensor(2, 3, dtype=openreg.float64), TypeError),
    (lambda: openreg.Tensor([1, 2], device="meta"), RuntimeError),
    (lambda: openreg.Tensor(-1), RuntimeError),
])
def test_errors(call, error):
    with pytest.raises(error):
        call()


def test_isinstance_and_type_conversion():
    x = openreg.ones(2)
    assert isinstance(x, openreg.FloatTensor) and not isinstance(x, openreg.LongTensor)
    assert isinstance(x, openreg.Tensor)
    assert x.type(openreg.LongTensor).dtype == openreg.int64
    assert x.type("torch.IntTensor").dtype == openreg.int32
    assert openreg.FloatTensor.dtype == openreg.float32 and not openreg.FloatTensor.is_cuda
    assert repr(openreg.LongTensor) == "<class 'openreg.LongTensor'>"
    with pytest.raises(ValueError, match="invalid type"):
        x.type("torch.NoSuchTensor")


def test_subclass_construction_gives_the_subclass():
    class Sub(openreg.Tensor):
        pass
    s = Sub([1.0, 2.0])
    assert type(s) is Sub and s.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("device", DEVICES)
def test_new_keeps_dtype_and_device(device):
    x = openreg.zeros(2, dtype=openreg.float64, device=device)
    y = x.new([1, 2])
    assert y.dtype == openreg.float64 and y.device == x.device and y.tolist() == [1.0, 2.0]
    assert x.new(3, 4).shape == (3, 4) and x.new(3, 4).device == x.device
    assert x.new().shape == (0,)


@needs_device
def test_device_module_types():
    pu = openreg.privateuseone
    x = pu.FloatTensor(2, 3)
    assert x.device.type == "privateuseone" and x.dtype == openreg.float32
    assert isinstance(x, pu.FloatTensor) and not isinstance(x, openreg.FloatTensor)
    assert pu.LongTensor([1, 2]).tolist() == [1, 2]
    assert openreg.ones(2).type(pu.DoubleTensor).device.type == "privateuseone"
    assert x.type(openreg.FloatTensor).device.type == "cpu"


def test_cuda_types_without_the_cuda_name_raise_the_cpu_build_error():
    if openreg.utils.get_privateuse1_backend_name() == "cuda":
        pytest.skip("the device is named cuda in this process")
    with pytest.raises(TypeError, match="not available"):
        openreg.cuda.FloatTensor(2)
    assert not isinstance(openreg.ones(2), openreg.cuda.FloatTensor)


def _behaviour(lib):
    out = []
    calls = [
        lambda: lib.FloatTensor(2, 3).shape, lambda: lib.DoubleTensor((2, 3)).tolist(),
        lambda: lib.LongTensor([1.7, 2]).tolist(), lambda: lib.Tensor(np.array([1, 2])).tolist(),
        lambda: lib.IntTensor(lib.Size([2])).shape, lambda: lib.ones(2).new([3, 4]).tolist(),
        lambda: isinstance(lib.ones(2), lib.FloatTensor), lambda: isinstance(lib.ones(2), lib.HalfTensor),
        lambda: lib.ones(2).type(lib.ShortTensor).tolist(), lambda: lib.FloatTensor(2.5),
        lambda: lib.Tensor(2, "a"), lambda: lib.CharTensor([[1, 2], [3]]),
    ]
    for call in calls:
        try:
            r = call()
            out.append(tuple(r) if isinstance(r, tuple) else r)
        except Exception as e:  # noqa: BLE001 - the error type is what is compared
            out.append(type(e).__name__)
    return out


@pytest.mark.skipif(torch is None, reason="needs PyTorch to compare with")
def test_same_as_pytorch():
    assert _behaviour(openreg) == _behaviour(torch)


def test_set_default_tensor_type_sets_dtype_and_device():
    """LLaMA's generation.py: ``set_default_tensor_type(torch.cuda.HalfTensor)`` before building the model."""
    from device_params import HAS_DEVICE
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            openreg.set_default_tensor_type(openreg.HalfTensor)
        assert openreg.get_default_dtype() is openreg.float16 and openreg.zeros(2).dtype is openreg.float16
        assert openreg.zeros(1).device.type == "cpu"
        if HAS_DEVICE:
            with pytest.warns(UserWarning):
                openreg.set_default_tensor_type(openreg.privateuseone.DoubleTensor)
            t = openreg.ones(2)
            assert t.dtype is openreg.float64 and t.device.type == "privateuseone"
            # the legacy constructor makes the default tensor type (nerf-pytorch's torch.Tensor([1e10]) under
            # set_default_tensor_type('torch.cuda.FloatTensor')), which set_default_device alone does not change
            for t in (openreg.Tensor([1e10]), openreg.Tensor(2, 3)):
                assert t.dtype is openreg.float64 and t.device.type == "privateuseone"
        with pytest.warns(UserWarning):
            openreg.set_default_tensor_type("torch.FloatTensor")
        t = openreg.ones(2)
        assert t.dtype is openreg.float32 and t.device.type == "cpu"
        assert openreg.Tensor([1.0]).device.type == "cpu"
        openreg.set_default_device("meta")
        assert openreg.Tensor([1.0]).device.type == "cpu"      # as PyTorch's under set_default_device
        openreg.set_default_device(None)
        with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
            openreg.set_default_tensor_type(openreg.LongTensor)
        with pytest.raises(TypeError, match="invalid type object"):
            openreg.set_default_tensor_type(openreg.float32)
        assert openreg.get_default_dtype() is openreg.float32
    finally:
        openreg.set_default_dtype(openreg.float32)
        openreg.set_default_device(None)
