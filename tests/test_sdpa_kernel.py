"""Which attention kernel runs: torch.nn.attention.sdpa_kernel, torch.backends.cuda.enable_*_sdp / *_sdp_enabled and
the deprecated torch.backends.cuda.sdp_kernel, with PyTorch's errors when no allowed kernel applies. Programs
written for CUDA (nanoGPT variants, gpt-fast, ...) select kernels with them; they stopped at an AttributeError."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from device_params import DEVICES

import openreg
from openreg.nn.attention import SDPBackend, sdpa_kernel

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")

cuda = openreg.backends.cuda
F = openreg.nn.functional


def _flags():
    return (cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled(), cuda.math_sdp_enabled(),
            cuda.cudnn_sdp_enabled())


def test_flags_and_context_managers_restore():
    assert _flags() == (True, True, True, True)
    with sdpa_kernel(SDPBackend.MATH):
        assert _flags() == (False, False, True, False)
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
            assert _flags() == (True, True, False, False)
        assert _flags() == (False, False, True, False)
    assert _flags() == (True, True, True, True)
    with pytest.warns(FutureWarning, match="sdp_kernel\\(\\)` is deprecated"), cuda.sdp_kernel(enable_flash=False):
        assert _flags() == (False, True, True, True)
    assert _flags() == (True, True, True, True)
    cuda.enable_flash_sdp(False)
    try:
        assert cuda.flash_sdp_enabled() is False
    finally:
        cuda.enable_flash_sdp(True)
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"), sdpa_kernel("math"):
        pass
    assert _flags() == (True, True, True, True)


def test_cpu_choice_follows_the_flags():
    q = openreg.randn(1, 2, 5, 8)
    assert openreg._fused_sdp_choice(q, q, q) == SDPBackend.FLASH_ATTENTION
    with sdpa_kernel(SDPBackend.MATH):
        assert openreg._fused_sdp_choice(q, q, q) == SDPBackend.MATH
        a = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    b = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        assert openreg._fused_sdp_choice(q, q, q) == SDPBackend.FLASH_ATTENTION
        with pytest.warns(UserWarning, match="Flash attention kernel not used"), \
                pytest.raises(RuntimeError, match="No available kernel.  Aborting execution."):
            F.scaled_dot_product_attention(q[0], q[0], q[0])
    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION), \
            pytest.raises(RuntimeError, match="No viable backend for scaled_dot_product_attention was found"):
        F.scaled_dot_product_attention(q, q, q)


@pytest.mark.parametrize("device", DEVICES[1:])
def test_device_choice_follows_the_flags(device):
    q = openreg.randn(1, 2, 5, 8, device=device)
    assert openreg._fused_sdp_choice(q, q, q) == SDPBackend.OVERRIDEABLE
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):     # CUDA code asking for flash gets the device's fused kernel
        assert openreg._fused_sdp_choice(q, q, q) == SDPBackend.OVERRIDEABLE
    with sdpa_kernel(SDPBackend.MATH):
        assert openreg._fused_sdp_choice(q, q, q) == SDPBackend.MATH
        a = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    b = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    np.testing.assert_allclose(a.cpu().numpy(), b.cpu().numpy(), rtol=1e-5, atol=1e-6)
    with sdpa_kernel([]), pytest.raises(RuntimeError, match="No viable backend"):
        F.scaled_dot_product_attention(q, q, q)


@needs_torch
def test_cpu_choices_match_pytorch():
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 8)).astype(np.float32)
    cases = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION],
             SDPBackend.EFFICIENT_ATTENTION]
    tA = torch.nn.attention
    for case in cases:
        theirs = [getattr(tA.SDPBackend, b.name) for b in case] if isinstance(case, list) else \
            getattr(tA.SDPBackend, case.name)
        for shape in (x, x[0]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    with tA.sdpa_kernel(theirs):
                        want = int(torch._fused_sdp_choice(*[torch.tensor(shape)] * 3))
                except RuntimeError as e:
                    want = str(e)[:20]
                try:
                    with sdpa_kernel(case):
                        got = int(openreg._fused_sdp_choice(*[openreg.tensor(shape)] * 3))
                except RuntimeError as e:
                    got = str(e)[:20]
            assert got == want, (case, shape.ndim)
    for name in ("flash_sdp_enabled", "mem_efficient_sdp_enabled", "math_sdp_enabled", "cudnn_sdp_enabled"):
        assert getattr(cuda, name)() == getattr(torch.backends.cuda, name)()
