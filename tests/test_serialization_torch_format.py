"""PyTorch's checkpoint format both ways: files written by torch.save (zip and legacy; checked-in fixtures made by
tests/fixtures/make_torch_fixtures.py) load into openreg without PyTorch, and openreg.save writes files PyTorch's
weights-only loader reads (differential tests, skipped without PyTorch)."""
import io
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from device_params import needs_device

import openreg
from openreg import serialization

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]


def fixture(name):
    return os.path.join(FIXTURES, name)


def _values(t):
    return t.float().numpy() if t.dtype is openreg.bfloat16 else t.numpy()


# -- files written by torch.save ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["torch_nested.pt", "torch_nested_legacy.pt"])
def test_loads_torch_checkpoint(name):
    d = openreg.load(fixture(name))
    expected = np.arange(6) - 2
    assert list(d["dtypes"]) == DTYPES and type(d["dtypes"]) is OrderedDict
    for dname, t in d["dtypes"].items():
        assert t.dtype is getattr(openreg, dname), dname
        np.testing.assert_array_equal(_values(t), expected.astype(getattr(openreg, dname).compute_numpy))
    base = d["base"]
    np.testing.assert_array_equal(base.numpy(), np.arange(24, dtype=np.float32).reshape(4, 6))
    for view in (d["row"], d["col_t"], d["strided"], d["nested"][0][0]):
        assert view.untyped_storage() is base.untyped_storage()
    assert d["col_t"].stride() == (1, 6) and d["col_t"].storage_offset() == 2
    np.testing.assert_array_equal(d["col_t"].numpy(), base.numpy().T[2:4])
    assert d["strided"].stride() == (5, 2) and d["strided"].storage_offset() == 3
    assert d["strided"].tolist() == [[3.0, 5.0, 7.0], [8.0, 10.0, 12.0]]
    assert d["nested"][0][1]["deep"][0].item() == 7.5 and d["nested"][1].shape == (0, 3)
    assert d["grad"].requires_grad and d["grad"].is_leaf
    assert type(d["param"]) is openreg.nn.Parameter and d["param"].tolist() == [[0.25, 0.5]]
    assert d["meta"].is_meta and d["meta"].shape == (2, 3)
    v = d["values"]
    assert (v["int"], v["float"], v["str"], v["none"], v["bool"], v["tuple"], v["bytes"]) == \
        (3, 2.5, "s", None, True, (1, 2), b"ab")
    assert type(v["size"]) is openreg.Size and v["size"] == (2, 3)
    assert v["device"] == openreg.device("cpu") and v["dtype"] is openreg.float16
    q = d["q"]
    assert q.dtype is openreg.qint8 and q.q_scale() == 0.25 and q.q_zero_point() == 3
    assert q.int_repr().tolist() == [5, -1, 11]
    if "storage" in d:
        s = d["storage"]
        assert isinstance(s, openreg.UntypedStorage) and s.nbytes() == 4 and list(s.cpu()) == [0, 1, 2, 3]


@pytest.mark.parametrize("name,cls,args", [("linear", "Linear", (4, 3)), ("layernorm", "LayerNorm", (3,)),
                                           ("embedding", "Embedding", (5, 4))])
def test_state_dicts_of_torch_models_load_into_openreg_modules(name, cls, args):
    case = openreg.load(fixture("torch_models.pt"))[name]
    assert type(case["state_dict"]) is OrderedDict
    if not hasattr(openreg.nn, cls):
        pytest.skip(f"openreg.nn.{cls} does not exist yet")
    module = getattr(openreg.nn, cls)(*args)
    module.load_state_dict(case["state_dict"])
    with openreg.no_grad():
        out = module(case["input"])
    np.testing.assert_allclose(out.numpy(), case["output"].numpy(), rtol=1e-5, atol=1e-6)


def test_torch_optimizer_state_loads():
    adam = openreg.load(fixture("torch_models.pt"))["adam"]
    assert set(adam) == {"state", "param_groups"}
    assert adam["param_groups"][0]["params"] == [0, 1] and adam["param_groups"][0]["betas"] == (0.9, 0.999)
    st = adam["state"][0]
    assert st["step"].item() == 1.0 and st["exp_avg"].shape == (3, 4) and st["exp_avg_sq"].shape == (3, 4)
    assert (st["exp_avg_sq"].numpy() >= 0).all()


