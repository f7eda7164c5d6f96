"""``with openreg.device(...)`` as PyTorch's device context (factories without ``device=`` create there, nested
blocks restore the previous default) and ``openreg._functorch.config`` (gpt-fast sets it), against torch 2.13."""
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")


def _devices_seen(lib):
    seen = []
    with lib.device("meta") as d:
        seen += [str(d), str(lib.zeros(2).device), str(lib.get_default_device())]
        with lib.device("cpu"):
            seen += [str(lib.ones(1).device), str(lib.get_default_device())]
        seen += [str(lib.arange(3).device), str(lib.empty(1, 2).device), str(lib.tensor([1.0]).device)]
    seen += [str(lib.zeros(1).device), str(lib.get_default_device())]
    return seen


def test_device_context_matches_torch():
    assert _devices_seen(openreg) == _devices_seen(torch)


def test_device_context_restores_after_an_error():
    with pytest.raises(ValueError), openreg.device("meta"):
        raise ValueError("inside")
    assert openreg.zeros(1).device.type == "cpu"


def test_functorch_config_matches_torch_defaults():
    import torch._functorch.config as tcfg

    import openreg._functorch.config as ocfg
    # torch's declared defaults: its current values can be changed by whatever ran before in the process
    theirs = {k: e.default for k, e in tcfg._config.items() if not k.startswith("_") and k != "TYPE_CHECKING"}
    assert ocfg.get_config_copy() == theirs
    ocfg.enable_autograd_cache = False
    try:
        assert openreg._functorch.config.enable_autograd_cache is False
    finally:
        ocfg.enable_autograd_cache = True
    with pytest.raises(AttributeError, match="does not exist"):
        ocfg.no_such_setting = 1
    with ocfg.patch("cse", False):
        assert ocfg.cse is False
    assert ocfg.cse is True
