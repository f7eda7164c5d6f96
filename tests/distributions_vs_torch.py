"""The differential check shared by the distribution test files (``from distributions_vs_torch import ...``): a
case ``fn(lib, dists)`` runs with openreg and with torch; its outcome (the tensors of a possibly nested result
with their dtypes and shapes, other values as text, or the error type and message up to the printed invalid
values) must match. The files differ only in how they normalize the texts (``value_text``, ``error_text``).
Skips when PyTorch is not installed."""
from __future__ import annotations

import numpy as np
import pytest

import openreg
from openreg import distributions as D


def unchanged(text: str) -> str:
    return text


def collapse_spaces(text: str) -> str:
    """``text`` with its runs of white space as single spaces (PyTorch's messages have stray ones)."""
    return " ".join(text.split())


def statistics(m, value, *, cdf=False, icdf=False, entropy=True, mode=True) -> list:
    """The quantities of ``m`` a case compares: mean, variance, ``log_prob(value)``, and as asked mode, entropy,
    ``cdf(value)`` and ``icdf(cdf(value))``."""
    parts = [m.mean, m.variance, m.log_prob(value)]
    if mode:
        parts.append(m.mode)
    if entropy:
        parts.append(m.entropy())
    if cdf:
        parts.append(m.cdf(value))
    if icdf:
        parts.append(m.icdf(m.cdf(value)))
    return parts


def _flatten(r, lib, value_text):
    if isinstance(r, lib.Tensor):
        return [("tensor", np.asarray(r.detach().tolist(), dtype=float), str(r.dtype).split(".")[-1],
                 tuple(r.shape))]
    if isinstance(r, (tuple, list)):
        return [x for item in r for x in _flatten(item, lib, value_text)]
    return [("value", value_text(str(r).replace("torch.", "openreg.")))]


def outcome(lib, dists, fn, value_text=unchanged, error_text=unchanged):
    """``fn(lib, dists)`` flattened to ``(kind, ...)`` entries, or ``[(error type, message)]``."""
    try:
        r = fn(lib, dists)
    except Exception as e:  # noqa: BLE001 - the outcome (value or error) is what is compared
        return [(type(e).__name__, error_text(str(e).replace("torch.", "openreg.")).split("found invalid values")[0])]
    return _flatten(r, lib, value_text)


def assert_matches_pytorch(fn, value_text=unchanged, error_text=unchanged, compare_values: bool = True) -> None:
    """The outcomes of ``fn`` in openreg and torch agree: the same kinds, tensors equal to 2e-5 (unless not
    ``compare_values``, e.g. for random draws) with the same dtypes and shapes, the same texts and errors."""
    torch = pytest.importorskip("torch", reason="differential tests need PyTorch")
    theirs = outcome(torch, torch.distributions, fn, value_text, error_text)
    ours = outcome(openreg, D, fn, value_text, error_text)
    assert len(ours) == len(theirs), (ours, theirs)
    for a, b in zip(ours, theirs):
        assert a[0] == b[0], (ours, theirs)
        if a[0] == "tensor":
            if compare_values:
                np.testing.assert_allclose(a[1], b[1], rtol=2e-5, atol=2e-5)
            assert a[2:] == b[2:], (a, b)
        else:
            assert a == b
