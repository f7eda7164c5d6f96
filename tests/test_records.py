"""Every operator record, through every variant it declares, against NumPy on the CPU and the device, and on
Meta (shape and dtype only): ``openreg.<fn>``, ``Tensor.<fn>``, ``out=`` and ``Tensor.<fn>_``. The samples are
in ``record_samples.py``; the derivative formulas are gradchecked by ``test_derivatives.py``."""
from __future__ import annotations

import doctest

import numpy as np
import pytest
from record_samples import SAMPLES

import openreg
from openreg._array_bridge import host_array
from openreg.operators import RECORDS

RNG = np.random.default_rng(0)
STRUCTURED = sorted(name for name, r in RECORDS.items() if r.compute is not None)


def _inputs(name: str, dtype: str, device: str):
    def make(*shape):
        arr = RNG.uniform(-3.0, 3.0, size=shape)
        return openreg.tensor(arr.tolist(), dtype=getattr(openreg, dtype), device=device)
    return SAMPLES[name].inputs(make)


def _expected(name: str, args):
    arrays = [host_array(a) if isinstance(a, openreg.Tensor) else a for a in args]
    return SAMPLES[name].reference(*arrays)


def _check(result, expected, dtype) -> None:
    assert result.dtype == getattr(openreg, dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(host_array(result), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(n for n, r in RECORDS.items() if r.doc))
def test_record_doc_example_runs(name):
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(parser.get_doctest(RECORDS[name].doc, {}, f"openreg.{name}", RECORDS[name].module, 0))
    assert runner.failures == 0 and runner.tries > 0


def test_every_structured_record_has_a_sample():
    assert not [name for name in STRUCTURED if name not in SAMPLES]


@pytest.mark.parametrize("name", STRUCTURED)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_record_variants_match_numpy(name, dtype, devices):
    record = RECORDS[name]
    if dtype not in SAMPLES[name].dtypes:
        pytest.skip(f"{name} is not sampled in {dtype}")
    args = _inputs(name, dtype, devices)
    expected = _expected(name, args)
    if record.function:
        fn = getattr(openreg, name)
        _check(fn(*args), expected, dtype)
        if any(g.out for g in record.groups):
            out = openreg.empty(0, dtype=getattr(openreg, dtype), device=devices)
            assert fn(*args, out=out) is out
            _check(out, expected, dtype)
    if record.method:
        _check(getattr(args[0], name)(*args[1:]), expected, dtype)
        if any(g.inplace for g in record.groups) and tuple(args[0].shape) == tuple(expected.shape):
            target = args[0].clone()
            assert getattr(target, name + "_")(*args[1:]) is target
            _check(target, expected, dtype)


@pytest.mark.parametrize("name", STRUCTURED)
def test_record_meta_matches_cpu(name):
    cpu = _inputs(name, "float32", "cpu")
    meta = [a.to("meta") if isinstance(a, openreg.Tensor) else a for a in cpu]
    op = getattr(openreg.ops.aten, name).default if "default" in getattr(openreg.ops.aten, name).overloads() \
        else None
    if op is None:
        pytest.skip(f"{name} has no default overload")
    expected, result = op(*cpu), op(*meta)
    assert result.device.type == "meta"
    assert (tuple(result.shape), result.dtype, result.stride()) == (tuple(expected.shape), expected.dtype,
                                                                    expected.stride())
