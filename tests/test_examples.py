"""The examples run as part of the test suite."""
from __future__ import annotations

import importlib.util
import pathlib

import pytest
from device_params import DEVICES

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_train_mlp_reaches_target_loss(capsys):
    mod = _load("train_mlp")
    assert mod.main(["--steps", "60"]) == 0
    out = capsys.readouterr().out
    assert "final loss" in out


def test_bench_train_step_runs(capsys):
    spec = importlib.util.spec_from_file_location("bench_train_step", ROOT / "benchmarks" / "bench_train_step.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    step = mod.openreg_step("cpu")
    first = float(step().item())
    for _ in range(3):
        last = float(step().item())
    assert last < first


def _run_portable(**env):
    import os
    import subprocess
    import sys
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "portable_training.py")], check=False,
                         capture_output=True, text=True, env={**os.environ, **env}, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_portable_training_runs_as_cuda_on_the_device():
    out = _run_portable(OPENREG_DEVICE_NAME="cuda", OPENREG_DRIVER="emulated")
    assert out.startswith("device cuda (openreg emulated device): loss")


def test_portable_training_falls_back_to_cpu():
    env = {"OPENREG_DEVICE_NAME": ""}
    assert _run_portable(**env).startswith("device cpu (host): loss")


@pytest.mark.parametrize("device", DEVICES)
def test_train_gpt_reaches_short_target(capsys, device):
    mod = _load("train_gpt")
    assert mod.main(["--steps", "40", "--target", "2.3", "--device", device]) == 0
    out = capsys.readouterr().out
    assert "final loss" in out and "sample:" in out


@pytest.mark.parametrize("device", DEVICES)
def test_train_cnn_reaches_short_target(capsys, device):
    mod = _load("train_cnn")
    assert mod.main(["--epochs", "3", "--target", "1.1", "--device", device]) == 0
    assert "test accuracy" in capsys.readouterr().out


@pytest.mark.parametrize("device", DEVICES)
def test_train_lstm_reaches_short_target(capsys, device):
    mod = _load("train_lstm")
    assert mod.main(["--epochs", "3", "--target", "2.2", "--device", device]) == 0
    assert "final loss" in capsys.readouterr().out
