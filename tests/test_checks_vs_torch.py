"""``_assert``, ``_assert_async`` and the ``_check*`` family compared with PyTorch: which calls pass, which raise,
with which error type and message."""
from __future__ import annotations

import warnings

import pytest

import openreg

torch = pytest.importorskip("torch")

CASES = [
    ("_assert", lambda L: (True, "m")), ("_assert", lambda L: (False, "sizes differ")),
    ("_assert", lambda L: (L.tensor(True), "m")), ("_assert", lambda L: (L.tensor(0), "zero")),
    ("_assert", lambda L: (L.tensor([1, 1]), "two")),
    ("_assert_async", lambda L: (L.tensor(1),)), ("_assert_async", lambda L: (L.tensor(0.0),)),
    ("_assert_async", lambda L: (L.tensor(False), "custom")), ("_assert_async", lambda L: (L.tensor([1, 1]),)),
    ("_check", lambda L: (True,)), ("_check", lambda L: (False,)), ("_check", lambda L: (False, lambda: "why")),
    ("_check", lambda L: (L.tensor(True),)), ("_check", lambda L: (1,)), ("_check", lambda L: (False, "text")),
    ("_check_index", lambda L: (False, lambda: "idx")), ("_check_value", lambda L: (False, lambda: "val")),
    ("_check_type", lambda L: (False, lambda: "typ")), ("_check_not_implemented", lambda L: (False, lambda: "ni")),
    ("_check_with", lambda L: (KeyError, False, lambda: "k")), ("_check_with", lambda L: (UserWarning, False)),
    ("_check_is_size", lambda L: (3,)), ("_check_is_size", lambda L: (-1,)), ("_check_is_size", lambda L: (5, None)),
    ("_check_tensor_all", lambda L: (L.tensor([True, True]),)),
    ("_check_tensor_all", lambda L: (L.tensor([True, False]), lambda: "not all")),
    ("_check_tensor_all", lambda L: (L.tensor([1, 1]),)), ("_check_tensor_all", lambda L: (True,)),
]


def _outcome(lib, name, make):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(lib, name)(*make(lib))
    except Exception as e:  # noqa: BLE001 - the outcome compared
        return type(e).__name__, str(e).replace("torch.", "").replace("openreg.", "")
    return None


@pytest.mark.parametrize("case", range(len(CASES)))
def test_check_matches_torch(case):
    name, make = CASES[case]
    assert _outcome(openreg, name, make) == _outcome(torch, name, make)


def test_check_is_size_is_deprecated_as_in_torch():
    for lib in (openreg, torch):
        with pytest.warns(FutureWarning, match="_check_is_size will be removed"):
            lib._check_is_size(1)
