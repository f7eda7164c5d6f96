"""``contiguous(memory_format=...)`` returns the tensor itself when it already is contiguous in that format, as
PyTorch does (the memory-format tutorial's ``torch.empty(4, 1, 4, 4).contiguous(memory_format=channels_last)``
kept strides (16, 16, 4, 1) in torch; openreg restrided it to (16, 1, 4, 1))."""
import pytest

import openreg

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

CASES = [((4, 1, 4, 4), None), ((2, 3, 1, 1), None), ((2, 3, 4, 5), None), ((2, 3, 4, 5), (0, 2, 3, 1)),
         ((1, 3, 2, 2), (0, 2, 3, 1)), ((2, 1, 3, 4, 5), None)]


def _make(lib, shape, perm):
    n = 1
    for s in shape:
        n *= s
    if perm is None:
        return lib.arange(float(n)).reshape(shape)
    inv = [perm.index(i) for i in range(len(perm))]
    return lib.arange(float(n)).reshape([shape[p] for p in perm]).permute(*inv)


@pytest.mark.parametrize("shape,perm", CASES)
def test_already_contiguous_in_format_is_returned_as_is(shape, perm):
    fmt = openreg.channels_last if len(shape) == 4 else openreg.channels_last_3d
    x = _make(openreg, shape, perm)
    y = x.contiguous(memory_format=fmt)
    assert y.is_contiguous(memory_format=fmt)
    assert y.tolist() == x.tolist()
    if x.is_contiguous(memory_format=fmt):
        assert y is x
    else:
        assert y.data_ptr() != x.data_ptr()


@needs_torch
@pytest.mark.parametrize("shape,perm", CASES)
def test_strides_match_torch(shape, perm):
    out = []
    for lib in (openreg, torch):
        fmt = lib.channels_last if len(shape) == 4 else lib.channels_last_3d
        x = _make(lib, shape, perm)
        out.append((x.contiguous(memory_format=fmt).stride(), x.contiguous().stride(),
                    x.contiguous(memory_format=fmt).is_contiguous()))
    assert out[0] == out[1]
