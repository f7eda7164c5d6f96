"""``openreg.utils.cpp_extension`` imports (stylegan2's op/ imports ``load`` at module level) and refuses to build."""
from __future__ import annotations

import pytest

import openreg.utils.cpp_extension as ext


@pytest.mark.parametrize("call", [lambda: ext.load("fused", sources=["a.cpp", "a.cu"]),
                                  lambda: ext.load_inline("m", cpp_sources=["int f();"]),
                                  lambda: ext.CppExtension("m", ["a.cpp"]), lambda: ext.CUDAExtension("m", ["a.cu"]),
                                  lambda: ext.BuildExtension.with_options(use_ninja=False)(), ext.include_paths])
def test_building_an_extension_is_refused_by_name(call):
    with pytest.raises(NotImplementedError, match="cannot build PyTorch C\\+\\+/CUDA extensions"):
        call()


def test_a_programs_fallback_takes_over():
    try:
        fused = ext.load("fused", sources=["fused_bias_act.cpp"])
    except Exception:  # noqa: BLE001 - what programs write around load()
        fused = None
    assert fused is None and ext.CUDA_HOME is None and ext.ROCM_HOME is None
