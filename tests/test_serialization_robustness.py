"""openreg.save / openreg.load under failure: atomic saves, an allow-list checked before any import, and
corrupted or truncated files that raise RuntimeError / UnpicklingError naming the file (fixed-seed fuzzing)."""
import io
import os
import pickle
import sys
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import openreg
from openreg import serialization

ALLOWED = (RuntimeError, pickle.UnpicklingError)


def _checkpoint():
    base = openreg.arange(12.0).view(3, 4)
    return {"w": base, "row": base[1], "b": openreg.tensor([1, 2, 3], dtype=openreg.int16),
            "h": openreg.tensor([1.5, -2.0], dtype=openreg.bfloat16), "step": 7, "name": "lin"}


def _saved_bytes(obj) -> bytes:
    buf = io.BytesIO()
    openreg.save(obj, buf)
    return buf.getvalue()


def _same(a, b) -> bool:
    if isinstance(a, openreg.Tensor):
        return (isinstance(b, openreg.Tensor) and a.dtype is b.dtype and a.shape == b.shape
                and np.array_equal(a.float().numpy(), b.float().numpy(), equal_nan=True))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


class _Explodes:
    def __reduce__(self):
        raise RuntimeError("boom while pickling")


def test_crc_mismatch_names_the_record():
    good = bytearray(_saved_bytes(_checkpoint()))
    zf = zipfile.ZipFile(io.BytesIO(bytes(good)))
    info = zf.getinfo("archive/data/0")
    good[serialization._zip.data_offset(zf, info) + 2] ^= 0x10
    with pytest.raises(RuntimeError, match="record 'archive/data/0' is corrupt.*CRC"):
        openreg.load(io.BytesIO(bytes(good)))


