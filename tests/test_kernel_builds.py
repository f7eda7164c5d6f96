"""Every kernel source compiles with NVRTC (cuda-python) for sm_80 and sm_90: no errors, no warnings, no
register spills, and exactly the kernels that kernels.py knows how to launch.

No GPU is needed: NVRTC compiles to a cubin without a driver.  Skipped (with the reason) when cuda-python
or the NVRTC library is missing -- ``pip install -e '.[test]'`` installs both.
"""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from openreg.backends.privateuseone import kernels as kernel_table
from openreg.backends.privateuseone import launchers as kl

ARCHS = ("sm_80", "sm_90")
SOURCE_FILES = sorted(p.name for p in kl.kernel_dir().glob("*.cu"))  # every source, known to SOURCES or not


def _nvrtc():
    try:
        from cuda.bindings import nvrtc  # cuda-python >= 12.6
    except ImportError:
        try:
            from cuda import nvrtc  # cuda-python 12.4 / 12.5
        except ImportError:
            pytest.skip("cuda-python is not installed (pip install -e '.[test]')")
    try:
        err, _, _ = nvrtc.nvrtcVersion()
    except (RuntimeError, OSError) as exc:  # libnvrtc is loaded lazily (cuda-pathfinder raises RuntimeError)
        pytest.skip(f"NVRTC library could not be loaded: {exc}")
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        pytest.skip(f"nvrtcVersion failed: {err}")
    return nvrtc


def compile_source(nvrtc, text: str, name: str, arch: str) -> tuple[bool, str]:
    """Compile with the CUDA launcher's options plus ``ptxas -v``; returns (success, log)."""
    err, prog = nvrtc.nvrtcCreateProgram(text.encode(), name.encode(), 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, err
    try:
        opts = [o.encode() for o in (*kl.nvrtc_options(arch), "--ptxas-options=-v")]
        (result,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        return result == nvrtc.nvrtcResult.NVRTC_SUCCESS, log.decode(errors="replace").rstrip("\x00 \n")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


@pytest.fixture(scope="module")
def builds():
    nvrtc = _nvrtc()
    jobs = [(source, arch) for source in SOURCE_FILES for arch in ARCHS]
    with ThreadPoolExecutor(4) as pool:
        results = pool.map(lambda job: compile_source(nvrtc, kl.load_source(job[0]), job[0], job[1]), jobs)
        return dict(zip(jobs, results))


def parse_ptxas(log: str) -> dict[str, dict[str, int]]:
    """Per kernel: registers, smem bytes, stack bytes, spill store/load bytes (from ``ptxas -v``)."""
    kernels: dict[str, dict[str, int]] = {}
    current = None
    for line in log.splitlines():
        if m := re.search(r"Compiling entry function '(\w+)'", line):
            current = kernels.setdefault(m.group(1), {"registers": 0, "smem": 0, "stack": 0, "spill_stores": 0,
                                                      "spill_loads": 0})
        elif current is not None and (m := re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                                                     r"(\d+) bytes spill loads", line)):
            current["stack"], current["spill_stores"], current["spill_loads"] = map(int, m.groups())
        elif current is not None and (m := re.search(r"Used (\d+) registers", line)):
            current["registers"] = int(m.group(1))
            smem = re.search(r"(\d+) bytes smem", line)  # newer ptxas puts "used N barriers" in between
            current["smem"] = int(smem.group(1)) if smem else 0
    return kernels


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("source", SOURCE_FILES)
def test_source_builds_cleanly(builds, source, arch):
    ok, log = builds[(source, arch)]
    assert ok, f"NVRTC failed on {source} for {arch}:\n{log}"
    noise = [line for line in log.splitlines()
             if line.strip() and not line.startswith(("ptxas info", "ptxas         ."))]
    assert not noise, f"{source} ({arch}) compiles with warnings:\n" + "\n".join(noise)
    kernels = parse_ptxas(log)
    assert kernels, f"{source} defines no kernel"
    if source in kernel_table.SOURCES.values():  # exactly the kernels kernels.py can name
        assert set(kernels) == set(kernel_table.all_kernel_names(source))
    for name, info in kernels.items():
        assert info["spill_stores"] == 0 and info["spill_loads"] == 0, f"{name} spills on {arch}: {info}"
        assert info["stack"] == 0, f"{name} uses a {info['stack']}-byte stack frame on {arch}"
    if source == "mm_plus_mm.cu":  # static tiles only: 2 x 16 x (64 + 4) x sizeof(accumulator)
        assert kernels["mm_plus_mm_f32"]["smem"] == 2 * 16 * 68 * 4
        assert kernels["mm_plus_mm_f64"]["smem"] == 2 * 16 * 68 * 8


def test_compile_errors_surface_the_nvrtc_log():
    nvrtc = _nvrtc()
    text = kl.expand_includes('#include "common.cuh"\nextern "C" __global__ void k(int* p) { p[0] = nope; }\n',
                              "broken.cu")
    ok, log = compile_source(nvrtc, text, "broken.cu", "sm_90")
    assert not ok
    assert 'broken.cu(2): error: identifier "nope" is undefined' in log
