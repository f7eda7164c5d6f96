"""openreg.load's weights_only default as PyTorch's: unspecified is True, False when a pickle_module is given or
TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD is set (time_sequence_prediction loads a pickled NumPy array), always True under
TORCH_FORCE_WEIGHTS_ONLY_LOAD."""
from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import openreg


def _numpy_checkpoint() -> io.BytesIO:
    buf = io.BytesIO()
    openreg.save({"data": np.arange(3.0)}, buf)
    buf.seek(0)
    return buf


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", raising=False)
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", raising=False)


def test_default_is_weights_only_unless_a_pickle_module_is_given():
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        openreg.load(_numpy_checkpoint())
    assert openreg.load(_numpy_checkpoint(), pickle_module=pickle)["data"].tolist() == [0.0, 1.0, 2.0]
    assert openreg.load(_numpy_checkpoint(), weights_only=False)["data"].tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("value", ["1", "true", "YES"])
def test_force_no_weights_only_env(monkeypatch, value):
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", value)
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected"):
        assert openreg.load(_numpy_checkpoint())["data"].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        openreg.load(_numpy_checkpoint(), weights_only=True)     # an explicit True is kept


def test_force_weights_only_env(monkeypatch):
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        openreg.load(_numpy_checkpoint(), weights_only=False)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(RuntimeError, match="Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD`"):
        openreg.load(_numpy_checkpoint())
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0")
    with pytest.warns(UserWarning):
        assert openreg.load(_numpy_checkpoint())["data"].shape == (3,)
