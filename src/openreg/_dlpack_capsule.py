"""DLPack capsules made and read in Python (ctypes): the DLPack 1.x structures, a producer of legacy
(``"dltensor"``) and versioned (``"dltensor_versioned"``) capsules over any memory, and a reader of both.

openreg makes its own capsules, rather than NumPy's or CuPy's, because theirs cannot carry bfloat16 or float8
(``kDLBfloat``, ``kDLFloat8_*``) and cannot set the ``IS_COPIED`` flag. A produced capsule keeps its owner (the
tensor's memory) alive until the consumer calls the deleter, or until the capsule itself is collected unconsumed.

>>> import numpy as np
>>> a = np.arange(3.0)
>>> cap = make_capsule(a.ctypes.data, (1, 0), (3,), (1,), DTYPE_CODES["float64"], owner=a, versioned=True)
>>> capsule_name(cap), read_capsule(cap).shape
('dltensor_versioned', (3,))
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

c = ctypes


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c.c_int32), ("device_id", c.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", c.c_uint8), ("bits", c.c_uint8), ("lanes", c.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", c.c_void_p), ("device", DLDevice), ("ndim", c.c_int32), ("dtype", DLDataType),
                ("shape", c.POINTER(c.c_int64)), ("strides", c.POINTER(c.c_int64)), ("byte_offset", c.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c.c_void_p), ("deleter", c.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", c.c_uint32), ("minor", c.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", c.c_void_p), ("deleter", c.c_void_p),
                ("flags", c.c_uint64), ("dl_tensor", DLTensor)]


# The version of the structures produced here: 1.1 added the float8 type codes.
VERSION = (1, 1)
FLAG_READ_ONLY, FLAG_IS_COPIED = 1, 2
LEGACY, VERSIONED = b"dltensor", b"dltensor_versioned"

# openreg dtype name -> DLPack (type code, bits).
DTYPE_CODES = {"bool": (6, 8), "uint8": (1, 8), "int8": (0, 8), "int16": (0, 16), "int32": (0, 32),
               "int64": (0, 64), "float16": (2, 16), "float32": (2, 32), "float64": (2, 64),
               "complex64": (5, 64), "complex128": (5, 128), "bfloat16": (4, 16), "float8_e4m3fn": (10, 8),
               "float8_e4m3fnuz": (11, 8), "float8_e5m2": (12, 8), "float8_e5m2fnuz": (13, 8)}
DTYPE_BY_CODE = {v: k for k, v in DTYPE_CODES.items()}
CODE_NAMES = {0: "kDLInt", 1: "kDLUInt", 2: "kDLFloat", 3: "kDLOpaqueHandle", 4: "kDLBfloat", 5: "kDLComplex",
               6: "kDLBool", 7: "kDLFloat8_e3m4", 8: "kDLFloat8_e4m3", 9: "kDLFloat8_e4m3b11fnuz",
               10: "kDLFloat8_e4m3fn", 11: "kDLFloat8_e4m3fnuz", 12: "kDLFloat8_e5m2", 13: "kDLFloat8_e5m2fnuz",
               14: "kDLFloat8_e8m0fnu", 15: "kDLFloat6_e2m3fn", 16: "kDLFloat6_e3m2fn", 17: "kDLFloat4_e2m1fn"}


def dtype_text(code: int, bits: int, lanes: int = 1) -> str:
    """``kDLFloat8_e4m3fn (code 10), 8 bits`` for error messages."""
    text = f"{CODE_NAMES.get(code, 'unknown type')} (code {code}), {bits} bits"
    return text if lanes == 1 else f"{text}, {lanes} lanes"


# -- the C API, through private prototypes (never the shared ctypes.pythonapi objects' argtypes) --------------
_api = c.pythonapi
_capsule_new = c.PYFUNCTYPE(c.py_object, c.c_void_p, c.c_char_p, c.c_void_p)(("PyCapsule_New", _api))
_capsule_is_valid = c.PYFUNCTYPE(c.c_int, c.py_object, c.c_char_p)(("PyCapsule_IsValid", _api))
_capsule_pointer = c.PYFUNCTYPE(c.c_void_p, c.py_object, c.c_char_p)(("PyCapsule_GetPointer", _api))
_capsule_set_name = c.PYFUNCTYPE(c.c_int, c.py_object, c.c_char_p)(("PyCapsule_SetName", _api))
_capsule_get_name = c.PYFUNCTYPE(c.c_char_p, c.py_object)(("PyCapsule_GetName", _api))
# The capsule destructor receives the dying capsule: only raw pointers may touch it.
_raw_is_valid = c.PYFUNCTYPE(c.c_int, c.c_void_p, c.c_char_p)(("PyCapsule_IsValid", _api))
_raw_pointer = c.PYFUNCTYPE(c.c_void_p, c.c_void_p, c.c_char_p)(("PyCapsule_GetPointer", _api))

# Capsule names must outlive the capsules: module-level buffers.
_NAMES = {n: c.create_string_buffer(n) for n in (LEGACY, VERSIONED, b"used_dltensor", b"used_dltensor_versioned")}

_DELETER = c.CFUNCTYPE(None, c.c_void_p)
_DESTRUCTOR = c.CFUNCTYPE(None, c.c_void_p)

# Managed tensors handed out and not deleted yet: address -> (structure, shape, strides, owner).
_live: dict[int, tuple] = {}


@_DELETER
def _delete(address):
    """The deleter a consumer calls when done (any thread: ctypes takes the GIL)."""
    _live.pop(address, None)


@_DESTRUCTOR
def _capsule_destructor(capsule):
    """An unconsumed capsule going away deletes its managed tensor; a consumed one belongs to the consumer."""
    try:
        for name in (LEGACY, VERSIONED):
            if _raw_is_valid(capsule, _NAMES[name]):
                _live.pop(_raw_pointer(capsule, _NAMES[name]), None)
    except Exception:  # noqa: BLE001,S110 - at interpreter shutdown the module may be half torn down
        pass


_DELETE_ADDRESS = c.cast(_delete, c.c_void_p).value
_DESTRUCTOR_ADDRESS = c.cast(_capsule_destructor, c.c_void_p).value


def make_capsule(data: int, device: tuple[int, int], shape: tuple, strides: tuple, code: tuple[int, int], *,
                 owner: Any, versioned: bool, flags: int = 0) -> Any:
    """A DLPack capsule describing ``data`` (element strides), keeping ``owner`` alive until deleted."""
    ndim = len(shape)
    shape_arr = (c.c_int64 * max(ndim, 1))(*shape)
    strides_arr = (c.c_int64 * max(ndim, 1))(*strides)
    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    t = managed.dl_tensor
    t.data = data or None
    t.device = DLDevice(int(device[0]), int(device[1]))
    t.ndim = ndim
    t.dtype = DLDataType(code[0], code[1], 1)
    t.shape = c.cast(shape_arr, c.POINTER(c.c_int64))
    t.strides = c.cast(strides_arr, c.POINTER(c.c_int64))
    t.byte_offset = 0
    managed.deleter = _DELETE_ADDRESS
    if versioned:
        managed.version = DLPackVersion(*VERSION)
        managed.flags = flags
    address = c.addressof(managed)
    _live[address] = (managed, shape_arr, strides_arr, owner)
    try:
        return _capsule_new(address, _NAMES[VERSIONED if versioned else LEGACY], _DESTRUCTOR_ADDRESS)
    except BaseException:
        _live.pop(address, None)
        raise


def capsule_name(capsule: Any) -> str | None:
    """The capsule's name (``"dltensor"``, ``"used_dltensor"`` ...), or None for an object that is no capsule."""
    if type(capsule).__name__ != "PyCapsule":
        return None
    name = _capsule_get_name(capsule)
    return None if name is None else name.decode()


