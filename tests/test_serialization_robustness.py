"""openreg.save / openreg.load under failure: atomic saves, an allow-list checked before any import, and
corrupted or truncated files that raise RuntimeError / UnpicklingError naming the file (fixed-seed fuzzing)."""
import io
import os
import pickle
import sys

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


def _file_with_pickle(payload: bytes) -> bytes:
    """A file whose data record is ``payload`` with valid integrity data (to reach the unpickler)."""
    return serialization._MAGIC + serialization._HEADER.pack(len(payload), serialization.zlib.crc32(payload)) \
        + payload


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


def test_flipped_and_truncated_bytes_raise_clear_errors():
    """Every single-byte flip and truncation is detected (integrity data) with an allowed error type."""
    good = _saved_bytes(_checkpoint())
    rng = np.random.default_rng(1234)
    offsets = sorted(set(rng.integers(0, len(good), 150).tolist()) | {0, 7, 8, 15, 19, len(good) - 1})
    for off in offsets:
        bad = bytearray(good)
        bad[off] ^= int(rng.integers(1, 256))
        with pytest.raises(ALLOWED):
            openreg.load(io.BytesIO(bytes(bad)))
    for cut in sorted(set(rng.integers(0, len(good), 60).tolist()) | {0, 1, len(good) - 1}):
        with pytest.raises(ALLOWED):
            openreg.load(io.BytesIO(good[:cut]))


def test_corrupted_data_record_never_escapes_other_error_types():
    """Bytes flipped *inside* the data record with its integrity data recomputed reach the unpickler: it either
    loads (a harmless change) or raises RuntimeError / UnpicklingError; never KeyError, AttributeError,
    ModuleNotFoundError, ... and never a crash (bounds are checked before a tensor is built)."""
    payload = serialization._read_payload(io.BytesIO(_saved_bytes(_checkpoint())), "<mem>")
    rng = np.random.default_rng(99)
    for _ in range(400):
        bad = bytearray(payload)
        for off in rng.integers(0, len(bad), int(rng.integers(1, 4))):
            bad[off] = int(rng.integers(0, 256))
        try:
            out = openreg.load(io.BytesIO(_file_with_pickle(bytes(bad))))
        except ALLOWED:
            continue
        if isinstance(out, dict):       # loaded: its tensors must be readable
            for v in out.values():
                if isinstance(v, openreg.Tensor):
                    v.float().numpy()
    for cut in range(0, len(payload), 7):
        with pytest.raises(ALLOWED):
            openreg.load(io.BytesIO(_file_with_pickle(payload[:cut])))


def test_tensor_record_out_of_bounds_of_its_storage():
    t = openreg.zeros(8)            # 32 bytes
    storage = t.untyped_storage()
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 32"):
        serialization._rebuild_tensor(storage, 0, (2,), (2**60 - 1,), openreg.float32, False, None, None)
    with pytest.raises(RuntimeError, match="requiring a storage size of 36"):
        serialization._rebuild_tensor(storage, 1, (8,), (1,), openreg.float32, False, None, None)
    ok = serialization._rebuild_tensor(storage, 4, (2, 2), (2, 1), openreg.float32, False, None, None)
    assert ok.shape == (2, 2)
