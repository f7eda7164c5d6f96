"""Scalars that do not fit the dtype they are stored in raise PyTorch's "value cannot be converted to type ...
without overflow" (fill_, full, masked_fill, clamp bounds, where's scalar, alpha, t[i] = v, tensor(...)); ops that
compute with a wrapped scalar keep PyTorch's wrapping. Expected values are PyTorch 2.13's."""
import math

import pytest
from device_params import DEVICES

import openreg
from openreg.scalar_conversion import overflows

CONVERT = "value cannot be converted to type {} without overflow"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("make,cpp", [
    (lambda dev: openreg.zeros(3, dtype=openreg.int16, device=dev).clamp_max(65536), "int16_t"),
    (lambda dev: openreg.zeros(3, dtype=openreg.int16, device=dev).clamp(None, 65536), "int16_t"),
    (lambda dev: openreg.zeros(3, dtype=openreg.int16, device=dev).clamp_(-40000, None), "int16_t"),
    (lambda dev: openreg.zeros(3, dtype=openreg.int32, device=dev).fill_(math.inf), "int"),
    (lambda dev: openreg.zeros(3, dtype=openreg.int64, device=dev).fill_(math.nan), "int64_t"),
    (lambda dev: openreg.full((2,), 256, dtype=openreg.uint8, device=dev), "uint8_t"),
    (lambda dev: openreg.full((2,), -256, dtype=openreg.uint8, device=dev), "uint8_t"),
    (lambda dev: openreg.full((2,), 70000.0, dtype=openreg.float16, device=dev), "c10::Half"),
    (lambda dev: openreg.full((2,), 1e40, dtype=openreg.float32, device=dev), "float"),
    (lambda dev: openreg.full((2,), 1 + 1j, dtype=openreg.float64, device=dev), "double"),
    (lambda dev: openreg.zeros(2, dtype=openreg.int8, device=dev).new_full((2,), 128), "int8_t"),
    (lambda dev: openreg.full_like(openreg.zeros(2, dtype=openreg.bfloat16, device=dev), 1e39), "c10::BFloat16"),
    (lambda dev: openreg.zeros(3, dtype=openreg.int8, device=dev).masked_fill(
        openreg.tensor([True, False, True], device=dev), 1000), "int8_t"),
    (lambda dev: openreg.zeros(3, dtype=openreg.int8, device=dev).masked_fill_(
        openreg.tensor([True, False, True], device=dev), 1000), "int8_t"),
    (lambda dev: openreg.where(openreg.tensor([True, False], device=dev),
                               openreg.zeros(2, dtype=openreg.int16, device=dev), 65536), "int16_t"),
    (lambda dev: openreg.where(openreg.tensor([True, False], device=dev), 1e40,
                               openreg.zeros(2, dtype=openreg.int16, device=dev)), "float"),
    (lambda dev: openreg.add(openreg.zeros(2, dtype=openreg.uint8, device=dev),
                             openreg.ones(2, dtype=openreg.uint8, device=dev), alpha=256), "uint8_t"),
    (lambda dev: openreg.scalar_tensor(300, dtype=openreg.int8, device=dev), "int8_t"),
    (lambda dev: openreg.zeros(2, dtype=openreg.int8, device=dev).__setitem__(0, 128), "int8_t"),
    (lambda dev: openreg.zeros(2, dtype=openreg.int8, device=dev).__setitem__(slice(None), -129), "int8_t"),
    (lambda dev: openreg.tensor([1, 300], dtype=openreg.int8, device=dev), "int8"),
    (lambda dev: openreg.tensor(math.nan, dtype=openreg.int32, device=dev), "int32"),
], ids=["clamp_max", "clamp_max_kw", "clamp__min", "fill_inf", "fill_nan", "full_256_u8", "full_-256_u8",
        "full_f16", "full_f32", "full_complex", "new_full", "full_like_bf16", "masked_fill", "masked_fill_",
        "where_other", "where_self_float", "alpha", "scalar_tensor", "setitem", "setitem_slice", "tensor_list",
        "tensor_nan"])
def test_scalars_that_do_not_fit_raise(device, make, cpp):
    with pytest.raises(RuntimeError, match=CONVERT.format(cpp)):
        make(device)


