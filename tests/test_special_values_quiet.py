"""PyTorch computes with inf, NaN, zeros and overflow silently (IEEE results, no warnings); NumPy, which openreg
computes with, warns on them (and raises under ``pytest -W error``). Every operator record, forward and backward,
on the CPU and the device, with inputs full of special values, and the everyday non-record calls (casts, copies,
softmax of masked rows, norms) must run without a single RuntimeWarning."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from record_samples import SAMPLES
from test_records import _overload_for

import openreg
from openreg.operators import RECORDS

SPECIAL = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30, -1e30, 1e-30, 3.0, -2.0]
STRUCTURED = sorted(n for n, r in RECORDS.items() if r.compute is not None and n in SAMPLES)


def _special_inputs(name, dtype, device, grad):
    def make(*shape, dtype=None, low=-3.0, high=3.0, ints=False):
        chosen = dtype or test_dtype
        n = int(np.prod(shape)) if shape else 1
        if "float" in chosen:
            arr = np.resize(np.array(SPECIAL), n).reshape(shape)
        else:
            arr = np.resize(np.array([0, 1, -1, 2]), n).reshape(shape)
            if chosen == "bool":
                arr = arr != 0
        t = openreg.tensor(arr.tolist(), dtype=getattr(openreg, chosen), device=device)
        return t.requires_grad_() if grad and t.is_floating_point() else t
    test_dtype = dtype
    return SAMPLES[name].inputs(make)


@pytest.mark.parametrize("name", STRUCTURED)
def test_records_compute_special_values_silently(name, devices):
    dtypes = [d for d in SAMPLES[name].dtypes if "float" in d] + ["float16"]
    for dtype in dtypes:
        for grad in (False, True):
            try:
                args = _special_inputs(name, dtype, devices, grad)
                op = _overload_for(RECORDS[name], args)
            except (RuntimeError, TypeError, ValueError, AssertionError):
                continue     # the sample has no such dtype or overload
            with warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)
                try:
                    out = op(*args)
                except (RuntimeError, TypeError, ValueError, IndexError, NotImplementedError):
                    continue   # openreg refused the input or dtype (as PyTorch may); no warning escaped
                if grad and isinstance(out, openreg.Tensor) and out.requires_grad:
                    try:
                        out.sum().backward()
                    except RuntimeError as e:   # no derivative, as in PyTorch (heaviside): no warning either
                        if "is not implemented" not in str(e):
                            raise


EVERYDAY = {
    "to(float16)": lambda x: x.to(openreg.float16),
    "half()": lambda x: x.half(),
    "to(bfloat16)": lambda x: x.to(openreg.bfloat16),
    "to(int32)": lambda x: x.to(openreg.int32),
    "copy_ into float16": lambda x: openreg.empty(x.shape, dtype=openreg.float16, device=x.device).copy_(x),
    "log(0)": lambda x: openreg.log(openreg.zeros(2, device=x.device)),
    "x / 0": lambda x: x / 0,
    "softmax of a masked row": lambda x: openreg.full((2, 3), float("-inf"), device=x.device).softmax(-1),
    "sum/mean/max/prod": lambda x: (x.sum(), x.mean(), x.max(), x.prod()),
    "std/var/norm": lambda x: (x.std(), x.var(), x.norm()),
    "logsumexp": lambda x: x.logsumexp(0),
    "layer_norm": lambda x: openreg.nn.functional.layer_norm(x.view(1, -1), (x.numel(),)),
    "cross_entropy": lambda x: openreg.nn.functional.cross_entropy(x.view(1, -1), openreg.tensor([0], device=x.device)),
    "gelu/exp/sqrt/pow": lambda x: (openreg.nn.functional.gelu(x), x.exp(), x.sqrt(), x.pow(2)),
}


@pytest.mark.parametrize("case", sorted(EVERYDAY))
def test_everyday_calls_with_special_values_are_silent(case, devices):
    x = openreg.tensor([1e30, float("nan"), float("inf"), -1e30, 0.0], device=devices, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = EVERYDAY[case](x)
        outs = out if isinstance(out, tuple) else (out,)
        loss = sum(o.float().sum() for o in outs if o.requires_grad)
        if isinstance(loss, openreg.Tensor):
            loss.backward()


def test_quiet_context_under_threads():
    """Overflowing ufunc calls from several threads at once stay silent: a thread that finds the quiet
    context in use (``_quiet.quiet_run``) takes the variable path, and nothing leaks into the caller's NumPy
    state (a user's own overflow still warns)."""
    import threading
    errors = []
    x = openreg.full((50_000,), 3e38)
    small = openreg.full((16,), 3e38)

    def work():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                for _ in range(60):
                    assert bool((x + x).isinf().all()) and bool((small * small).isinf().all())
        except Exception as exc:     # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    from openreg._quiet import quiet_call
    with pytest.raises(TypeError):      # an error of the ufunc itself comes through
        quiet_call(np.add, np.ones(2), "a")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="overflow"):
            np.full(2, 3e38, np.float32) * np.float32(10)
