"""safetensors files for openreg tensors, through the ``safetensors`` package (``pip install 'openreg[safetensors]'``).

``save_file`` / ``load_file`` / ``safe_open`` as ``safetensors.torch`` has them, with openreg devices: ``safe_open``
reads a file's header once and each tensor only when asked (``get_tensor``, ``get_slice``), straight onto
``device``. The package parses and validates every header (offsets that lie raise an error naming the file); the
tensor bytes are then read from a memory map of the file. bfloat16 is stored as safetensors' ``BF16`` (openreg keeps
its raw 16 bits, which is exactly that encoding). Files interchange with ``safetensors.torch``.

>>> import os, tempfile, openreg
>>> from openreg.utils import safetensors as st
>>> path = os.path.join(tempfile.mkdtemp(), "m.safetensors")
>>> st.save_file({"w": openreg.ones(2, 3), "h": openreg.tensor([1.5], dtype=openreg.bfloat16)}, path,
...              metadata={"format": "pt"})
>>> with st.safe_open(path, framework="pt") as f:
...     sorted(f.keys()), f.metadata(), f.get_slice("w")[:, 1:].shape
(['h', 'w'], {'format': 'pt'}, openreg.Size([2, 2]))
>>> st.load_file(path)["h"].tolist()
[1.5]
"""
from __future__ import annotations

import itertools
import json
import os
import struct
from typing import Any

import numpy as np

from .. import dtypes
from ..devices import device as Device
from ..tensor import Tensor

__all__ = ["load", "load_file", "safe_open", "save", "save_file"]

# safetensors' dtype codes and the openreg dtypes they hold (float8 ones only when openreg has them).
_CODES = {"BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64",
          "F16": "float16", "BF16": "bfloat16", "F32": "float32", "F64": "float64", "C64": "complex64",
          "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2", "F8_E4M3FNUZ": "float8_e4m3fnuz",
          "F8_E5M2FNUZ": "float8_e5m2fnuz"}


def _package():
    try:
        import safetensors
    except ImportError:
        raise ImportError("openreg.utils.safetensors needs the 'safetensors' package: "
                          "pip install 'openreg[safetensors]' (or pip install safetensors)") from None
    return safetensors


def _dtype_of(code: str, where: str):
    d = getattr(dtypes, _CODES.get(code, ""), None)
    if not isinstance(d, dtypes.dtype):
        raise TypeError(f"{where}: safetensors dtype {code} has no openreg dtype")
    return d


# -- saving ------------------------------------------------------------------------------------------------------
def _specs(tensors: dict[str, Tensor]) -> tuple[dict, list]:
    """TensorSpecs over contiguous host copies (kept alive in the returned list while the package writes)."""
    st = _package()
    if not isinstance(tensors, dict):
        raise TypeError(f"expected a dict of [str, openreg.Tensor], got {type(tensors).__name__}")
    _refuse_shared(tensors)
    specs, alive = {}, []
    for name, t in tensors.items():
        if not isinstance(name, str) or not isinstance(t, Tensor):
            raise TypeError(f"expected a dict of [str, openreg.Tensor] but {name!r} is {type(t).__name__}")
        if t.is_meta or t.is_quantized:
            raise ValueError(f"safetensors cannot hold {name!r}: a {'meta' if t.is_meta else 'quantized'} tensor")
        if t.dtype.name not in _CODES.values():
            raise ValueError(f"safetensors has no dtype for {name!r} ({t.dtype})")
        host = np.ascontiguousarray(t.detach().contiguous().cpu()._array())
        if host.dtype.byteorder == ">":
            host = host.astype(host.dtype.newbyteorder("<"))
        alive.append(host)
        specs[name] = st.TensorSpec(dtype=t.dtype.name, shape=list(t.shape), data_ptr=host.ctypes.data,
                                    data_len=host.nbytes)
    return specs, alive


def _refuse_shared(tensors: dict) -> None:
    """As safetensors.torch: tensors whose memory overlaps cannot be saved (they would be duplicated on disk)."""
    spans: dict[int, list] = {}
    for name, t in tensors.items():
        if isinstance(t, Tensor) and not t.is_meta and t.numel():
            start = t.storage_offset() * t.element_size()
            end = start + (1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))) * t.element_size()
            spans.setdefault(id(t.untyped_storage()), []).append((start, end, name))
    for group in spans.values():
        group.sort()
        for (_, end, a), (start, _, b) in itertools.pairwise(group):
            if start < end:
                raise RuntimeError(f"Some tensors share memory, this will lead to duplicate memory on disk and "
                                   f"potential differences when loading them again: [{{{a!r}, {b!r}}}]. "
                                   f"Save clones (t.clone()) instead.")


