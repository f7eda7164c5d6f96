"""Docstring examples of openreg.backends.* modules.

``ci/test`` collects doctests with ``--doctest-modules src/openreg``; the backends live in ``backends/`` and
are installed as ``openreg.backends``, so collecting them by file path would import them a second time
under another name (registering every kernel twice). Here they run under their installed names.
"""
import doctest
import importlib
import pkgutil

import openreg.backends
import pytest

MODULES = sorted(m.name for m in pkgutil.walk_packages(openreg.backends.__path__, "openreg.backends."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples failed in {name}"
