"""exponential_, geometric_, log_normal_, cauchy_: seeded through openreg's generators (reproducible, CPU and
device), their distributions (moments/medians of many draws), dtypes and PyTorch's argument errors."""
from __future__ import annotations

import numpy as np
import pytest
from device_params import LAST_DEVICE

import openreg

DRAWS = {
    "exponential_": ((2.0,), lambda a: (a.mean(), 0.5), lambda a: a.min() >= 0),
    "geometric_": ((0.3,), lambda a: (a.mean(), 1 / 0.3), lambda a: a.min() >= 1 and np.all(a == np.round(a))),
    "log_normal_": ((0.0, 0.5), lambda a: (np.log(a).std(), 0.5), lambda a: a.min() > 0),
    "cauchy_": ((1.0, 2.0), lambda a: (np.median(a), 1.0), lambda a: True),
}


@pytest.mark.parametrize("device", ["cpu", LAST_DEVICE])
@pytest.mark.parametrize("name", sorted(DRAWS))
def test_distribution_and_seeding(name, device):
    args, moment, support = DRAWS[name]
    g = openreg.Generator(device=device).manual_seed(5)
    x = getattr(openreg.empty(50_000, device=device), name)(*args, generator=g)
    a = x.cpu().numpy().astype(np.float64)
    got, want = moment(a)
    assert abs(got - want) < 0.05 * max(1.0, abs(want))
    assert support(a)
    g.manual_seed(5)
    again = getattr(openreg.empty(50_000, device=device), name)(*args, generator=g)
    assert again.tolist() == x.tolist()
    openreg.manual_seed(1)
    first = getattr(openreg.empty(4, device=device), name)(*args)
    openreg.manual_seed(1)
    assert getattr(openreg.empty(4, device=device), name)(*args).tolist() == first.tolist()


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: openreg.zeros(3).exponential_(0), RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=0"),
    (lambda: openreg.zeros(3).geometric_(2), RuntimeError, r"geometric_ expects p to be in \(0, 1\), but got p=2"),
    (lambda: openreg.zeros(3).log_normal_(1, -1), RuntimeError, "log_normal_ expects std > 0.0, but found std=-1"),
    (lambda: openreg.zeros(3).cauchy_(0, -1), RuntimeError, "cauchy_ expects sigma > 0.0, but found sigma=-1"),
    (lambda: openreg.zeros(3, dtype=openreg.int64).exponential_(), RuntimeError,
     "Exponential distribution is a continuous probability distribution"),
    (lambda: openreg.zeros(3, dtype=openreg.int64).log_normal_(), NotImplementedError, "not implemented for 'Long'"),
])
def test_errors_as_pytorch(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_geometric_fills_integers_and_dtypes_are_kept():
    x = openreg.zeros(100, dtype=openreg.int64).geometric_(0.5)
    assert x.dtype == openreg.int64 and min(x.tolist()) >= 1
    assert openreg.empty(3, dtype=openreg.float16).exponential_().dtype == openreg.float16
    assert openreg.empty(3, device="meta").cauchy_().shape == (3,)