def _check_metadata(metadata) -> None:
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise TypeError("safetensors metadata must be a dict of str to str")


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors bytes of ``tensors`` (any device; written from host copies).

    >>> import openreg
    >>> from openreg.utils.safetensors import load, save
    >>> load(save({"x": openreg.arange(3)}))["x"].tolist()
    [0, 1, 2]
    """
    _check_metadata(metadata)
    specs, alive = _specs(tensors)
    data = bytes(_package().serialize(specs, metadata=metadata))
    del alive
    return data


def save_file(tensors: dict[str, Tensor], filename: str | os.PathLike, metadata: dict[str, str] | None = None) -> None:
    """Write ``tensors`` (a dict of names to tensors that do not overlap) to a safetensors file."""
    _check_metadata(metadata)
    specs, alive = _specs(tensors)
    _package().serialize_file(specs, os.fspath(filename), metadata=metadata)
    del alive


# -- loading -----------------------------------------------------------------------------------------------------
def _to_device(arr: np.ndarray, dtype, device) -> Tensor:
    t = Tensor._from_array(np.array(arr, dtype=dtype.numpy, copy=True), dtype)
    return t if _is_cpu(device) else t.to(device)


def _is_cpu(device) -> bool:
    return device is None or (isinstance(device, (str, Device)) and Device(device).type == "cpu")


def load(data: bytes, device: Any = "cpu") -> dict[str, Tensor]:
    """The tensors of safetensors ``data`` (bytes), on ``device``."""
    out = {}
    package = _package()
    try:
        entries = package.deserialize(bytes(data))
    except package.SafetensorError as e:
        raise RuntimeError(f"safetensors load: invalid data ({e})") from None
    for name, info in entries:
        dtype = _dtype_of(info["dtype"], f"tensor {name!r}")
        arr = np.frombuffer(info["data"], dtype=dtype.numpy).reshape(info["shape"])
        out[name] = _to_device(arr, dtype, device)
    return out


def load_file(filename: str | os.PathLike, device: Any = "cpu") -> dict[str, Tensor]:
    """Every tensor of a safetensors file, on ``device`` (``"cpu"``, ``"privateuseone:0"``, an index, ...)."""
    with safe_open(filename, framework="pt", device=device) as f:
        return {name: f.get_tensor(name) for name in f.offset_keys()}


class safe_open:
    """A safetensors file opened lazily: the header now, each tensor when asked, straight onto ``device``.

    ``framework`` is ``"pt"``/``"openreg"`` (openreg tensors) or ``"numpy"``/``"np"`` (NumPy arrays, exactly as the
    package's own ``safe_open`` gives them).
    """

    def __init__(self, filename: str | os.PathLike, framework: str = "pt", device: Any = "cpu"):
        if framework not in ("pt", "openreg", "numpy", "np"):
            raise ValueError(f"safe_open: framework must be 'pt', 'openreg' or 'numpy', got {framework!r}")
        self._name = os.fspath(filename)
        self._framework = framework
        self._device = None if _is_cpu(device) else device
        package = _package()
        try:
            self._handle = package.safe_open(self._name, framework="numpy")
        except package.SafetensorError as e:      # the package refuses a header that lies (offsets, sizes, JSON)
            raise RuntimeError(f"safetensors: cannot open {self._name!r}: {e}") from None
        self._entries, self._data_start = self._read_header()
        self._map = None

    def _read_header(self) -> tuple[dict, int]:
        """The header's entries (already validated by the package) and where the data section starts."""
        with open(self._name, "rb") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(n))
        header.pop("__metadata__", None)
        size = os.path.getsize(self._name)
        for name, info in header.items():
            begin, end = info["data_offsets"]
            d = _dtype_of(info["dtype"], f"{self._name!r}, tensor {name!r}")
            need = int(np.prod(info["shape"], dtype=object)) * d.itemsize
            if end - begin != need or 8 + n + end > size:
                raise RuntimeError(f"safetensors: {self._name!r}, tensor {name!r}: data_offsets {begin}..{end} do "
                                   f"not hold its {need} bytes inside the file")
        return header, 8 + n

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._map = None
        self._handle.__exit__(*exc)

    def keys(self) -> list[str]:
        """Tensor names, sorted."""
        return sorted(self._entries)

    def offset_keys(self) -> list[str]:
        """Tensor names in file order."""
        return sorted(self._entries, key=lambda k: self._entries[k]["data_offsets"][0])

    def metadata(self) -> dict[str, str] | None:
        return self._handle.metadata()

    def _array(self, name: str) -> tuple[np.ndarray, Any]:
        info = self._entries.get(name)
        if info is None:
            raise KeyError(f"File does not contain tensor {name}")   # the package's error type and message
        d = _dtype_of(info["dtype"], f"{self._name!r}, tensor {name!r}")
        if self._map is None:
            self._map = np.memmap(self._name, dtype=np.uint8, mode="r")
        begin, end = info["data_offsets"]
        raw = self._map[self._data_start + begin:self._data_start + end]
        return raw.view(d.numpy).reshape(info["shape"]), d

    def get_tensor(self, name: str):
        """One tensor, read from the file now."""
        if self._framework in ("numpy", "np"):
            return self._handle.get_tensor(name)
        arr, d = self._array(name)
        return _to_device(arr, d, self._device)

    def get_slice(self, name: str) -> _Slice:
        """A handle whose ``[...]`` reads only the selected part (basic slicing, as safetensors')."""
        if self._framework in ("numpy", "np"):
            return self._handle.get_slice(name)
        return _Slice(self, name)


class _Slice:
    def __init__(self, owner: safe_open, name: str):
        self._owner, self._name = owner, name
        self._arr, self._dtype = owner._array(name)

    def get_shape(self) -> list[int]:
        return list(self._arr.shape)

    def get_dtype(self) -> str:
        return self._owner._entries[self._name]["dtype"]

    def __getitem__(self, index) -> Tensor:
        if not isinstance(index, tuple):
            index = (index,)
        if not all(isinstance(i, (int, slice)) or i is Ellipsis for i in index):
            raise TypeError("get_slice()[...] takes ints, slices and ..., as safetensors' slices do")
        return _to_device(self._arr[index], self._dtype, self._owner._device)
