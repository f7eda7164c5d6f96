"""The cuda driver's code checked against the real CuPy wheel (it imports without a GPU).

* every ``xp.<name>(... keyword=...)`` the device code writes exists in CuPy and takes those keywords;
* ``tests/cupy_double/surface.json`` (what the strict double offers) is current for the installed CuPy;
* every ``.cu`` compiles through CuPy's own NVRTC path and options for sm_80 and sm_90, and exposes every
  kernel name the launcher asks for;
* the argument packing of every launch matches the kernel's PTX parameter sizes and alignments.

Skipped with the reason when CuPy (or its NVRTC) cannot be loaded; ``ci/test`` installs ``cupy-cuda12x``.
"""
from __future__ import annotations

import functools
import inspect
import re

import numpy as np
import pytest
from cupy_double import record

cupy = pytest.importorskip("cupy", reason="the real-CuPy checks need the cupy-cuda12x wheel (no GPU needed)")

from openreg.backends.privateuseone import kernels, launchers
from openreg.backends.privateuseone.launchers import Operand

SOURCES = ("abs.cu", "copy.cu", "fill.cu", "mm_plus_mm.cu", "philox.cu", "bf16.cu", "bf16_reduce.cu", "attention.cu")
UFUNC_KEYWORDS = {"out", "dtype", "casting", "order", "where", "subok", "signature"}


def _live(name: str):
    obj = cupy
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def test_every_array_module_call_of_the_device_code_exists_in_cupy():
    used = record.used_calls()
    assert "add.at" in used and "where" in used       # the scan sees the compute code
    problems = []
    for name, keywords in sorted(used.items()):
        obj = _live(name)
        if obj is None:
            problems.append(f"cupy.{name} does not exist")
            continue
        if isinstance(obj, cupy.ufunc):
            bad = keywords - UFUNC_KEYWORDS
        elif callable(obj) and not isinstance(obj, type) and keywords:
            sig = record.signature_of(obj)
            params = {p for p, kind in sig["params"]} if sig else set()
            varkw = sig and any(kind == "VAR_KEYWORD" for _, kind in sig["params"])
            bad = set() if varkw else keywords - params
        else:
            bad = set()
        problems += [f"cupy.{name}() takes no keyword {k!r}" for k in sorted(bad)]
    assert not problems, "\n".join(problems)


def test_the_recorded_surface_is_current():
    assert record.main(["--check"]) == 0, "run: python tests/cupy_double/record.py"


# -- kernels through CuPy's compile path ---------------------------------------------------------------------
@functools.cache
def _compile(source: str, arch: str, mode: str) -> bytes:
    """``source`` compiled by CuPy's NVRTC path with the launcher's options, as on a device of ``arch``.

    CuPy asks the driver for the device's compute capability to choose between cubin and PTX; there is no
    driver here, so that one choice is made for it (cubin: what CuPy builds for a supported GPU; PTX: what it
    builds for a newer one, and what the packing check reads).
    """
    from cupy.cuda import compiler
    original = compiler._get_arch_for_options_for_nvrtc
    compiler._get_arch_for_options_for_nvrtc = lambda arch=None: (
        (f"-arch=sm_{arch}", "cubin") if mode == "cubin" else (f"-arch=compute_{arch}", "ptx"))
    try:
        obj, _ = compiler._compile_using_nvrtc_no_warning(
            launchers.load_source(source), options=launchers.nvrtc_options(), arch=arch,
            filename=source)
    except compiler.CompileException as exc:
        pytest.fail(f"{source} does not compile for sm_{arch} through CuPy:\n{exc}")
    except (OSError, RuntimeError) as exc:  # NVRTC library missing
        pytest.skip(f"CuPy cannot load NVRTC here: {exc}")
    finally:
        compiler._get_arch_for_options_for_nvrtc = original
    return obj


@pytest.mark.parametrize("arch", ["80", "90"])
@pytest.mark.parametrize("source", SOURCES)
def test_kernels_compile_through_cupy(source, arch):
    assert len(_compile(source, arch, "cubin")) > 0


