"""openreg.save / openreg.load: containers, shared storages, devices, map_location, backend metadata,
quantized tensors and the weights-only unpickler."""
import io
import pickle

import numpy as np
import pytest
from device_params import needs_two_devices

import openreg
from openreg import serialization
from openreg.utils import get_tensor_metadata, set_tensor_metadata

needs_device = needs_two_devices


def _roundtrip(obj, **kwargs):
    buf = io.BytesIO()
    openreg.save(obj, buf)
    buf.seek(0)
    return openreg.load(buf, **kwargs)


def test_nested_containers_and_values():
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    obj = {"w": openreg.tensor(a), "b": [openreg.tensor([1, 2, 3]), (openreg.tensor(True), 2.5)], "name": "x",
           "n": None, "i": 7}
    out = _roundtrip(obj)
    np.testing.assert_array_equal(out["w"].numpy(), a)
    assert out["b"][0].dtype is openreg.int64 and out["b"][0].tolist() == [1, 2, 3]
    assert out["b"][1][0].item() is True and out["b"][1][1] == 2.5
    assert (out["name"], out["n"], out["i"]) == ("x", None, 7)


def test_views_share_storage_and_strides_kept():
    base = openreg.arange(12.0).view(3, 4)
    view = base.as_strided((2, 2), (1, 4), 1)
    b2, v2 = _roundtrip([base, view])
    assert v2.untyped_storage() is b2.untyped_storage()
    assert v2.stride() == (1, 4) and v2.storage_offset() == 1
    assert v2.tolist() == view.tolist()
    b2.zero_()
    assert v2.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_requires_grad_dtypes_and_quantized():
    t = openreg.tensor([1.0, 2.0], dtype=openreg.float64).requires_grad_()
    h = openreg.tensor([1.5], dtype=openreg.bfloat16)
    q = openreg.quantize_per_tensor(openreg.tensor([0.5, -1.0]), 0.25, 3, openreg.qint8)
    t2, h2, q2 = _roundtrip([t, h, q])
    assert t2.requires_grad and t2.dtype is openreg.float64 and t2.is_leaf
    assert h2.dtype is openreg.bfloat16 and h2.tolist() == [1.5]
    assert q2.dtype is openreg.qint8 and q2.q_scale() == 0.25 and q2.q_zero_point() == 3
    assert q2.int_repr().tolist() == q.int_repr().tolist()


def test_path_and_meta(tmp_path):
    p = tmp_path / "x.pt"
    openreg.save({"m": openreg.empty(2, 3, device="meta")}, p)
    m = openreg.load(str(p))["m"]
    assert m.is_meta and m.shape == (2, 3)


def test_weights_only_refuses_arbitrary_globals():
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))
    buf = io.BytesIO()
    openreg.save({"x": Evil()}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed.*builtins.print"):
        openreg.load(buf)
    buf.seek(0)
    openreg.load(buf, weights_only=False)      # trusted file: allowed


def test_bad_file_and_map_location():
    with pytest.raises(RuntimeError, match="magic number"):
        openreg.load(io.BytesIO(b"not a file"))
    with pytest.raises(ValueError, match="map_location"):
        _roundtrip(openreg.ones(1), map_location=3.5)


def test_callable_map_location_gets_cpu_storage_and_location():
    seen = []

    def fn(storage, location):
        seen.append((storage.device.type, location))
        return storage
    _roundtrip(openreg.ones(2), map_location=fn)
    assert seen == [("cpu", "cpu")]


@needs_device
def test_device_tensors_keep_their_index():
    t = openreg.tensor([1.0, 2.0]).to("privateuseone:1")
    out = _roundtrip({"t": t})["t"]
    assert out.device == openreg.device("privateuseone:1") and out.cpu().tolist() == [1.0, 2.0]


@needs_device
@pytest.mark.parametrize("ml,expected", [
    ("cpu", "cpu"), (openreg.device("privateuseone:0"), "privateuseone:0"),
    ({"privateuseone:1": "privateuseone:0"}, "privateuseone:0"), ({"privateuseone:0": "cpu"}, "privateuseone:1"),
    (lambda s, loc: None, "privateuseone:1"),
])
def test_map_location(ml, expected):
    t = openreg.tensor([3.0, 4.0]).to("privateuseone:1")
    out = _roundtrip(t, map_location=ml)
    assert out.device == openreg.device(expected) and out.cpu().tolist() == [3.0, 4.0]


@needs_device
def test_backend_metadata_kept_on_device_dropped_on_cpu():
    t = openreg.ones(2).to("privateuseone:0")
    set_tensor_metadata(t, {"format": 29})
    assert get_tensor_metadata(_roundtrip(t)) == {"format": 29}
    assert get_tensor_metadata(_roundtrip(t, map_location="cpu")) == {}


@needs_device
def test_backend_meta_hooks():
    calls = []

    def ser(t):
        calls.append("ser")
        return {"v": get_tensor_metadata(t).get("v", 0) + 1}

    def de(t, d):
        calls.append("de")
        set_tensor_metadata(t, {"v": d["v"] * 10})
    serialization.register_backend_meta_hooks("privateuseone", ser, de)
    try:
        t = openreg.ones(1).to("privateuseone:0")
        set_tensor_metadata(t, {"v": 1})
        assert get_tensor_metadata(_roundtrip(t)) == {"v": 20}
        assert calls == ["ser", "de"]
    finally:
        serialization._meta_hooks.pop("privateuseone", None)
    with pytest.raises(TypeError, match="callable"):
        serialization.register_backend_meta_hooks("privateuseone", None, de)


@pytest.mark.skipif(not hasattr(openreg.nn, "Parameter"), reason="needs openreg.nn.Parameter")
def test_parameters_and_state_dict():
    p = openreg.nn.Parameter(openreg.tensor([1.0, 2.0]))
    sd = openreg.nn.Linear(2, 3).state_dict()
    out = _roundtrip({"p": p, "sd": sd})
    assert type(out["p"]) is openreg.nn.Parameter and out["p"].requires_grad and out["p"].tolist() == [1.0, 2.0]
    assert list(out["sd"]) == list(sd)
    for name, t in sd.items():
        np.testing.assert_array_equal(out["sd"][name].detach().numpy(), t.detach().numpy())
