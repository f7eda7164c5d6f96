"""The examples run as part of the test suite."""
from __future__ import annotations

import importlib.util
import pathlib

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
