"""use_deterministic_algorithms: the flag and debug mode as PyTorch's, and the cuda driver's accumulating
scatter (CuPy add.at atomics) refusing to run, or warning, while it is on; NumPy kernels are deterministic."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
from openreg.operators._scatter import accumulate_at


@pytest.fixture(autouse=True)
def _restore():
    yield
    openreg.use_deterministic_algorithms(False)


def test_flag_and_debug_mode_match_pytorch():
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    for lib in (torch, openreg):
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled() and lib.is_deterministic_algorithms_warn_only_enabled()
        assert lib.get_deterministic_debug_mode() == 1
        lib.set_deterministic_debug_mode("error")
        assert lib.get_deterministic_debug_mode() == 2 and not lib.is_deterministic_algorithms_warn_only_enabled()
        lib.set_deterministic_debug_mode(0)
        assert not lib.are_deterministic_algorithms_enabled()
        with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
            lib.set_deterministic_debug_mode("loud")
        with pytest.raises(TypeError):
            lib.use_deterministic_algorithms("yes")


def test_numpy_kernels_run_when_determinism_is_required():
    openreg.use_deterministic_algorithms(True)
    x = openreg.zeros(3).index_add(0, openreg.tensor([0, 0]), openreg.ones(2))
    assert x.tolist() == [2.0, 0.0, 0.0]


class _FakeCupy:
    """Not NumPy: stands for the cuda driver's array module (only the check before add.at runs)."""


def test_cuda_accumulation_refuses_or_warns():
    openreg.use_deterministic_algorithms(True)
    with pytest.raises(RuntimeError, match="does not have a deterministic implementation"):
        accumulate_at(_FakeCupy(), np.zeros(2), (np.array([0]),), np.ones(1), openreg.float32)
    openreg.use_deterministic_algorithms(True, warn_only=True)
    with pytest.warns(UserWarning, match="does not have a deterministic implementation"), pytest.raises(
            AttributeError):
        accumulate_at(_FakeCupy(), np.zeros(2), (np.array([0]),), np.ones(1), openreg.float32)