@pytest.mark.parametrize("ml", ["cpu", openreg.device("cpu"), {"cpu": "cpu"}, lambda s, loc: s])
def test_map_location_forms_on_torch_files(ml):
    assert openreg.load(fixture("torch_nested.pt"), map_location=ml)["base"].device.type == "cpu"


@needs_device
def test_torch_file_onto_the_device():
    d = openreg.load(fixture("torch_nested.pt"), map_location="privateuseone:0")
    assert d["base"].device == openreg.device("privateuseone:0")
    assert d["row"].untyped_storage() is d["base"].untyped_storage()
    assert d["dtypes"]["bfloat16"].cpu().tolist() == [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0]
    callable_seen = []
    openreg.load(fixture("torch_nested.pt"), map_location=lambda s, loc: callable_seen.append(loc))
    assert set(callable_seen) == {"cpu"}


def test_mmap_backs_storages_by_the_file(tmp_path):
    d = openreg.load(fixture("torch_nested.pt"), mmap=True)
    assert isinstance(d["base"].untyped_storage()._data, np.memmap)      # not read into memory
    np.testing.assert_array_equal(d["base"].numpy(), np.arange(24, dtype=np.float32).reshape(4, 6))
    path = tmp_path / "m.pt"
    openreg.save({"w": openreg.arange(4.0)}, path)
    before = path.read_bytes()
    w = openreg.load(path, mmap=True)["w"]
    w.add_(1)           # copy-on-write: the file keeps its bytes
    assert w.tolist() == [1.0, 2.0, 3.0, 4.0] and path.read_bytes() == before
    with pytest.raises(ValueError, match="file path"):
        openreg.load(io.BytesIO(before), mmap=True)
    with pytest.raises(RuntimeError, match="mmap can only be used"):
        openreg.load(fixture("torch_nested_legacy.pt"), mmap=True)


# -- weights_only and the safe-globals registry --------------------------------------------------------------------
class Point:
    def __init__(self, x):
        self.x = x


def test_weights_only_refuses_unknown_torch_globals_and_add_safe_globals_allows():
    buf = io.BytesIO()
    openreg.save({"p": Point(openreg.ones(2))}, buf)
    with pytest.raises(pickle.UnpicklingError, match=r"Weights only load failed.*test_serialization_torch_format"
                                                     r"\.Point.*add_safe_globals"):
        openreg.load(io.BytesIO(buf.getvalue()))
    with serialization.safe_globals([Point]):
        assert serialization.get_safe_globals() == [Point]
        assert openreg.load(io.BytesIO(buf.getvalue()))["p"].x.tolist() == [1.0, 1.0]
    assert serialization.get_safe_globals() == []
    serialization.add_safe_globals([(Point, f"{Point.__module__}.Point")])
    try:
        assert openreg.load(io.BytesIO(buf.getvalue()))["p"].x.tolist() == [1.0, 1.0]
    finally:
        serialization.clear_safe_globals()
    assert openreg.load(io.BytesIO(buf.getvalue()), weights_only=False)["p"].x.tolist() == [1.0, 1.0]


# -- what openreg.save writes ----------------------------------------------------------------------------------------
def test_written_records_are_pytorchs():
    buf = io.BytesIO()
    t = openreg.arange(10.0)
    openreg.save({"a": t, "b": t[2:], "c": openreg.ones(3, dtype=openreg.int16)}, buf)
    zf = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    assert zf.namelist() == ["archive/data.pkl", "archive/.format_version", "archive/.storage_alignment",
                             "archive/byteorder", "archive/data/0", "archive/data/1", "archive/version",
                             "archive/.data/serialization_id"]
    assert zf.testzip() is None         # every CRC32 matches
    assert zf.read("archive/version") == b"3\n" and zf.read("archive/byteorder") == b"little"
    assert zf.read("archive/.format_version") == b"1" and zf.read("archive/.storage_alignment") == b"64"
    for info in zf.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        assert serialization._zip.data_offset(zf, info) % 64 == 0
    pkl = zf.read("archive/data.pkl")
    assert b"ctorch._utils\n_rebuild_tensor_v2\n" in pkl and b"ctorch\nFloatStorage\n" in pkl
    assert b"ctorch\nShortStorage\n" in pkl and b"openreg" not in pkl


