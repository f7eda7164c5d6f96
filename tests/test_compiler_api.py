"""openreg.version, openreg.types, openreg.compiler and openreg._dynamo against torch's (when installed)."""
import os
import subprocess
import sys

import pytest

import openreg
import openreg._dynamo as dynamo
import openreg._dynamo.config as dynamo_config
from openreg.utils import backend_registration as br

try:
    import torch
    import torch._dynamo
    import torch.compiler
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")


# -- openreg.version ------------------------------------------------------------------------------------------
def test_version_fields():
    import openreg.version as v
    assert v.__version__ == openreg.__version__
    assert (v.git_version, v.hip, v.rocm, v.debug) == (None, None, None, False)
    assert v.cuda is None                       # a CPU-only build's, while the device is not named cuda


def test_version_cuda_follows_the_cuda_name():
    br._reset_privateuse1_backend_for_tests()
    try:
        openreg.utils.rename_privateuse1_backend("cuda")
        assert openreg.cuda.is_available()
        major, minor = openreg.version.cuda.split(".")
        assert int(major) >= 12 and minor.isdigit()
    finally:
        br._reset_privateuse1_backend_for_tests()
    assert openreg.version.cuda is None


def test_version_cuda_in_a_fresh_process_named_cuda():
    out = subprocess.run([sys.executable, "-c", "import openreg as torch; print(torch.version.cuda is not None)"],
                         check=False, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "OPENREG_DEVICE_NAME": "cuda"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


@needs_torch
def test_version_matches_torch_cpu_build():
    import torch.version as tv
    for name in ("hip", "debug"):
        assert getattr(openreg.version, name) == getattr(tv, name)
    if tv.cuda is None:                     # the CPU wheel
        assert openreg.version.cuda is None


# -- openreg.types --------------------------------------------------------------------------------------------
TYPE_NAMES = ["Number", "Device", "FileLike", "Storage", "_int", "_float", "_bool", "_complex", "_str", "_bytes",
              "_dtype", "_device", "_layout", "_size", "_TensorOrTensors", "_Number", "IntLikeType",
              "FloatLikeType", "BoolLikeType", "py_sym_types", "Size", "Tensor", "DispatchKey"]


def test_types_names_and_meaning():
    from openreg import types as t
    for name in TYPE_NAMES:
        assert hasattr(t, name), name
    assert t._int is int and t._float is float and t._bool is bool
    assert t._dtype is openreg.dtype and t._device is openreg.device and t.Tensor is openreg.Tensor
    assert isinstance(openreg.device("cpu"), t.Device) and isinstance("cpu", t.Device) and isinstance(None, t.Device)
    assert isinstance(2.5, t.Number) and not isinstance("2", t.Number)
    assert openreg.Size in t._size.__args__ and t.FloatLikeType is float and t.py_sym_types == ()


@needs_torch
def test_types_names_exist_in_torch():
    import torch.types as tt
    for name in TYPE_NAMES:
        assert hasattr(tt, name), name
    assert openreg.types._Number == tt._Number


# -- openreg._dynamo.config -----------------------------------------------------------------------------------
COMMON = ["suppress_errors", "cache_size_limit", "recompile_limit", "accumulated_cache_size_limit", "verbose",
          "optimize_ddp", "capture_scalar_outputs", "capture_dynamic_output_shape_ops", "automatic_dynamic_shapes",
          "assume_static_by_default", "specialize_int", "dynamic_shapes", "error_on_recompile", "allow_rnn",
          "guard_nn_modules", "force_parameter_static_shapes", "disable"]


def test_config_assign_alias_and_patch():
    cfg = dynamo.config
    assert cfg is dynamo_config
    try:
        cfg.suppress_errors = True
        assert cfg.suppress_errors is True
        cfg.cache_size_limit = 64
        assert cfg.recompile_limit == 64
        with cfg.patch(recompile_limit=3, verbose=True):
            assert (cfg.cache_size_limit, cfg.verbose) == (3, True)
        assert (cfg.cache_size_limit, cfg.verbose) == (64, False)
        with cfg.patch("verbose", True):
            assert cfg.verbose
        assert not cfg.verbose
    finally:
        cfg.suppress_errors = False
        cfg.recompile_limit = 8
    with pytest.raises(AttributeError, match="does not exist"):
        cfg.no_such_setting = 1
    with pytest.raises(AttributeError, match="does not exist"):
        _ = cfg.no_such_setting
    with pytest.raises(AttributeError, match="does not exist"):
        cfg.patch(no_such_setting=1)
    assert "verbose" in dir(cfg) and "verbose" in cfg.get_config_copy()


@needs_torch
def test_config_defaults_match_torch():
    for name in COMMON:
        assert getattr(dynamo.config, name) == getattr(torch._dynamo.config, name), name


# -- decorators and marks -------------------------------------------------------------------------------------
def _double(x):
    return x * 2


@pytest.mark.parametrize("mod", [dynamo, openreg.compiler])
def test_disable_forms(mod):
    f = mod.disable(_double)
    assert f is not _double and f.__wrapped__ is _double and f._torchdynamo_disable
    assert f.__name__ == "_double" and f(openreg.ones(2)).tolist() == [2.0, 2.0]
    assert mod.disable(f) is f
    g = mod.disable(recursive=False)(_double)
    assert g(3) == 6 and g._torchdynamo_disable
    with pytest.raises(AssertionError, match="callable"):
        mod.disable(3)


def test_compile_of_disabled_runs_eagerly():
    f = openreg.compile(openreg.compiler.disable(_double))
    assert f(openreg.tensor([1.0])).tolist() == [2.0]


def test_compiler_functions():
    c = openreg.compiler
    assert not c.is_compiling() and not c.is_dynamo_compiling() and not c.is_exporting()
    assert not dynamo.is_compiling()
    assert c.allow_in_graph(_double) is _double and dynamo.allow_in_graph(_double) is _double
    with pytest.raises(AssertionError, match="allow_in_graph expects a callable"):
        c.allow_in_graph(3)

    def h():
        return 1
    assert c.assume_constant_result(h) is h and h._dynamo_marked_constant is True
    assert c.reset() is None and dynamo.reset() is None
    n = c.step_count()
    c.cudagraph_mark_step_begin()
    c.cudagraph_mark_step_begin()
    assert c.step_count() == n + 2


def test_mark_dynamic_and_static_record_on_the_tensor():
    x = openreg.ones(2, 3)
    dynamo.mark_dynamic(x, [0, 1], min=2, max=9)
    assert x._dynamo_dynamic_indices == {0, 1}
    assert {(r.dim, r.min, r.max) for r in x._dynamo_dynamic_range} == {(0, 2, 9), (1, 2, 9)}
    dynamo.mark_dynamic(x, 0)
    assert (0, None, None) in {(r.dim, r.min, r.max) for r in x._dynamo_dynamic_range}
    dynamo.maybe_mark_dynamic(x, 1)
    assert x._dynamo_weak_dynamic_indices == {1}
    dynamo.mark_static(x, 0)
    assert x._dynamo_static_indices == {0}


@needs_torch
def test_marks_match_torch():
    for lib in (openreg, torch):
        x = lib.ones(2, 3)
        lib._dynamo.mark_dynamic(x, 0)
        lib._dynamo.mark_dynamic(x, [1], min=1, max=4)
        lib._dynamo.mark_static(x, 1)
        lib._dynamo.maybe_mark_dynamic(x, 0)
        got = (x._dynamo_dynamic_indices, {(r.dim, r.min, r.max) for r in x._dynamo_dynamic_range},
               x._dynamo_static_indices, x._dynamo_weak_dynamic_indices)
        if lib is openreg:
            ours = got
    assert ours == got
    for lib in (openreg, torch):
        f = lib.compiler.disable(_double)
        assert f._torchdynamo_disable and f.__wrapped__ is _double
        assert lib.compiler.assume_constant_result(lambda: 1)._dynamo_marked_constant
