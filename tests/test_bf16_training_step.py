"""A bfloat16 training step on the cuda driver widens per kernel, never per tensor copy (#13 item 5).

The examples' training steps run under bf16 autocast on the cuda driver over the strict CuPy double, with the
widening helper (``_array_bridge.to_float32``, which turns a bfloat16 array into a float32 copy) instrumented:
every call on a device array is recorded with the operator that made it. bf16.cu, bf16_reduce.cu and attention.cu
run for real on the double's host memory (through the host launcher); the 16-bit GEMMs, whose cuBLAS ``gemmEx`` path has tests
of its own (test_gemm_16bit.py), run as float32-accumulating products on the host buffers.
"""
from __future__ import annotations

import collections
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from openreg.backends.privateuseone import gemm_16bit
from openreg.backends.privateuseone.cuda_driver import CudaDriver
from openreg.backends.privateuseone.driver_select import use_driver
from test_cuda_driver import _current, make_fake_cupy, use_stand_in_kernels
from test_cuda_driver_ops import _StrictKernels

import openreg
from openreg import _array_bridge

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _host_gemm(cp, a, b, out, kind, alpha=1.0, beta=0.0):
    """The 16-bit GEMM on the double's host buffers (float32 accumulation, one rounding)."""
    view = (lambda x: x._a.view(openreg.bfloat16.numpy)) if kind == "bfloat16" else (lambda x: x._a)
    gemm_16bit.host_gemm_16bit(np, view(a), view(b), view(out), kind, alpha, beta)
    return out


@pytest.fixture
def cuda_driver(monkeypatch):
    cp = make_fake_cupy(count=1, memory=512 << 20)
    monkeypatch.setitem(sys.modules, "cupy", cp)
    _current[0] = 0
    use_stand_in_kernels(monkeypatch, _StrictKernels)     # attention.cu, bf16*.cu: the real kernels
    monkeypatch.setattr(gemm_16bit, "cublas_gemm_16bit", _host_gemm)
    with use_driver(CudaDriver()):
        yield "privateuseone"


@pytest.fixture
def widenings(monkeypatch):
    """Operator -> number of bfloat16 device arrays widened into float32 copies."""
    seen: collections.Counter = collections.Counter()
    real = _array_bridge.to_float32

    def recording(arr, dtype):
        if dtype is openreg.bfloat16 and not isinstance(arr, np.ndarray):
            seen[_current_operator(sys._getframe(1))] += 1
        return real(arr, dtype)
    monkeypatch.setattr(_array_bridge, "to_float32", recording)
    return seen


def _current_operator(frame) -> str:
    """The innermost device kernel's operator on the stack (``on_device`` wrappers hold it as ``op``)."""
    while frame is not None:
        if frame.f_code.co_name == "kernel" and isinstance(frame.f_locals.get("op"), str):
            return frame.f_locals["op"]
        frame = frame.f_back
    return "(no operator: a copy or conversion)"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_portable_training_widens_nothing(cuda_driver, widenings):
    example = _load("portable_training")
    example.device = cuda_driver
    first, last = example.train(steps=3)
    assert last < first                                   # it trained
    assert dict(widenings) == {}


def test_gpt_step_under_bf16_autocast_widens_nothing(cuda_driver, widenings):
    gpt = _load("train_gpt")
    openreg.manual_seed(0)
    model = gpt.GPT(vocab_size=20, block_size=16, n_embd=32, n_head=4, n_layer=1).to(cuda_driver)
    opt = gpt.configure_optimizer(model, lr=3e-3, weight_decay=0.1)
    g = openreg.Generator().manual_seed(1)
    x, y = (openreg.randint(0, 20, (4, 16), generator=g).to(cuda_driver) for _ in range(2))
    losses = []
    for _ in range(2):
        with openreg.autocast(device_type=cuda_driver, dtype=openreg.bfloat16):
            logits, loss = model(x, y)
        assert logits.dtype is openreg.bfloat16
        opt.zero_grad(set_to_none=True)
        loss.backward()
        openreg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    assert np.isfinite(losses).all()
    assert dict(widenings) == {}
