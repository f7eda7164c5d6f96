"""benchmarks/bench_models.py: every case builds and runs a step on openreg (the examples' own model classes),
and a table row prints with and without PyTorch columns (no timing asserted)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import openreg

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_models", ROOT / "benchmarks" / "bench_models.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_case_runs_one_step(bench):
    for _name, build in bench.cases(quick=True) + [("mlp", bench.mlp_step(64))]:
        build(openreg, "cpu", True)()


def test_examples_load_for_another_library(bench):
    mod = bench.load_example("train_cnn", openreg)
    assert issubclass(mod.ConvNet, openreg.nn.Module)


def test_rows_with_and_without_pytorch(bench):
    full = bench.fmt_row("case", {"cpu": (2e-3, 1.1), "device": (3e-3, 1.0), "torch": (1e-3, 1.0)})
    assert "2.00x" in full and "1.50x" in full
    assert "n/a" in bench.fmt_row("case", {"cpu": (2e-3, 1.1)})
