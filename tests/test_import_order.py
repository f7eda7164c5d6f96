"""Registration order does not matter (issue #11 item 4): importing openreg's modules in any order, each in a
fresh interpreter, gives the same dispatch tables as ``import openreg`` and working operators, backward and
autocast.

Every registration step covers what is defined so far and skips what is done, and the operator loader's
``finish()`` derives the Autograd/Autocast entries last, so no module has to be imported before another.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

_SNAPSHOT = """
import json
from openreg._dispatch import dispatcher
from openreg._dispatch.keys import DispatchKey as K
keys = [k for k in K if k.name not in ("Undefined",)]
table = {}
for q in sorted(dispatcher.defined_names()):
    e = dispatcher.find(q)
    table[q] = [str(e.schema), sorted(k.name for k in keys if dispatcher.has_kernel(q, k)),
                sorted(t.name for t in e.tags)]
"""

_CHECKS = """
import openreg
x = openreg.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
y = (x.abs() * x).sum() + x.gather(1, openreg.tensor([[1], [0]])).sum()
y.backward()
assert x.grad.tolist() == [[2.0, 5.0], [7.0, 8.0]], x.grad.tolist()
d = x.detach().to("privateuseone:0")
assert (d + 1).cpu().tolist() == [[2.0, -1.0], [4.0, 5.0]]
with openreg.autocast("cpu"):
    assert (x @ x).dtype is openreg.bfloat16
openreg.manual_seed(0)
assert openreg.rand(3).tolist() == openreg.rand(3, generator=openreg.Generator().manual_seed(0)).tolist()
q = openreg.quantize_per_tensor(openreg.tensor([1.0, 2.5]), 0.5, 1, openreg.qint8)
assert q.int_repr().tolist() == [3, 6]
"""


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


# A module that needs an optional package (openreg.utils.tensorboard without tensorboard) raises ImportError as
# PyTorch's does; the others must import in any order.
_OPTIONAL_IMPORT = """import importlib
def _import(name):
    try:
        importlib.import_module(name)
    except ImportError as e:
        missing = e if isinstance(e, ModuleNotFoundError) else e.__cause__
        if not isinstance(missing, ModuleNotFoundError) or (missing.name or "openreg").startswith("openreg"):
            raise
"""


def _modules() -> list[str]:
    code = ("import pkgutil, openreg\n"
            "print('\\n'.join(m.name for m in pkgutil.walk_packages(openreg.__path__, 'openreg.')))")
    return _run(code).split()


@pytest.fixture(scope="module")
def reference_table() -> dict:
    return json.loads(_run("import openreg\n" + _SNAPSHOT + "print(json.dumps(table))"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_modules_imported_in_shuffled_order(seed, reference_table):
    modules = _modules()
    random.Random(seed).shuffle(modules)
    imports = _OPTIONAL_IMPORT + "".join(f"_import({m!r})\n" for m in modules)
    table = json.loads(_run(imports + _CHECKS + _SNAPSHOT + "print(json.dumps(table))"))
    assert table == reference_table


def test_finish_is_idempotent(reference_table):
    """Running the loader's last step again (as a module imported late would) changes no dispatch entry."""
    code = ("import openreg\nfrom openreg.operators import _loader\n_loader.finish()\n_loader.finish()\n"
            + _CHECKS + _SNAPSHOT + "print(json.dumps(table))")
    assert json.loads(_run(code)) == reference_table