_ENTRY = re.compile(r"\.entry\s+(\w+)\s*\(([^)]*)\)")
_PARAM = re.compile(r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+\w+(?:\[(\d+)\])?")


@functools.cache
def _ptx_params(source: str) -> dict[str, list[tuple[int, int]]]:
    """``{kernel: [(size, alignment), ...]}`` from the PTX CuPy builds."""
    ptx = _compile(source, "90", "ptx").decode()
    out = {}
    for name, params in _ENTRY.findall(ptx):
        sizes = []
        for align, kind, count in _PARAM.findall(params):
            width = int(re.sub(r"\D", "", kind) or 8) // 8
            size = width * int(count) if count else width
            sizes.append((size, int(align) if align else width))
        out[name] = sizes
    return out


@pytest.mark.parametrize("source", SOURCES)
def test_every_kernel_the_launcher_names_is_in_the_module(source):
    missing = set(kernels.all_kernel_names(source)) - set(_ptx_params(source))
    assert not missing, f"{source} lacks kernels the launcher asks for: {sorted(missing)[:5]}"


def _operands(dtype, strided: bool, n_ops: int):
    dt = np.dtype(dtype)
    if strided:
        return [Operand(4096 * (i + 1), dt, (3, 5), (7, 1)) for i in range(n_ops)]
    return [Operand(4096 * (i + 1), dt, (15,), (1,)) for i in range(n_ops)]


def _launches():
    for dt in kernels.ABS_DTYPES:
        for strided in (False, True):
            out, inp = _operands(dt, strided, 2)
            yield kernels.abs_launch(out, inp)
            yield kernels.fill_launch(out, 1)
    for o in kernels.COPY_DTYPES:
        for i in kernels.COPY_DTYPES:
            for strided in (False, True):
                (out,), (inp,) = _operands(o, strided, 1), _operands(i, strided, 1)
                yield kernels.copy_launch(out, inp)
    for dt in kernels.MM_DTYPES:
        f = np.dtype(dt)
        a, b, o = Operand(0, f, (70, 9), (9, 1)), Operand(0, f, (9, 66), (66, 1)), Operand(0, f, (70, 66), (66, 1))
        yield kernels.mm_plus_mm_launch(a, b, a, b, o)
    for kind in kernels.PHILOX_KERNELS:
        out = Operand(4096, kernels.philox_operand_dtype(kernels.PHILOX_DTYPES[kind]), (1000,), (1,))
        yield kernels.philox_launch(kind, out, seed=1, offset=8, n=1000)
    words = Operand(4096, kernels.philox_operand_dtype(np.dtype("uint32")), (64,), (1,))
    yield kernels.philox_block_launch(words, Operand(8192, words.dtype, (96,), (1,)), 16)
    for strided in (False, True):
        out, a, b = _operands(np.uint16, strided, 3)
        (flag,), (f32,) = _operands(np.bool_, strided, 1), _operands(np.float32, strided, 1)
        for op in kernels.BF16_BINARY_OPS:
            yield kernels.bf16_binary_launch(op, flag if op in kernels.BF16_COMPARE_OPS else out, a, b, 0.5)
        for op in kernels.BF16_SCALAR_OPS:
            yield kernels.bf16_scalar_launch(op, flag if op in kernels.BF16_COMPARE_OPS else out, a, 0.1, 2.0)
        for op in kernels.BF16_MIXED_OPS:
            yield kernels.bf16_binary_launch(op, f32, a, f32, 0.5)
            yield kernels.bf16_binary_launch(op, f32, f32, a)
        for op in kernels.BF16_UNARY_OPS:
            yield kernels.bf16_unary_launch(op, out, a)
        for dt in kernels.COPY_DTYPES:
            (other,) = _operands(dt, strided, 1)
            yield kernels.bf16_copy_launch(other, a)
            yield kernels.bf16_copy_launch(out, other)
        yield kernels.bf16_copy_launch(out, a)
    words = Operand(4096, np.dtype(np.uint16), (4, 6, 5), (30, 5, 1))
    for out in (Operand(8192, np.dtype(np.uint16), (6,), (1,)), Operand(8192, np.dtype(np.float32), (6,), (1,))):
        yield kernels.bf16_reduce_launch("sum", out, words, (0, 2), False, 20.0)
    for op in ("amax", "amin"):
        yield kernels.bf16_reduce_launch(op, Operand(8192, words.dtype, (4, 1, 5), (5, 5, 1)), words, (1,), True)
    for op in kernels.BF16_SOFTMAX_OPS:
        yield kernels.bf16_softmax_launch(op, Operand(8192, words.dtype, (4, 6, 5), (30, 5, 1)), words, 1)


def test_launch_arguments_match_the_ptx_parameters():
    params = {}
    for source in SOURCES:
        params.update(_ptx_params(source))
    checked = 0
    for launch in _launches():
        expected = params[launch.kernel]
        packed = [(np.asarray(a).dtype.itemsize, np.asarray(a).dtype.alignment) for a in launch.args]
        assert [s for s, _ in packed] == [s for s, _ in expected], (launch.kernel, packed, expected)
        for (_, have), (_, need) in zip(packed, expected):
            assert have <= need and need % have == 0, (launch.kernel, packed, expected)
        checked += 1
    assert checked > 180


def test_recorded_signatures_parse_cython_methods():
    sig = record.signature_of(cupy.ndarray.astype)
    assert [p for p, _ in sig["params"]][:2] == ["dtype", "order"]
    assert "copy" in inspect.getdoc(cupy.ndarray.astype).split("\n", 1)[0]
