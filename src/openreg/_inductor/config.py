"""``torch._inductor.config``: the options of PyTorch's compiler back end, with PyTorch 2.13's defaults.

openreg compiles nothing (``openreg.compile`` runs the model eagerly), so the values change no result; programs
that set them before ``compile`` run unchanged. As in PyTorch, only known options can be set (an unknown name
raises ``AttributeError``), ``patch`` sets options for a ``with`` block or a decorated function, and
``openreg.compile(options={...})`` accepts only known options of the right type.

>>> import openreg._inductor.config as config
>>> config.coordinate_descent_tuning, config.triton.unique_kernel_names
(False, True)
>>> with config.patch(max_autotune=True, **{"triton.cudagraphs": True}):
...     config.max_autotune, config.triton.cudagraphs
(True, True)
>>> config.max_autotune
False
>>> config.no_such_option = 1
Traceback (most recent call last):
  ...
AttributeError: openreg._inductor.config.no_such_option does not exist
"""
from __future__ import annotations

import contextlib
import copy
import sys
import types

# name -> (default, type); dotted names live in the sub-configs ``triton``, ``cpp``, ``trace``, ...
_OPTIONS: dict[str, tuple[object, type | tuple[type, ...]]] = {
    "debug": (False, bool),
    "disable_progress": (True, bool),
    "verbose_progress": (False, bool),
    "fx_graph_cache": (True, bool),
    "fx_graph_remote_cache": (None, (bool, type(None))),
    "autotune_local_cache": (True, bool),
    "autotune_remote_cache": (None, (bool, type(None))),
    "cpp_wrapper": (False, bool),
    "max_autotune": (False, bool),
    "max_autotune_pointwise": (False, bool),
    "max_autotune_gemm": (False, bool),
    "max_autotune_gemm_backends": ("ATEN,TRITON,CPP", str),
    "autotune_in_subproc": (False, bool),
    "coordinate_descent_tuning": (False, bool),
    "coordinate_descent_check_all_directions": (False, bool),
    "coordinate_descent_search_radius": (1, int),
    "epilogue_fusion": (True, bool),
    "epilogue_fusion_first": (False, bool),
    "pattern_matcher": (True, bool),
    "aggressive_fusion": (False, bool),
    "permute_fusion": (False, bool),
    "shape_padding": (True, bool),
    "comprehensive_padding": (True, bool),
    "freezing": (False, bool),
    "freezing_discard_parameters": (False, bool),
    "conv_1x1_as_mm": (False, bool),
    "split_reductions": (True, bool),
    "benchmark_kernel": (False, bool),
    "benchmark_harness": (True, bool),
    "compile_threads": (2, (int, type(None))),
    "emulate_precision_casts": (False, bool),
    "fallback_random": (False, bool),
    "implicit_fallbacks": (True, bool),
    "force_fuse_int_mm_with_mul": (False, bool),
    "use_mixed_mm": (True, bool),
    "unroll_reductions_threshold": (8, int),
    "size_asserts": (True, bool),
    "nan_asserts": (False, bool),
    "layout_optimization": (True, bool),
    "keep_output_stride": (True, bool),
    "warn_mix_layout": (False, bool),
    "max_fusion_size": (64, int),
    "split_cat_fx_passes": (True, bool),
    "group_fusion": (False, bool),
    "reorder_for_locality": (True, bool),
    "reorder_for_compute_comm_overlap": (False, bool),
    "triton.cudagraphs": (False, bool),
    "triton.cudagraph_trees": (True, bool),
    "triton.cudagraph_skip_dynamic_graphs": (False, bool),
    "triton.unique_kernel_names": (True, bool),
    "triton.descriptive_names": ("original_aten", (str, bool)),
    "triton.max_tiles": (None, (int, type(None))),
    "triton.autotune_pointwise": (True, bool),
    "triton.autotune_cublasLt": (True, bool),
    "triton.dense_indexing": (False, bool),
    "triton.persistent_reductions": (True, bool),
    "triton.divisible_by_16": (True, bool),
    "triton.store_cubin": (False, bool),
    "triton.use_block_ptr": (False, bool),
    "triton.enable_persistent_tma_matmul": (False, bool),
    "cpp.threads": (-1, int),
    "cpp.simdlen": (None, (int, type(None))),
    "cpp.min_chunk_size": (512, int),
    "cpp.dynamic_threads": (False, bool),
    "cpp.fallback_scatter_reduce_sum": (True, bool),
    "cpp.enable_kernel_profile": (False, bool),
    "cpp.weight_prepack": (True, bool),
    "trace.enabled": (False, bool),
    "trace.debug_dir": (None, (str, type(None))),
    "trace.graph_diagram": (False, bool),
    "trace.compile_profile": (False, bool),
    "aot_inductor.output_path": ("", str),
    "aot_inductor.debug_compile": (False, bool),
}