def test_failed_save_leaves_the_old_file_untouched(tmp_path):
    path = tmp_path / "ckpt.pt"
    openreg.save({"w": openreg.ones(3)}, path)
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="boom while pickling"):
        openreg.save({"w": openreg.zeros(1000), "bad": _Explodes()}, path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pt"]      # no temporary file left behind
    assert openreg.load(path)["w"].tolist() == [1.0, 1.0, 1.0]


def test_failed_save_to_a_new_path_creates_nothing(tmp_path):
    with pytest.raises(RuntimeError, match="boom"):
        openreg.save([_Explodes()], tmp_path / "new.pt")
    assert os.listdir(tmp_path) == []


def test_save_replaces_and_keeps_permissions(tmp_path):
    path = tmp_path / "ckpt.pt"
    openreg.save(openreg.ones(2), path)
    os.chmod(path, 0o640)
    openreg.save(openreg.zeros(2), str(path))
    assert openreg.load(path).tolist() == [0.0, 0.0]
    assert (os.stat(path).st_mode & 0o777) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pt"]


def _global_pickle(module: str, name: str) -> bytes:
    return b"\x80\x02c" + module.encode() + b"\n" + name.encode() + b"\n)R."


def _file_with_pickle(payload: bytes, like: bytes | None = None) -> bytes:
    """A checkpoint whose data.pkl record is ``payload`` (valid CRC32, to reach the unpickler); the other records
    are copied from the checkpoint ``like``."""
    out = io.BytesIO()
    writer = serialization._zip.ZipWriter(out)
    writer.write_record("archive/data.pkl", payload)
    if like is not None:
        zf = zipfile.ZipFile(io.BytesIO(like))
        for name in zf.namelist():
            if not name.endswith("data.pkl"):
                writer.write_record(name, zf.read(name))
    writer.close()
    return out.getvalue()


def test_allow_list_is_checked_before_any_import(tmp_path, monkeypatch):
    (tmp_path / "openreg_probe_module.py").write_text("import sys\nsys.IMPORTED_PROBE = True\ndef f(): pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in ("openreg_probe_module", "openreg.not_a_module_xyz"):
        data = _file_with_pickle(_global_pickle(module, "f"))
        with pytest.raises(pickle.UnpicklingError, match=f"Weights only load failed.*{module}.f"):
            openreg.load(io.BytesIO(data))
        assert module not in sys.modules
    assert not hasattr(sys, "IMPORTED_PROBE")


def test_errors_name_the_file(tmp_path):
    path = tmp_path / "ckpt.pt"
    path.write_bytes(_saved_bytes(_checkpoint())[:-5])
    with pytest.raises(RuntimeError, match="ckpt.pt"):
        openreg.load(path)


def _record_spans(data: bytes) -> list[tuple[int, int]]:
    """Where each record's bytes lie in a checkpoint (what its CRC32 covers)."""
    zf = zipfile.ZipFile(io.BytesIO(data))
    return [(start, start + i.file_size) for i in zf.infolist()
            for start in [serialization._zip.data_offset(zf, i)]]


def test_flipped_and_truncated_bytes_raise_clear_errors():
    """Flipped bytes inside any record are caught by its CRC32; flips anywhere else (headers, padding, central
    directory) either raise RuntimeError / UnpicklingError or leave the content intact; so do truncations."""
    good = _saved_bytes(_checkpoint())
    spans = _record_spans(good)
    expected = _checkpoint()
    rng = np.random.default_rng(1234)
    offsets = sorted(set(rng.integers(0, len(good), 300).tolist()) | {0, 3, 30, len(good) - 1}
                     | {a for a, _ in spans} | {b - 1 for _, b in spans})
    for off in offsets:
        bad = bytearray(good)
        bad[off] ^= int(rng.integers(1, 256))
        if any(a <= off < b for a, b in spans):
            with pytest.raises(ALLOWED, match="ckpt|BytesIO"):
                openreg.load(io.BytesIO(bytes(bad)))
            continue
        try:
            out = openreg.load(io.BytesIO(bytes(bad)))
        except ALLOWED:
            continue
        assert _same(expected, out), off
    for cut in sorted(set(rng.integers(0, len(good), 60).tolist()) | {0, 1, len(good) - 1}):
        with pytest.raises(ALLOWED):
            openreg.load(io.BytesIO(good[:cut]))


def test_corrupted_data_record_never_escapes_other_error_types():
    """Bytes flipped *inside* the data record with its integrity data recomputed reach the unpickler: it either
    loads (a harmless change) or raises RuntimeError / UnpicklingError; never KeyError, AttributeError,
    ModuleNotFoundError, ... and never a crash (bounds are checked before a tensor is built)."""
    good = _saved_bytes(_checkpoint())
    payload = zipfile.ZipFile(io.BytesIO(good)).read("archive/data.pkl")
    rng = np.random.default_rng(99)
    for _ in range(400):
        bad = bytearray(payload)
        for off in rng.integers(0, len(bad), int(rng.integers(1, 4))):
            bad[off] = int(rng.integers(0, 256))
        try:
            out = openreg.load(io.BytesIO(_file_with_pickle(bytes(bad), good)))
        except ALLOWED:
            continue
        if isinstance(out, dict):       # loaded: its tensors must be readable
            for v in out.values():
                if isinstance(v, openreg.Tensor):
                    v.float().numpy()
    for cut in range(0, len(payload), 7):
        with pytest.raises(ALLOWED):
            openreg.load(io.BytesIO(_file_with_pickle(payload[:cut], good)))


class _CraftedTensor:
    """Pickles as a tensor record with the given geometry over an 8-element float32 storage."""

    def __init__(self, offset, size, stride):
        self.geometry = offset, size, stride

    def __reduce__(self):
        from openreg.serialization import _rebuild
        storage = _rebuild.TypedStorage(openreg.zeros(8).untyped_storage(), openreg.float32)
        return (_rebuild._rebuild_tensor_v2, (storage, *self.geometry, False, OrderedDict()))


_OOB = "requiring a storage size of {} are out of bounds for storage of size 32"


@pytest.mark.parametrize("geometry,error", [((0, (2,), (2**60 - 1,)), _OOB.format(2**62)), ((1, (8,), (1,)), _OOB.format(36)),
                                           # needing 2**82 bytes: more than int64 counts, PyTorch's overflow error
                                           ((0, (2**40, 2**40), (2**40, 1)), "Storage size calculation overflowed")])
def test_tensor_record_out_of_bounds_of_its_storage(tmp_path, geometry, error):
    path = tmp_path / "crafted.pt"
    openreg.save({"t": _CraftedTensor(*geometry)}, path)
    with pytest.raises(RuntimeError, match=f"crafted.pt.*{error}"):
        openreg.load(path)
    openreg.save({"t": _CraftedTensor(4, (2, 2), (2, 1))}, path)
    assert openreg.load(path)["t"].shape == (2, 2)
