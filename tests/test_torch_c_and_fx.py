"""``openreg._C`` (the torch._C hooks libraries call: torchvision's ``_log_api_usage_once``) and ``openreg.fx.wrap``
(torchvision's ``stochastic_depth``, timm's layers), compared with PyTorch where it is installed."""
from __future__ import annotations

import types

import pytest

import openreg


def _module_calling(lib, code):
    mod = types.ModuleType("m")
    mod.__dict__["lib"] = lib
    exec(code, mod.__dict__)
    return mod


def test_fx_wrap_returns_its_argument_at_module_level():
    m = _module_calling(openreg, "def f(x):\n    return x + 1\ng = lib.fx.wrap(f)\nname = lib.fx.wrap('f')\n")
    assert m.g is m.f and m.name == "f"
    assert m.g(openreg.ones(1)).tolist() == [2.0]


def test_fx_wrap_errors_match_torch():
    torch = pytest.importorskip("torch")
    import torch.fx  # noqa: F401
    for lib in (openreg, torch):
        with pytest.raises(RuntimeError, match="Unsupported type for global function"):
            lib.fx.wrap(3)
        with pytest.raises(NotImplementedError, match="wrap must be called at the top level of a module"):
            lib.fx.wrap("f")


def test_fx_graph_capture_is_named_as_unsupported():
    with pytest.raises(AttributeError, match="symbolic_trace.*not supported"):
        openreg.fx.symbolic_trace
    assert not hasattr(openreg.fx, "GraphModule")


def test_torch_c_hooks():
    assert openreg._C._log_api_usage_once("torchvision.models.resnet.ResNet") is None
    assert openreg._C._get_tracing_state() is None
    with pytest.raises(TypeError):
        openreg._C._log_api_usage_once(3)
    with pytest.raises(AttributeError, match="_some_private_hook"):
        openreg._C._some_private_hook
