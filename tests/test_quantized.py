"""Per-tensor quantization on CPU and the device, against a NumPy reference."""
import numpy as np
import pytest
from device_params import DEVICES

import openreg

QTYPES = [(openreg.qint8, np.int8, -128, 127), (openreg.quint8, np.uint8, 0, 255),
          (openreg.qint32, np.int32, -(2 ** 31), 2 ** 31 - 1)]


def _reference(x: np.ndarray, scale: float, zp: int, lo: int, hi: int, np_type) -> np.ndarray:
    inv = np.float32(1.0) / np.float32(scale)
    q = np.rint(x.astype(np.float32) * inv).astype(np.float64) + zp
    return np.clip(q, lo, hi).astype(np_type)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("qtype,np_type,lo,hi", QTYPES)
def test_quantize_matches_numpy(dev, qtype, np_type, lo, hi):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 4, 5)) * 40).astype(np.float32)
    x[0, 0, :3] = [0.25, -0.25, 0.75]          # ties: round half to even
    scale, zp = 0.5, (3 if lo < 0 else 128)
    q = openreg.quantize_per_tensor(openreg.tensor(x).to(dev), scale, zp, qtype)
    assert q.dtype is qtype and q.is_quantized and q.device == openreg.device(dev)
    assert q.q_scale() == scale and q.q_zero_point() == zp
    assert isinstance(q.q_scale(), float) and isinstance(q.q_zero_point(), int)
    ref = _reference(x, scale, zp, lo, hi, np_type)
    rep = q.int_repr()
    assert rep.dtype.numpy == np.dtype(np_type) and rep.device == q.device
    np.testing.assert_array_equal(rep.cpu().numpy(), ref)
    deq = q.dequantize()
    assert deq.dtype is openreg.float32 and deq.device == q.device
    np.testing.assert_allclose(deq.cpu().numpy(), (ref.astype(np.float32) - zp) * np.float32(scale), rtol=1e-6)


@pytest.mark.parametrize("dev", DEVICES)
def test_saturation_and_round_trip_error(dev):
    x = openreg.tensor([-1000.0, -1.3, 0.0, 1.3, 1000.0]).to(dev)
    q = openreg.quantize_per_tensor(x, 0.1, 0, openreg.qint8)
    assert q.int_repr().tolist() == [-128, -13, 0, 13, 127]
    inner = q.dequantize().cpu().numpy()[1:4]
    np.testing.assert_allclose(inner, [-1.3, 0.0, 1.3], atol=0.05 + 1e-6)


@pytest.mark.parametrize("dev", DEVICES)
def test_float64_and_float16_inputs(dev):
    for dt in (openreg.float64, openreg.float16):
        q = openreg.quantize_per_tensor(openreg.tensor([0.5, 1.0], dtype=dt).to(dev), 0.25, 0, openreg.quint8)
        assert q.int_repr().tolist() == [2, 4]


def test_dequantize_float_tensor_converts_to_float32():
    d = openreg.tensor([1.5, 2.0], dtype=openreg.float64).dequantize()
    assert d.dtype is openreg.float32 and d.tolist() == [1.5, 2.0]


def test_ops_and_schemas():
    assert str(openreg.ops.aten.quantize_per_tensor.default._schema) == (
        "aten::quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype) -> Tensor")
    assert str(openreg.ops.aten.dequantize.self._schema) == "aten::dequantize.self(Tensor self) -> Tensor"
    q = openreg.ops.aten.quantize_per_tensor.default(openreg.tensor([1.0]), 1.0, 0, openreg.qint8)
    assert openreg.ops.aten.q_scale.default(q) == 1.0
    assert openreg.ops.aten.q_zero_point.default(q) == 0
    assert openreg.ops.aten.int_repr.default(q).tolist() == [1]


def test_meta():
    q = openreg.quantize_per_tensor(openreg.empty(2, 3, device="meta"), 0.5, 1, openreg.qint8)
    assert q.is_meta and q.shape == (2, 3) and q.dtype is openreg.qint8 and q.q_scale() == 0.5
    assert q.int_repr().dtype is openreg.int8 and q.dequantize().dtype is openreg.float32


@pytest.mark.parametrize("dev", DEVICES)
def test_quantized_tensor_moves_between_devices(dev):
    q = openreg.quantize_per_tensor(openreg.tensor([0.5, -0.5]), 0.25, 2, openreg.qint8)
    moved = q.to(dev)
    assert moved.q_scale() == 0.25 and moved.q_zero_point() == 2
    assert moved.int_repr().cpu().tolist() == [4, 0]


def test_bad_input():
    x = openreg.tensor([1.0])
    with pytest.raises(RuntimeError, match="Quantize only works on Float Tensor"):
        openreg.quantize_per_tensor(openreg.tensor([1, 2]), 0.1, 0, openreg.qint8)
    with pytest.raises(RuntimeError, match="qint8, quint8, qint32"):
        openreg.quantize_per_tensor(x, 0.1, 0, openreg.float32)
    with pytest.raises(RuntimeError, match="above upper bound"):
        openreg.quantize_per_tensor(x, 0.1, 300, openreg.quint8)
    with pytest.raises(RuntimeError, match="below lower bound"):
        openreg.quantize_per_tensor(x, 0.1, -1, openreg.quint8)
    with pytest.raises(RuntimeError, match="scale must be a positive"):
        openreg.quantize_per_tensor(x, 0.0, 0, openreg.qint8)
    with pytest.raises(RuntimeError, match="expected a quantized tensor"):
        x.q_scale()
    with pytest.raises(RuntimeError, match="expected a quantized tensor"):
        x.int_repr()