def test_zip64_records_read_back():
    buf = io.BytesIO()
    w = serialization._zip.ZipWriter(buf, force_zip64=True)
    w.write_record("archive/data/0", np.arange(100, dtype=np.uint8))
    w.write_record("archive/version", b"3\n")
    w.close()
    zf = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    assert zf.read("archive/data/0") == bytes(range(100)) and zf.testzip() is None
    assert serialization._zip.data_offset(zf, zf.getinfo("archive/data/0")) % 64 == 0


def _rewrite(data: bytes, change) -> bytes:
    """The checkpoint with its records passed through ``change(name, bytes) -> [(name, bytes), ...]``."""
    zf = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    w = serialization._zip.ZipWriter(out)
    for name in zf.namelist():
        for new_name, new_data in change(name, zf.read(name)):
            w.write_record(new_name, new_data)
    w.close()
    return out.getvalue()


def test_bad_files_raise_clear_errors(tmp_path):
    with open(fixture("torch_nested.pt"), "rb") as fh:
        good = fh.read()
    cases = {
        "newer.pt": (_rewrite(good, lambda n, b: [(n, b"99\n" if n.endswith("/version") else b)]),
                     RuntimeError, r"newer.pt.*record 'torch_nested/version' says format version '99'"),
        "unknown.pt": (_rewrite(good, lambda n, b: [(n, b)] + ([("torch_nested/new_thing.bin", b"x")]
                                                               if n.endswith("byteorder") else [])),
                       RuntimeError, r"unknown.pt.*unknown record 'torch_nested/new_thing.bin'"),
        "short.pt": (_rewrite(good, lambda n, b: [(n, b[:-4] if n.endswith("data/0") else b)]),
                     RuntimeError, r"short.pt.*record 'torch_nested/data/0' holds \d+ bytes"),
        "missing.pt": (_rewrite(good, lambda n, b: [] if n.endswith("data/1") else [(n, b)]),
                       RuntimeError, r"missing.pt.*record 'torch_nested/data/1' is missing"),
        "truncated.pt": (good[:len(good) // 2], RuntimeError, r"failed finding central directory.*truncated.pt"),
        "garbage.pt": (b"\x00" * 100, RuntimeError, r"Invalid magic number.*garbage.pt"),
        # a pickle asking for a memo slot of 2**31 (CPython would allocate the table): refused before unpickling
        "memo.pt": (b"\x80\x02r\xff\xff\xff\x7f" + b"\x00" * 60, RuntimeError, r"Invalid magic number.*memo.pt"),
    }
    for fname, (data, exc, pattern) in cases.items():
        path = tmp_path / fname
        path.write_bytes(data)
        with pytest.raises(exc, match=pattern):
            openreg.load(path)


def test_truncated_and_flipped_legacy_file():
    """The legacy format has no checksums: a flipped byte either raises RuntimeError / UnpicklingError or loads
    tensors that stay inside their storages; a truncated file always raises."""
    with open(fixture("torch_nested_legacy.pt"), "rb") as fh:
        good = fh.read()
    rng = np.random.default_rng(5)
    for cut in sorted(set(rng.integers(1, len(good), 40).tolist())):
        with pytest.raises((RuntimeError, pickle.UnpicklingError), match="BytesIO"):
            openreg.load(io.BytesIO(good[:cut]))
    for off in rng.integers(0, len(good), 200):
        bad = bytearray(good)
        bad[off] ^= int(rng.integers(1, 256))
        try:
            d = openreg.load(io.BytesIO(bytes(bad)))
        except (RuntimeError, pickle.UnpicklingError):
            continue
        if isinstance(d, dict) and isinstance(d.get("base"), openreg.Tensor):
            d["base"].sum()


def test_saving_one_storage_as_two_dtypes_raises_as_pytorch():
    t = openreg.zeros(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        openreg.save([t, t.view(openreg.int32)], io.BytesIO())


# -- differential: PyTorch reads openreg's files and openreg reads PyTorch's --------------------------------------
def _torch():
    return pytest.importorskip("torch", reason="differential test against PyTorch")


def _openreg_sample():
    base = openreg.arange(24.0).view(4, 6)
    every = OrderedDict((n, (openreg.arange(6) - 2).to(getattr(openreg, n))) for n in DTYPES)
    return {"dtypes": every, "base": base, "row": base[1], "col_t": base.t()[2:4],
            "strided": base.as_strided((2, 3), (5, 2), 3), "param": openreg.nn.Parameter(openreg.ones(2, 2)),
            "grad": openreg.tensor([1.0, 2.0], requires_grad=True), "meta": openreg.empty(2, 3, device="meta"),
            "q": openreg.quantize_per_tensor(openreg.tensor([0.5, -1.0, 2.0]), 0.25, 3, openreg.qint8),
            "values": [openreg.Size([2, 3]), openreg.device("cpu"), openreg.float16, b"ab", {"k": (1, 2.5)}],
            "storage": openreg.arange(4, dtype=openreg.uint8).untyped_storage()}


def _assert_same(tt, ot):
    torch = _torch()
    assert str(tt.dtype) == f"torch.{ot.dtype.name}"
    assert tuple(tt.shape) == tuple(ot.shape) and tuple(tt.stride()) == tuple(ot.stride())
    assert tt.storage_offset() == ot.storage_offset()
    conv = tt.float() if tt.dtype == torch.bfloat16 else tt
    np.testing.assert_array_equal(conv.numpy(), _values(ot))


def test_torch_loads_openreg_checkpoint(tmp_path):
    torch = _torch()
    sample = _openreg_sample()
    path = tmp_path / "or.pt"
    openreg.save(sample, path)
    for mmap in (False, True):
        d = torch.load(path, weights_only=True, mmap=mmap)
        for name, t in sample["dtypes"].items():
            _assert_same(d["dtypes"][name], t)
        for k in ("base", "row", "col_t", "strided"):
            _assert_same(d[k], sample[k])
        assert d["row"].untyped_storage().data_ptr() == d["base"].untyped_storage().data_ptr()
    assert type(d["param"]) is torch.nn.Parameter and d["grad"].requires_grad
    assert d["meta"].is_meta and d["q"].q_scale() == 0.25 and d["q"].int_repr().tolist() == [5, -1, 11]
    assert d["values"] == [torch.Size([2, 3]), torch.device("cpu"), torch.float16, b"ab", {"k": (1, 2.5)}]
    assert bytes(d["storage"]) == bytes([0, 1, 2, 3])
    assert d["dtypes"]["bfloat16"].dtype == torch.bfloat16


@needs_device
def test_torch_loads_openreg_device_tensors_with_map_location_cpu(tmp_path):
    torch = _torch()
    path = tmp_path / "dev.pt"
    t = openreg.arange(6.0).to("privateuseone:0")
    openreg.utils.set_tensor_metadata(t, {"format": 2})
    openreg.save({"t": t, "v": t[2:]}, path)
    d = torch.load(path, weights_only=True, map_location="cpu")
    assert d["t"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and d["v"].storage_offset() == 2
    with pytest.raises(RuntimeError):          # a CPU-only PyTorch cannot place a privateuseone storage
        torch.load(path, weights_only=True)
    back = openreg.load(path)
    assert back["t"].device == openreg.device("privateuseone:0")
    assert openreg.utils.get_tensor_metadata(back["t"]) == {"format": 2}


def test_openreg_loads_live_torch_checkpoint(tmp_path):
    torch = _torch()
    g = torch.Generator().manual_seed(3)
    src = OrderedDict((n, (torch.randn(3, 5, generator=g) * 4).to(getattr(torch, n))) for n in DTYPES)
    src["view"] = src["float32"].t()[1:]
    for legacy in (False, True):
        path = tmp_path / f"t{legacy}.pt"
        torch.save(src, path, _use_new_zipfile_serialization=not legacy)
        d = openreg.load(path)
        for name, tt in src.items():
            _assert_same(tt, d[name])


def test_torch_model_state_dict_round_trip(tmp_path):
    torch = _torch()
    lin = torch.nn.Linear(3, 2)
    path = tmp_path / "lin.pt"
    torch.save(lin.state_dict(), path)
    mine = openreg.nn.Linear(3, 2)
    mine.load_state_dict(openreg.load(path))
    openreg.save(mine.state_dict(), path)
    lin2 = torch.nn.Linear(3, 2)
    lin2.load_state_dict(torch.load(path, weights_only=True))
    x = torch.randn(4, 3)
    np.testing.assert_allclose(lin2(x).detach().numpy(), lin(x).detach().numpy())
    np.testing.assert_allclose(mine(openreg.tensor(x.numpy())).detach().numpy(), lin(x).detach().numpy(),
                               rtol=1e-6, atol=1e-6)


def test_torch_dtype_openreg_lacks_is_named():
    out = io.BytesIO()
    w = serialization._zip.ZipWriter(out)
    w.write_record("archive/data.pkl", b"\x80\x02ctorch\nuint16\nq\x00.")
    w.write_record("archive/version", b"3\n")
    w.close()
    for weights_only in (True, False):
        with pytest.raises(pickle.UnpicklingError, match="dtype torch.uint16, which openreg does not have"):
            openreg.load(io.BytesIO(out.getvalue()), weights_only=weights_only)


def test_dtype_without_a_storage_class_is_saved_as_pytorch_saves_new_dtypes(monkeypatch, tmp_path):
    """Dtypes PyTorch has no typed-storage class for (uint16, float8, ...) go through _rebuild_tensor_v3 over an
    UntypedStorage; int16 stands in for one here."""
    from openreg.serialization import _torch_names
    monkeypatch.delitem(_torch_names._STORAGE_NAMES, "int16")
    t = openreg.arange(6, dtype=openreg.int16).view(2, 3)
    path = tmp_path / "v3.pt"
    openreg.save({"t": t, "row": t[1]}, path)
    pkl = zipfile.ZipFile(path).read("archive/data.pkl")
    assert b"_rebuild_tensor_v3" in pkl and b"ctorch.storage\nUntypedStorage\n" in pkl
    d = openreg.load(path, encoding="latin1")
    assert d["t"].dtype is openreg.int16 and d["row"].tolist() == [3, 4, 5]
    assert d["row"].untyped_storage() is d["t"].untyped_storage()
    try:
        import torch
    except ImportError:
        return
    assert torch.load(path, weights_only=True)["row"].tolist() == [3, 4, 5]


def test_torch_reads_zip64_checkpoints(monkeypatch, tmp_path):
    """Checkpoints past 4 GiB need zip64 records; forced on a small file, PyTorch and openreg read them."""
    torch = _torch()
    real_init = serialization._zip.ZipWriter.__init__
    monkeypatch.setattr(serialization._zip.ZipWriter, "__init__",
                        lambda self, f, force_zip64=False: real_init(self, f, force_zip64=True))
    path = tmp_path / "z64.pt"
    openreg.save({"a": openreg.arange(10.0), "b": openreg.ones(3, dtype=openreg.bfloat16)}, path)
    for mmap in (False, True):
        d = torch.load(path, weights_only=True, mmap=mmap)
        assert d["a"].tolist() == list(range(10)) and d["b"].dtype == torch.bfloat16
        assert openreg.load(path, mmap=mmap)["a"].tolist() == list(range(10))


def test_training_checkpoint_moves_between_torch_and_openreg():
    """Model and Adam state saved by PyTorch resume training in openreg (same next step), and back."""
    torch = _torch()
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 3)
    opt = torch.optim.Adam(lin.parameters(), lr=0.01)
    lin(torch.randn(3, 4)).sum().backward()
    opt.step()
    buf = io.BytesIO()
    torch.save({"model": lin.state_dict(), "opt": opt.state_dict()}, buf)
    ck = openreg.load(io.BytesIO(buf.getvalue()))
    mine = openreg.nn.Linear(4, 3)
    mine.load_state_dict(ck["model"])
    mine_opt = openreg.optim.Adam(mine.parameters(), lr=0.01)
    mine_opt.load_state_dict(ck["opt"])
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    opt.zero_grad()
    lin(torch.tensor(x)).sum().backward()
    opt.step()
    mine_opt.zero_grad()
    mine(openreg.tensor(x)).sum().backward()
    mine_opt.step()
    np.testing.assert_allclose(mine.weight.detach().numpy(), lin.weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    out = io.BytesIO()
    openreg.save({"model": mine.state_dict(), "opt": mine_opt.state_dict()}, out)
    back = torch.load(io.BytesIO(out.getvalue()), weights_only=True)
    lin.load_state_dict(back["model"])
    opt.load_state_dict(back["opt"])
    assert set(back["opt"]["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