@pytest.mark.parametrize("device", DEVICES)
def test_failed_fills_change_nothing(device):
    t = openreg.arange(3, dtype=openreg.int16, device=device)
    for bad in (lambda: t.fill_(70000), lambda: t.clamp_(max=70000), lambda: t.masked_fill_(t > 0, 70000),
                lambda: t.__setitem__(1, 70000)):
        with pytest.raises(RuntimeError, match="without overflow"):
            bad()
        assert t.tolist() == [0, 1, 2]


@pytest.mark.parametrize("device", DEVICES)
def test_pytorch_wrapping_cases_still_wrap(device):
    def z(dtype):
        return openreg.zeros(3, dtype=dtype, device=device)
    assert (z(openreg.int8) + 300).tolist() == [44, 44, 44]            # a wrapped number is cast, not checked
    assert (z(openreg.int16) * 65536 + 1).tolist() == [1, 1, 1]
    assert z(openreg.uint8).clamp_min(-1).tolist() == [255, 255, 255]   # -1 wraps to 255 for unsigned types
    assert z(openreg.uint8).fill_(-1).tolist() == [255, 255, 255]
    assert openreg.full((2,), -255, dtype=openreg.uint8, device=device).tolist() == [1, 1]
    assert openreg.add(z(openreg.uint8), z(openreg.uint8) + 1, alpha=-1).tolist() == [255, 255, 255]
    assert z(openreg.bool).fill_(300).tolist() == [True, True, True]    # anything fits bool
    assert z(openreg.int32).clamp_max(math.inf).tolist() == [0.0, 0.0, 0.0]  # float bound: float32 result
    assert z(openreg.int32).fill_(2.5).tolist() == [2, 2, 2]            # truncation is not an overflow
    assert z(openreg.float32).fill_(math.inf).tolist() == [math.inf] * 3
    f16 = openreg.zeros(2, dtype=openreg.float16, device=device)
    f16[0] = 70000.0                                                    # t[i] = v rounds to inf for half types
    assert f16.tolist() == [math.inf, 0.0]
    assert openreg.scalar_tensor(1e40, dtype=openreg.bfloat16, device=device).item() == math.inf
    assert openreg.tensor([-1], dtype=openreg.uint8, device=device).tolist() == [255]


@pytest.mark.parametrize("value,dtype,expected", [
    (255, "uint8", False), (256, "uint8", True), (-255, "uint8", False), (-256, "uint8", True),
    (127, "int8", False), (-129, "int8", True), (2**31, "int32", True), (2**63 - 1, "int64", False),
    (2**63, "int64", True), (2**63, "float32", False), (math.inf, "int64", True), (math.inf, "float16", False),
    (math.nan, "uint8", True), (math.nan, "bfloat16", False), (65504.0, "float16", False), (65520.0, "float16", True),
    (3.5e38, "float32", True), (3.5e38, "float64", False), (1 + 1j, "complex64", False), (1 + 1j, "float64", True),
    (1 + 0j, "int8", False), (1e300, "bool", False), (True, "int8", False),
])
def test_overflow_rule(value, dtype, expected):
    assert overflows(value, getattr(openreg, dtype)) is expected


def test_pow_and_arange_convert_their_scalars_as_pytorch():
    with pytest.raises(RuntimeError, match=CONVERT.format("int8_t")):
        openreg.ones(2, dtype=openreg.int8).pow(300)
    with pytest.raises(RuntimeError, match=CONVERT.format("c10::Half")):
        openreg.ones(2, dtype=openreg.float16).pow(65536)
    assert openreg.ones(2).pow(1e40).tolist() == [1.0, 1.0]              # float kernels take a double exponent
    assert openreg.ones(2, dtype=openreg.int8).pow(2.5).tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match=CONVERT.format("int64_t")):
        openreg.arange(0, 1e40, dtype=openreg.int32)
    with pytest.raises(RuntimeError, match=CONVERT.format("float")):
        openreg.arange(0, 1e40, dtype=openreg.float16)
    with pytest.raises(RuntimeError, match=CONVERT.format("double")):
        openreg.arange(1 + 1j, 2, dtype=openreg.float32)
    assert openreg.arange(300, 301, dtype=openreg.int8).tolist() == [44]   # as PyTorch: converted as int64