@dataclass
class CapsuleView:
    """What an unconsumed capsule describes (read without consuming it)."""

    managed: int            # address of the DLManagedTensor(Versioned)
    versioned: bool
    version: tuple
    flags: int
    data: int
    device: tuple
    shape: tuple
    strides: tuple          # in elements (contiguous ones when the producer gave none)
    code: int
    bits: int
    lanes: int


def read_capsule(capsule: Any) -> CapsuleView:
    """Describe an unconsumed DLPack capsule; ``BufferError`` when it is none or was consumed already."""
    for name, versioned in ((VERSIONED, True), (LEGACY, False)):
        if _capsule_is_valid(capsule, _NAMES[name]):
            address = _capsule_pointer(capsule, _NAMES[name])
            break
    else:
        raise ConsumedCapsuleError(
            "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so "
            f"you might have already constructed a tensor from it once (its name is {capsule_name(capsule)!r}).")
    if versioned:
        m = DLManagedTensorVersioned.from_address(address)
        version, flags = (int(m.version.major), int(m.version.minor)), int(m.flags)
        if version[0] != VERSION[0]:
            raise BufferError(f"from_dlpack: the capsule has DLPack version {version[0]}.{version[1]}; openreg "
                              f"reads major version {VERSION[0]}")
    else:
        m = DLManagedTensor.from_address(address)
        version, flags = (0, 0), 0
    t = m.dl_tensor
    ndim = int(t.ndim)
    shape = tuple(int(t.shape[i]) for i in range(ndim))
    if ndim and t.strides:
        strides = tuple(int(t.strides[i]) for i in range(ndim))
    else:
        strides, acc = [], 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= max(n, 1)
        strides = tuple(strides)
    return CapsuleView(address, versioned, version, flags, int(t.data or 0) + int(t.byte_offset),
                       (int(t.device.device_type), int(t.device.device_id)), shape, strides, int(t.dtype.code),
                       int(t.dtype.bits), int(t.dtype.lanes))


def consume(capsule: Any, view: CapsuleView) -> None:
    """Mark the capsule used (``used_dltensor[_versioned]``): from now on the consumer owns the deleter call."""
    _capsule_set_name(capsule, _NAMES[b"used_dltensor_versioned" if view.versioned else b"used_dltensor"])


def call_deleter(view: CapsuleView) -> None:
    """Hand the memory back to the producer (once, when the consumer's last reference goes away)."""
    cls = DLManagedTensorVersioned if view.versioned else DLManagedTensor
    deleter = cls.from_address(view.managed).deleter
    if deleter:
        _DELETER(deleter)(view.managed)


class ConsumedCapsuleError(BufferError, RuntimeError):
    """A capsule that was consumed already (PyTorch raises ``RuntimeError``, the DLPack protocol ``BufferError``;
    this is both)."""


__all__ = ["CODE_NAMES", "DTYPE_BY_CODE", "DTYPE_CODES", "FLAG_IS_COPIED", "FLAG_READ_ONLY", "CapsuleView",
           "ConsumedCapsuleError", "call_deleter", "capsule_name", "consume", "dtype_text", "make_capsule",
           "read_capsule"]
