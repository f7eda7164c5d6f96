"""The zip container of PyTorch checkpoints: uncompressed records whose data start on 64-byte boundaries.

The writer lays records out as PyTorch's ``PyTorchStreamWriter`` does (padding in an ``FB`` extra field, CRC32 per
record, zip64 when sizes or offsets need it), so ``torch.load`` and any zip tool read the result. Reading goes
through :mod:`zipfile` (which checks each record's CRC32); ``data_offset`` locates a record's bytes for ``mmap``.

>>> import io
>>> buf = io.BytesIO()
>>> w = ZipWriter(buf)
>>> w.write_record("archive/version", b"3\\n")
>>> w.close()
>>> import zipfile
>>> zipfile.ZipFile(buf).read("archive/version")
b'3\\n'
"""
from __future__ import annotations

import struct
import zipfile
import zlib

ALIGNMENT = 64
_LOCAL = struct.Struct("<IHHHHHIIIHH")          # local file header (30 bytes)
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")  # central directory entry (46 bytes)
_END = struct.Struct("<IHHHHIIH")               # end of central directory (22 bytes)
_END64 = struct.Struct("<IQHHIIQQQQ")           # zip64 end of central directory (56 bytes)
_LOCATOR64 = struct.Struct("<IIQI")             # zip64 end of central directory locator (20 bytes)
_U32 = 0xFFFFFFFF
_DATE = (0 << 9) | (1 << 5) | 1                 # 1980-01-01, the zip epoch (reproducible files)


class ZipWriter:
    """Append uncompressed, aligned records to a binary stream; ``close()`` writes the central directory."""

    def __init__(self, f, *, force_zip64: bool = False):
        self._f = f
        try:
            self._pos = f.tell()
        except (AttributeError, OSError):
            self._pos = 0
        self._entries: list[tuple[bytes, int, int, int]] = []   # name, crc, size, header offset
        self._force_zip64 = force_zip64

    def _write(self, data) -> None:
        self._f.write(data)
        self._pos += memoryview(data).nbytes

    def write_record(self, name: str, data) -> None:
        """Write one record; ``data`` is any bytes-like object (a NumPy uint8 array works without a copy)."""
        view = memoryview(data).cast("B")
        size, crc = view.nbytes, zlib.crc32(view)
        raw = name.encode("utf-8")
        zip64 = self._force_zip64 or size >= _U32
        extra = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        start = self._pos + _LOCAL.size + len(raw) + len(extra)
        pad = -(start + 4) % ALIGNMENT      # the FB field's own 4-byte header counts too
        extra += struct.pack("<HH", 0x4246, pad) + b"Z" * pad
        stored = _U32 if zip64 else size
        offset = self._pos
        self._write(_LOCAL.pack(0x04034B50, 45 if zip64 else 20, 0, 0, 0, _DATE, crc, stored, stored,
                                len(raw), len(extra)) + raw + extra)
        self._write(view)
        self._entries.append((raw, crc, size, offset))

    def close(self) -> None:
        """Write the central directory (zip64 records when needed) and flush."""
        cd_start = self._pos
        need64 = self._force_zip64 or len(self._entries) >= 0xFFFF
        for raw, crc, size, offset in self._entries:
            big_size, big_offset = self._force_zip64 or size >= _U32, self._force_zip64 or offset >= _U32
            fields = ([size, size] if big_size else []) + ([offset] if big_offset else [])
            extra = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields) if fields else b""
            need64 |= bool(fields)
            self._write(_CENTRAL.pack(0x02014B50, 45 if fields else 20, 45 if fields else 20, 0, 0, 0, _DATE,
                                      crc, _U32 if big_size else size, _U32 if big_size else size, len(raw),
                                      len(extra), 0, 0, 0, 0, _U32 if big_offset else offset) + raw + extra)
        cd_size, count = self._pos - cd_start, len(self._entries)
        need64 |= cd_start >= _U32 or cd_size >= _U32
        if need64:
            end64 = self._pos
            self._write(_END64.pack(0x06064B50, 44, 45, 45, 0, 0, count, count, cd_size, cd_start))
            self._write(_LOCATOR64.pack(0x07064B50, 0, end64, 1))
            self._write(_END.pack(0x06054B50, 0, 0, 0xFFFF, 0xFFFF, _U32, _U32, 0))
        else:
            self._write(_END.pack(0x06054B50, 0, 0, count, count, cd_size, cd_start, 0))
        if hasattr(self._f, "flush"):
            self._f.flush()


def is_zip(f) -> bool:
    """Whether the stream starts with a zip local-file header (PyTorch's test; the position is kept)."""
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"


def data_offset(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> int:
    """Where a stored record's bytes start in the file (after its local header and extra field)."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise RuntimeError(f"record {info.filename} is compressed; only uncompressed records can be mapped")
    fp = zf.fp
    fp.seek(info.header_offset)
    header = fp.read(_LOCAL.size)
    if len(header) != _LOCAL.size or header[:4] != b"PK\x03\x04":
        raise RuntimeError(f"record {info.filename} has a bad local header")
    fields = _LOCAL.unpack(header)
    return info.header_offset + _LOCAL.size + fields[9] + fields[10]
