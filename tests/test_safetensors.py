"""openreg.utils.safetensors through the safetensors package: files, bytes, lazy per-tensor loading onto devices,
bfloat16 as BF16, bad headers; interchange with safetensors.torch when PyTorch is installed."""
import importlib.util
import json
import struct
import subprocess
import sys

import numpy as np
import pytest
from device_params import needs_two_devices

import openreg
from openreg.utils import safetensors as st

needs_package = pytest.mark.skipif(importlib.util.find_spec("safetensors") is None,
                                   reason="the optional 'safetensors' extra is not installed")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64"]


def _sample():
    out = {n: (openreg.arange(6) - 2).to(getattr(openreg, n)).view(2, 3) for n in DTYPES}
    out["t"] = openreg.arange(12.0).view(3, 4).t()      # non-contiguous: saved as its values
    out["empty"] = openreg.empty(0, 2)
    out["scalar"] = openreg.tensor(3.5)
    return out


def _equal(a, b):
    assert a.dtype is b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.float().numpy(), b.float().numpy())


@needs_package
def test_file_round_trip_every_dtype(tmp_path):
    path = tmp_path / "m.safetensors"
    src = _sample()
    st.save_file(src, path, metadata={"k": "v"})
    back = st.load_file(path)
    assert set(back) == set(src)
    for k in src:
        _equal(src[k], back[k])
    with st.safe_open(path, framework="pt") as f:
        assert f.metadata() == {"k": "v"} and f.keys() == sorted(src)
        _equal(f.get_tensor("bfloat16"), src["bfloat16"])
        assert f.get_slice("bfloat16").get_dtype() == "BF16"
        assert f.get_slice("t").get_shape() == [4, 3]
        part = f.get_slice("t")[1:3, ::2]
        _equal(part, src["t"][1:3, ::2])
        with pytest.raises(KeyError, match="nope"):
            f.get_tensor("nope")


@needs_package
def test_bytes_round_trip_and_bf16_header():
    data = st.save({"h": openreg.tensor([1.5, -2.0], dtype=openreg.bfloat16)})
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    assert header["h"] == {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}
    assert data[8 + n:] == np.array([0x3FC0, 0xC000], dtype="<u2").tobytes()   # bfloat16 bit patterns
    assert st.load(data)["h"].tolist() == [1.5, -2.0]


@needs_package
def test_numpy_framework_is_the_packages(tmp_path):
    path = tmp_path / "n.safetensors"
    st.save_file({"x": openreg.arange(4, dtype=openreg.int32)}, path)
    with st.safe_open(path, framework="numpy") as f:
        arr = f.get_tensor("x")
    assert isinstance(arr, np.ndarray) and arr.tolist() == [0, 1, 2, 3]
    from safetensors.numpy import load_file
    assert load_file(str(path))["x"].dtype == np.int32


@needs_package
@needs_two_devices
def test_lazy_loading_onto_the_device(tmp_path):
    path = tmp_path / "d.safetensors"
    src = _sample()
    st.save_file({k: v.to("privateuseone:0") for k, v in src.items()}, path)
    back = st.load_file(path, device="privateuseone:1")
    for k in src:
        assert back[k].device == openreg.device("privateuseone:1")
        _equal(src[k], back[k].cpu())
    with st.safe_open(path, framework="pt", device="privateuseone:0") as f:
        row = f.get_slice("float32")[1]
    assert row.device == openreg.device("privateuseone:0") and row.cpu().tolist() == [1.0, 2.0, 3.0]


@needs_package
def test_refusals(tmp_path):
    t = openreg.arange(4.0)
    with pytest.raises(RuntimeError, match="share memory"):
        st.save({"a": t, "b": t[1:]})
    st.save({"a": t[:2], "b": t[2:]})               # disjoint views of one storage are fine
    with pytest.raises(ValueError, match="complex128"):
        st.save({"c": openreg.zeros(2, dtype=openreg.complex128)})
    with pytest.raises(TypeError, match="metadata"):
        st.save({"a": t}, metadata={"n": 1})
    with pytest.raises(ValueError, match="framework"):
        st.safe_open(tmp_path / "x", framework="jax")


def _lying_file(path, header: dict, data: bytes):
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)


@needs_package
@pytest.mark.parametrize("header,data", [
    ({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8),        # past the end
    ({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}, b"\0" * 8),         # too small for the shape
    ({"x": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12),       # a hole before it
    ({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
      "y": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12),       # overlapping
])
def test_header_that_lies_about_offsets(tmp_path, header, data):
    path = tmp_path / "lie.safetensors"
    _lying_file(path, header, data)
    with pytest.raises(RuntimeError, match="lie.safetensors"):
        st.load_file(path)


@needs_package
def test_unsupported_dtype_in_file(tmp_path):
    path = tmp_path / "u16.safetensors"
    _lying_file(path, {"x": {"dtype": "U16", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4)
    if isinstance(getattr(openreg, "uint16", None), openreg.dtype):
        assert st.load_file(path)["x"].tolist() == [0, 0]
    else:
        with pytest.raises(TypeError, match="U16 has no openreg dtype"):
            st.load_file(path)


@needs_package
def test_interchange_with_safetensors_torch(tmp_path):
    torch = pytest.importorskip("torch", reason="differential test against PyTorch")
    from safetensors.torch import load_file as torch_load_file
    from safetensors.torch import save_file as torch_save_file
    src = _sample()
    path = tmp_path / "o.safetensors"
    st.save_file(src, path)
    theirs = torch_load_file(str(path))
    for k, t in src.items():
        assert str(theirs[k].dtype) == f"torch.{t.dtype.name}"
        conv = theirs[k].float() if theirs[k].dtype == torch.bfloat16 else theirs[k]
        np.testing.assert_array_equal(conv.numpy(), t.float().numpy() if t.dtype is openreg.bfloat16 else t.numpy())
    g = torch.Generator().manual_seed(0)
    made = {n: (torch.randn(3, 4, generator=g) * 5).to(getattr(torch, n)) for n in DTYPES}
    path2 = tmp_path / "t.safetensors"
    torch_save_file(made, str(path2), metadata={"format": "pt"})
    mine = st.load_file(path2)
    for k, t in made.items():
        conv = t.float() if t.dtype == torch.bfloat16 else t
        got = mine[k].float().numpy() if mine[k].dtype is openreg.bfloat16 else mine[k].numpy()
        np.testing.assert_array_equal(got, conv.numpy())


def test_without_the_package_import_works_and_use_names_it():
    code = ("import sys; sys.modules['safetensors'] = None\n"
            "import openreg\n"
            "from openreg.utils import safetensors as st\n"
            "try:\n"
            "    st.save({'x': openreg.ones(1)})\n"
            "except ImportError as e:\n"
            "    print('ImportError:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "ImportError:" in out and "'safetensors' package" in out and "openreg[safetensors]" in out
