"""openreg.finfo / openreg.iinfo and the math constants against NumPy/ml_dtypes and, when installed, PyTorch."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import openreg

try:
    import torch
except ImportError:  # CI has no PyTorch: the comparisons below skip
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch to compare with")

FLOATS = ["float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_numpy(name):
    info = openreg.finfo(getattr(openreg, name))
    ref = ml_dtypes.finfo(getattr(openreg, name).numpy)
    assert (info.bits, info.eps, info.max, info.min, info.tiny) == (ref.bits, float(ref.eps), float(ref.max),
                                                                   float(ref.min), float(ref.smallest_normal))
    assert info.smallest_normal == info.tiny and info.dtype == name
    assert 0 < info.resolution <= 1


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_numpy(name):
    info, ref = openreg.iinfo(getattr(openreg, name)), np.iinfo(name)
    assert (info.bits, info.min, info.max, info.dtype) == (ref.bits, int(ref.min), int(ref.max), name)
    assert isinstance(info.max, int)


def test_finfo_defaults_and_complex():
    assert openreg.finfo().dtype == "float32"
    openreg.set_default_dtype(openreg.float64)
    try:
        assert openreg.finfo().dtype == "float64"
    finally:
        openreg.set_default_dtype(openreg.float32)
    assert openreg.finfo(openreg.complex64) == openreg.finfo(openreg.float32)


def test_wrong_kinds_raise_type_error():
    with pytest.raises(TypeError, match="requires a floating point input type"):
        openreg.finfo(openreg.int32)
    with pytest.raises(TypeError, match="requires an integer input type"):
        openreg.iinfo(openreg.float32)
    with pytest.raises(TypeError, match="bool is not supported"):
        openreg.iinfo(openreg.bool)
    with pytest.raises(TypeError, match="must be torch.dtype"):
        openreg.finfo(3)


def test_constants():
    assert (openreg.pi, openreg.e, openreg.inf) == (math.pi, math.e, math.inf)
    assert math.isnan(openreg.nan) and openreg.newaxis is None
    assert openreg.ones(3)[:, openreg.newaxis].shape == (3, 1)


@needs_torch
@pytest.mark.parametrize("name", FLOATS + ["complex64", "complex128"])
def test_finfo_matches_torch(name):
    ours, theirs = openreg.finfo(getattr(openreg, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)


@needs_torch
@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_torch(name):
    ours, theirs = openreg.iinfo(getattr(openreg, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert repr(ours) == repr(theirs)