def _type_name(t) -> str:
    return " | ".join("None" if x is type(None) else x.__name__ for x in (t if isinstance(t, tuple) else (t,)))


class _SubConfig:
    """One dotted group of options (``config.triton``): attribute access on the flat table."""

    def __init__(self, owner, prefix: str):
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str):
        return self._owner._get(f"{self._prefix}.{name}")

    def __setattr__(self, name: str, value) -> None:
        self._owner._set(f"{self._prefix}.{name}", value)

    def __repr__(self) -> str:
        return f"<config group {self._owner.__name__}.{self._prefix}>"


class _ConfigModule(types.ModuleType):
    """The module's class: reads and writes of options go to ``_values``; unknown names raise."""

    def _get(self, name: str):
        values = self.__dict__["_values"]
        if name in values:
            return values[name]
        if any(k.startswith(name + ".") for k in values):
            return _SubConfig(self, name)
        raise AttributeError(f"{self.__name__}.{name} does not exist")

    def _set(self, name: str, value) -> None:
        values = self.__dict__["_values"]
        if name not in values:
            raise AttributeError(f"{self.__name__}.{name} does not exist")
        values[name] = value

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._get(name)

    def __setattr__(self, name: str, value) -> None:
        if name in self.__dict__ or name.startswith("__"):
            super().__setattr__(name, value)
        else:
            self._set(name, value)


_values = {k: copy.copy(v[0]) for k, v in _OPTIONS.items()}


def get_config_copy() -> dict:
    """A copy of every option (flat, dotted names), as PyTorch's ``get_config_copy``."""
    return dict(_values)


def get_type(name: str):
    """The type (or tuple of types) option ``name`` takes, or None for an unknown name."""
    entry = _OPTIONS.get(name)
    return None if entry is None else entry[1]


def check_options(options: dict) -> None:
    """What ``compile(options=...)`` checks: each key (``-`` read as ``_``) a known option of its type."""
    for key, value in options.items():
        name = key.replace("-", "_")
        if name not in _values:
            raise RuntimeError(f"Unexpected optimization option {key}, known options are {list(_values)}")
        want = _OPTIONS[name][1]
        if not isinstance(value, want):
            raise RuntimeError(  # noqa: TRY004 (PyTorch raises RuntimeError)
                f"Unexpected type of attr {key}, got {type(value).__name__} should be "
                f"{_type_name(want)}")


def patch(arg1: str | dict | None = None, arg2=None, **changes):
    """Options set for a ``with`` block (or a decorated function): ``patch("name", value)``,
    ``patch({"name": value})`` or ``patch(name=value)``; names are checked on entry."""
    if isinstance(arg1, str):
        changes[arg1] = arg2
    elif isinstance(arg1, dict):
        changes.update(arg1)
    elif arg1 is not None:
        raise TypeError(f"patch() expects a str, a dict or keywords, got {type(arg1).__name__}")

    @contextlib.contextmanager
    def ctx():
        for k in changes:
            if k not in _values:
                raise AttributeError(f"{__name__}.{k} does not exist")
        saved = {k: _values[k] for k in changes}
        _values.update(changes)
        try:
            yield
        finally:
            _values.update(saved)

    class _Patch(contextlib.ContextDecorator):
        def __enter__(self):
            self._cm = ctx()
            return self._cm.__enter__()

        def __exit__(self, *exc):
            return self._cm.__exit__(*exc)

    return _Patch()


sys.modules[__name__].__class__ = _ConfigModule
