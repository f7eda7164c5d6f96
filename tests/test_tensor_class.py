"""Tensor's methods come from its class statement: nothing is added to (or replaced on) Tensor or its bases
after ``openreg/tensor.py`` has run, whatever ``import openreg`` imports afterwards (issue #11 item 2)."""
from __future__ import annotations

import json
import subprocess
import sys

# Runs in a fresh interpreter: snapshots every class of Tensor's MRO the moment openreg/tensor.py finishes
# executing (inside ``import openreg``), then compares with the state after the whole package is imported.
_PROBE = r'''
import importlib.abc, importlib.machinery, json, sys

snapshot = {}

class Spy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "openreg.tensor":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            snapshot.update({cls.__qualname__: dict(vars(cls)) for cls in module.Tensor.__mro__})
            snapshot["dir"] = set(dir(module.Tensor))
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Spy())
import openreg
Tensor = sys.modules["openreg.tensor"].Tensor
changed = sorted(f"{cls.__qualname__}.{k}" for cls in Tensor.__mro__
                 for k in set(vars(cls)) | set(snapshot[cls.__qualname__])
                 if vars(cls).get(k, None) is not snapshot[cls.__qualname__].get(k, None))
print(json.dumps({"changed": changed, "dir_before": sorted(snapshot["dir"]), "dir_after": sorted(dir(Tensor))}))
'''

REPRESENTATIVE = ("view", "reshape", "__getitem__", "__setitem__", "backward", "cuda", "is_cuda", "numpy", "to",
                  "grad", "requires_grad", "register_hook", "detach", "clone", "copy_", "contiguous", "float",
                  "abs", "hypot", "__add__", "sum", "is_pinned", "pin_memory", "__dlpack__", "uniform_",
                  "dequantize", "is_inference", "new_zeros", "T", "mT", "split", "cpu", "item", "tolist")


def _probe() -> dict:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_tensor_methods_exist_once_the_class_statement_has_run():
    result = _probe()
    missing = [m for m in REPRESENTATIVE if m not in result["dir_before"]]
    assert missing == []


def test_nothing_is_patched_onto_tensor_after_its_class_statement():
    result = _probe()
    assert result["changed"] == []
    assert result["dir_before"] == result["dir_after"]

