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
from openreg._dispatch.ops import lookup
from openreg.operators import RECORDS

RNG = np.random.default_rng(0)
STRUCTURED = sorted(name for name, r in RECORDS.items() if r.compute is not None)


def _inputs(name: str, dtype: str, device: str):
    def make(*shape, dtype=None, low=-3.0, high=3.0, ints=False):
        arr = RNG.uniform(low, high, size=shape)
        chosen = dtype or test_dtype
        if ints or "int" in chosen:
            arr = np.round(arr)
        return openreg.tensor(arr.tolist(), dtype=getattr(openreg, chosen), device=device)
    test_dtype = dtype
    return SAMPLES[name].inputs(make)


def _expected(name: str, args):
    arrays = [host_array(a) if isinstance(a, openreg.Tensor) else a for a in args]
    return np.asarray(SAMPLES[name].reference(*arrays))


def _check(result, expected, like=None) -> None:
    """Values (and dtype: NumPy's, or ``like``'s for in-place results) of a variant's result."""
    got = host_array(result)
    if like is not None:
        expected = expected.astype(host_array(like).dtype)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    tol = 1e-5 if got.dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def _overload_for(record, args):
    """The functional overload whose Tensor arguments are the sample's tensors."""
    for g in record.groups:
        if g.functional is None:
            continue
        schema = record.schema(g.functional)
        kinds = [a.type.kind == "Tensor" and not a.type.is_list for a in schema.arguments]
        if all(k == isinstance(v, openreg.Tensor) for k, v in zip(kinds, args)):
            return lookup(f"{record.ns}::{g.functional}")
    raise AssertionError(f"no overload of {record.name} takes the sample's arguments")


@pytest.mark.parametrize("name", sorted(n for n, r in RECORDS.items() if r.doc))
def test_record_doc_example_runs(name):
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(parser.get_doctest(RECORDS[name].doc, {}, f"openreg.{name}", RECORDS[name].module, 0))
    assert runner.failures == 0 and runner.tries > 0


def test_every_structured_record_has_a_sample():
    assert not [name for name in STRUCTURED if name not in SAMPLES]


@pytest.mark.parametrize(("name", "dtype"), [(n, d) for n in STRUCTURED if n in SAMPLES for d in SAMPLES[n].dtypes])
def test_record_variants_match_numpy(name, dtype, devices):
    record, sample = RECORDS[name], SAMPLES[name]
    args = _inputs(name, dtype, devices)
    expected = _expected(name, args)
    checks = sample.variants
    if "overload" in checks:
        _check(_overload_for(record, args)(*args), expected)
    if record.function and "function" in checks:
        fn = getattr(openreg, name)
        _check(fn(*args), expected)
        if any(g.out for g in record.groups) and "out" in checks:
            out = openreg.empty(0, dtype=openreg.tensor(expected).dtype, device=devices)
            assert fn(*args, out=out) is out
            _check(out, expected)
    if record.method and "method" in checks:
        _check(getattr(args[0], name)(*args[1:]), expected)
        if any(g.inplace for g in record.groups) and "inplace" in checks and \
                tuple(args[0].shape) == expected.shape:
            target = args[0].clone()
            assert getattr(target, name + "_")(*args[1:]) is target
            _check(target, expected, like=args[0])


@pytest.mark.parametrize("name", STRUCTURED)
def test_record_meta_matches_cpu(name):
    record = RECORDS[name]
    cpu = _inputs(name, SAMPLES[name].dtypes[0], "cpu")
    meta = [a.to("meta") if isinstance(a, openreg.Tensor) else a for a in cpu]
    op = _overload_for(record, cpu)
    expected, result = op(*cpu), op(*meta)
    assert result.device.type == "meta"
    assert (tuple(result.shape), result.dtype, result.stride()) == (tuple(expected.shape), expected.dtype,
                                                                    expected.stride())


def test_prod_of_all_elements_has_no_out():
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        openreg.prod(openreg.ones(2), out=openreg.empty(0))
