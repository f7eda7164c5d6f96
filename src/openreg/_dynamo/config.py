"""``openreg._dynamo.config``: the settings of ``torch._dynamo.config`` that programs commonly read or assign.

openreg compiles nothing (``openreg.compile`` runs the model eagerly), so these settings guide no compiler; they
are kept, read back and patched as in PyTorch so that programs tuning them run. As in PyTorch, only known
settings exist (an unknown name raises ``AttributeError``), ``cache_size_limit`` is another name of
``recompile_limit`` (and ``accumulated_cache_size_limit`` of ``accumulated_recompile_limit``), and ``patch``
sets values for a ``with`` block or a decorated function.

>>> import openreg._dynamo
>>> cfg = openreg._dynamo.config
>>> cfg.suppress_errors, cfg.cache_size_limit
(False, 8)
>>> with cfg.patch(cache_size_limit=64):
...     cfg.recompile_limit
64
>>> cfg.recompile_limit
8
"""
from __future__ import annotations

import sys
from typing import Any

from .._settings_module import install

_DEFAULTS: dict[str, Any] = {
    "accumulated_recompile_limit": 256,
    "allow_rnn": False,
    "assume_static_by_default": True,
    "automatic_dynamic_shapes": True,
    "capture_dynamic_output_shape_ops": False,
    "capture_func_transforms": True,
    "capture_scalar_outputs": False,
    "compiled_autograd": False,
    "cprofile": False,
    "disable": False,
    "dynamic_shapes": True,
    "error_on_recompile": False,
    "fail_on_recompile_limit_hit": False,
    "force_parameter_static_shapes": True,
    "guard_nn_modules": True,
    "inline_inbuilt_nn_modules": True,
    "log_file_name": None,
    "minimum_call_count": 1,
    "optimize_ddp": True,
    "raise_on_ctx_manager_usage": True,
    "recompile_limit": 8,
    "replay_record_enabled": False,
    "rewrite_assert_with_torch_assert": True,
    "specialize_float": False,
    "specialize_int": False,
    "suppress_errors": False,
    "trace_numpy": True,
    "use_numpy_random_stream": False,
    "verbose": False,
    "verify_correctness": False,
}
_ALIASES = {"cache_size_limit": "recompile_limit", "accumulated_cache_size_limit": "accumulated_recompile_limit"}

install(sys.modules[__name__], _DEFAULTS, _ALIASES)
