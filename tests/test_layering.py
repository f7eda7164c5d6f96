"""The core and the CPU backend use the device backend only through its package surface.

``src/openreg`` and ``backends/cpu`` may import ``openreg.backends.privateuseone`` itself (``get_driver``,
``device_count``, ``check_index``, ``current_stream_handle``, ``foreign_allocation``, ``register``), never
one of its modules: shared code (Philox) lives in the core. Checked on the import statements of every file,
including imports inside functions.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEVICE_PACKAGE = "openreg.backends.privateuseone"
DEVICE_MODULES = {p.stem for p in (ROOT / "backends" / "privateuseone").glob("*.py") if p.stem != "__init__"}


def _package_of(path: Path) -> str:
    """The dotted package a file belongs to once installed (backends/ ships as openreg.backends)."""
    rel = path.relative_to(ROOT)
    parts = rel.parts[1:-1] if rel.parts[0] == "src" else ("openreg", *rel.parts[:-1])
    return ".".join(parts)


def _imported_modules(path: Path):
    """Every module an ``import``/``from`` statement of ``path`` names (relative ones resolved)."""
    package = _package_of(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def _device_internals_imported(paths):
    found = []
    for path in paths:
        for lineno, module in _imported_modules(path):
            if module.startswith(DEVICE_PACKAGE + "."):
                sub = module[len(DEVICE_PACKAGE) + 1:].split(".")[0]
                if sub in DEVICE_MODULES:
                    found.append(f"{path.relative_to(ROOT)}:{lineno}: {module}")
    return found


def test_core_and_cpu_backend_import_no_device_backend_internals():
    files = [*sorted((ROOT / "src" / "openreg").rglob("*.py")), *sorted((ROOT / "backends" / "cpu").rglob("*.py"))]
    assert len(files) > 50
    assert _device_internals_imported(files) == []


def test_the_scan_finds_internal_imports(tmp_path, monkeypatch):
    """The scan sees absolute, relative and function-level imports of device modules."""
    core = ROOT / "src" / "openreg" / "probe.py"
    cpu = ROOT / "backends" / "cpu" / "probe.py"
    texts = {core: "def f():\n    from .backends.privateuseone import streams\n",
             cpu: "from ..privateuseone.driver_select import get_driver\nimport openreg.backends.privateuseone\n"}
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: texts[self])
    assert _device_internals_imported([core, cpu]) == [
        "src/openreg/probe.py:2: openreg.backends.privateuseone.streams",
        "backends/cpu/probe.py:1: openreg.backends.privateuseone.driver_select",
        "backends/cpu/probe.py:1: openreg.backends.privateuseone.driver_select.get_driver"]


# -- no import cycle in the device backend ------------------------------------------------------------------
LAUNCH_PATH = ("device_ops", "kernels", "launchers", "kernels_random", "copies")


def _device_import_graph() -> dict[str, set[str]]:
    """module -> the modules of the device package it imports (at the top or inside functions)."""
    graph = {}
    for name in sorted(DEVICE_MODULES):
        path = ROOT / "backends" / "privateuseone" / f"{name}.py"
        graph[name] = {m[len(DEVICE_PACKAGE) + 1:].split(".")[0] for _, m in _imported_modules(path)
                       if m.startswith(DEVICE_PACKAGE + ".")} & DEVICE_MODULES - {name}
    return graph


def _cycle(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """A path start -> ... -> start through ``graph``, if there is one."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None


def test_launch_path_is_three_files():
    """device_ops (the operators) -> kernels (dtype table, launch configuration, checks per kernel) ->
    launchers (host and CUDA)."""
    graph = _device_import_graph()
    assert {"kernels", "launchers"} <= graph["device_ops"] | graph["kernels"]
    assert graph["launchers"] == set()
    assert not {"raw_kernels", "device_kernels", "kernel_launch", "cupy_launcher", "host_launcher"} & DEVICE_MODULES


def test_no_import_cycle_through_the_launch_modules():
    graph = _device_import_graph()
    cycles = {m: c for m in LAUNCH_PATH if (c := _cycle(graph, m))}
    assert cycles == {}


def test_the_cycle_check_sees_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}, "a") == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}, "a") is None


def test_launch_modules_import_in_any_order():
    """With no cycle (above, lazy imports included) any order works; imported leaf-first in a fresh interpreter,
    then called into (the kernel table)."""
    import subprocess
    import sys
    code = (f"import importlib\nfor m in {list(reversed(LAUNCH_PATH))!r}:\n"
            f"    importlib.import_module('{DEVICE_PACKAGE}.' + m)\n"
            f"from {DEVICE_PACKAGE} import kernels\n"
            "assert len(kernels.all_kernel_names('philox.cu')) == 6\n")
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
