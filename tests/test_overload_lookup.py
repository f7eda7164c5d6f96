"""One way to look up an overload inside openreg: ``A.<op>__<overload>`` (``openreg._dispatch.ops``), or
``lookup("ns::op.overload")`` where the name is computed; both share one cache. Users keep ``openreg.ops.aten``.

The scan reads the code (not docstrings) of every file under ``src/openreg`` and ``backends`` and reports any
attribute taken of the ``ops`` root (``ops.aten.add.Tensor``, ``getattr(ops.aten, name)``) and any other
module-level cache of overloads, outside the module that defines the lookup.
"""
from __future__ import annotations

import ast
from pathlib import Path

import openreg
from openreg._dispatch.ops import A, lookup

ROOT = Path(__file__).resolve().parents[1]
LOOKUP_MODULE = ROOT / "src" / "openreg" / "_dispatch" / "ops.py"


def _second_lookups(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    if not any(isinstance(n, ast.ImportFrom) and (n.module or "").endswith(("_dispatch.ops", "openreg"))
               and any(a.name == "ops" for a in n.names) for n in ast.walk(tree)):
        return found                  # a local variable named ops is not the operator root
    for node in ast.walk(tree):
        # ops.<namespace> (ops.aten.x.y, getattr(ops.aten, name), aten = ops.aten)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ops":
            found.append(f"{path.relative_to(root)}:{node.lineno}: ops.{node.attr}")
        # getattr(ops, ns)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "ops"):
            found.append(f"{path.relative_to(root)}:{node.lineno}: getattr(ops, ...)")
    return found


def _sources():
    return [p for d in (ROOT / "src" / "openreg", ROOT / "backends") for p in sorted(d.rglob("*.py"))
            if p != LOOKUP_MODULE]


def test_sources_look_overloads_up_one_way():
    files = _sources()
    assert len(files) > 100
    found = [hit for p in files for hit in _second_lookups(p)]
    assert found == [], "use A.<op>__<overload> (or lookup(...) for a computed name):\n" + "\n".join(found)


def test_the_scan_sees_each_second_style(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""ops.aten.abs.default in a docstring is fine."""\n'
                   "from openreg._dispatch.ops import ops\n"
                   "x = ops.aten.abs.default(t)\n"
                   "y = getattr(ops.aten, name).default\n"
                   "z = getattr(getattr(ops, ns), name)\n")
    hits = _second_lookups(bad, tmp_path)
    assert sorted(h.split(": ", 1)[1] for h in hits) == ["getattr(ops, ...)", "ops.aten", "ops.aten"]


def test_the_one_lookup_is_the_public_overload():
    assert A.add__Tensor is openreg.ops.aten.add.Tensor
    assert A.add___Tensor is openreg.ops.aten.add_.Tensor
    assert A.abs is openreg.ops.aten.abs.default is lookup("aten::abs")
    assert lookup("aten::max.dim") is A.max__dim
