"""Record the surface of the real CuPy that the device code may use, into ``surface.json`` beside this file.

The strict CuPy double (``tests/cupy_double/strict.py``) offers exactly these names, keywords and dtype limits,
so a test that passes on it cannot call what real CuPy refuses. Run it whenever the CuPy version changes::

    python tests/cupy_double/record.py            # rewrite surface.json from the installed cupy
    python tests/cupy_double/record.py --check    # exit 1 if surface.json differs from the installed cupy

CuPy imports without a GPU, and so does this script: arrays are built over host memory with
``cupy.cuda.UnownedMemory``; a call that CuPy accepts fails only when it reaches the driver
(``CUDARuntimeError``), a call it refuses fails before (``TypeError``/``NotImplementedError``). That
difference is what the dtype probes record.
"""
from __future__ import annotations

import ast
import inspect
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SURFACE = HERE / "surface.json"
REPO = HERE.parents[1]
# The dtypes openreg stores on the device (bfloat16 travels as uint16 bits).
PROBE_DTYPES = ("bool", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                "float32", "float64", "complex64", "complex128")
NAMESPACES = ("cupy", "cupy.cuda", "cupy.cuda.runtime", "cupyx", "cupy.linalg", "cupy.random", "cupy.fft")
_DOC_SIG = re.compile(r"^\s*[\w.]+\((.*)\)")


# -- what the device code calls ------------------------------------------------------------------------------
def used_calls(roots=("src", "backends")) -> dict[str, set[str]]:
    """``{name: keywords}`` of every ``xp.<name>(...)`` / ``xp.<ufunc>.<method>(...)`` call under ``roots``.

    ``xp`` is the array-module variable of the device-agnostic compute code (NumPy or CuPy).
    """
    calls: dict[str, set[str]] = {}
    for root in roots:
        for path in sorted((REPO / root).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Attribute):
                    name = _xp_attribute(node)
                    if name:
                        calls.setdefault(name, set())
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    name = _xp_attribute(node.func)
                    if name:
                        calls.setdefault(name, set()).update(k.arg for k in node.keywords if k.arg)
    return calls


def _xp_attribute(node: ast.Attribute) -> str | None:
    parts = [node.attr]
    value = node.value
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    if isinstance(value, ast.Name) and value.id == "xp":
        return ".".join(reversed(parts))
    return None


# -- signatures ----------------------------------------------------------------------------------------------
def signature_of(obj) -> dict | None:
    """Parameter names and kinds, from ``inspect`` or, for Cython methods, the embedded docstring signature."""
    try:
        sig = inspect.signature(obj)
        params = [[p.name, p.kind.name] for p in sig.parameters.values()]
    except (TypeError, ValueError):
        match = _DOC_SIG.match((getattr(obj, "__doc__", None) or "").split("\n", 1)[0])
        if not match:
            return None
        params = []
        kind = "POSITIONAL_OR_KEYWORD"
        for raw in _split_params(match.group(1)):
            raw = raw.split("=", 1)[0].strip()
            if raw == "*":
                kind = "KEYWORD_ONLY"
                continue
            if raw.startswith("**"):
                params.append([raw[2:], "VAR_KEYWORD"])
            elif raw.startswith("*"):
                params.append([raw[1:], "VAR_POSITIONAL"])
                kind = "KEYWORD_ONLY"
            elif raw:
                params.append([raw.split()[-1], kind])   # drop Cython types ("Py_ssize_t axis1")
    if params and params[0][0] == "self":
        params = params[1:]
    return {"params": params}


def _split_params(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur] if cur.strip() else out


# -- probes on arrays over host memory -----------------------------------------------------------------------
class _Probe:
    def __init__(self, cupy):
        import numpy as np
        self.cupy, self.np = cupy, np
        self._keep = []

    def array(self, dtype: str, shape=(2, 2)):
        np, cp = self.np, self.cupy
        buf = np.zeros(256, np.uint8)
        self._keep.append(buf)
        mem = cp.cuda.UnownedMemory(buf.ctypes.data, buf.nbytes, buf, device_id=0)
        return cp.ndarray(shape, np.dtype(dtype), memptr=cp.cuda.MemoryPointer(mem, 0))

    def host_args(self, fn) -> list:
        """NumPy arrays for every required positional parameter (a list of two for sequence parameters)."""
        host = self.np.ones((2, 2), self.np.float32)
        if isinstance(fn, self.cupy.ufunc):
            return [host] * fn.nin
        args = []
        for p in inspect.signature(fn).parameters.values():
            if p.default is not p.empty or p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                break
            args.append([host, host] if p.name in ("tup", "arrays", "seq", "xs") else host)
        return args

    def outcome(self, fn) -> str:
        """"ok" when CuPy accepted the call (it reached the driver), else "refused: <first line>"."""
        from cupy_backends.cuda.api.runtime import CUDARuntimeError
        try:
            fn()
        except CUDARuntimeError:
            return "ok"
        except (TypeError, NotImplementedError) as exc:
            return "refused: " + (str(exc).split("\n", 1)[0][:160] or type(exc).__name__)
        except Exception as exc:  # noqa: BLE001 - shape or value complaints say nothing about dtypes
            return "ok" if "cuda" in type(exc).__module__.lower() else "other: " + type(exc).__name__
        return "ok"


def record() -> dict:
    import importlib

    import cupy
    probe = _Probe(cupy)
    surface: dict = {"cupy_version": cupy.__version__, "names": {}, "functions": {}, "ufuncs": {},
                     "ndarray": {}}
    for ns in NAMESPACES:
        mod = importlib.import_module(ns)
        surface["names"][ns] = sorted(n for n in dir(mod) if not n.startswith("_"))
    for name in surface["names"]["cupy"]:
        obj = getattr(cupy, name)
        if isinstance(obj, cupy.ufunc):
            surface["ufuncs"][name] = {"nin": obj.nin, "nout": obj.nout, "types": list(obj.types)}
        elif callable(obj) and not isinstance(obj, type):
            sig = signature_of(obj)
            if sig is not None:
                surface["functions"][name] = sig
    for name in surface["names"]["cupy.fft"]:     # the FFT records' calls (xp.fft.rfftn ...)
        obj = getattr(cupy.fft, name)
        if callable(obj) and not isinstance(obj, type):
            sig = signature_of(obj)
            if sig is not None:
                surface["functions"]["fft." + name] = sig
    for name in ("scatter_add", "scatter_max", "scatter_min"):
        surface["functions"]["cupyx." + name] = signature_of(getattr(importlib.import_module("cupyx"), name))
    for name in sorted(dir(cupy.ndarray)):
        if name.startswith("_") and name not in ("__cuda_array_interface__", "__dlpack__", "__dlpack_device__"):
            continue
        attr = getattr(cupy.ndarray, name)
        sig = signature_of(attr) if callable(attr) else None
        surface["ndarray"][name] = sig if sig is not None else {"attribute": True}
    # What the device code uses gets semantic probes: which dtypes CuPy accepts, and host (NumPy) arguments.
    used = used_calls()
    probes: dict = {}
    for name in sorted(used):
        head, _, method = name.partition(".")
        obj = getattr(cupy, head, None)
        if isinstance(obj, cupy.ufunc) and method == "at":
            probes[name] = {dt: probe.outcome(lambda o=obj, dt=dt: o.at(
                probe.array(dt, (4,)), probe.array("int64", (2,)), probe.array(dt, (2,)))) for dt in PROBE_DTYPES}
        elif obj is not None and not method and callable(obj) and not isinstance(obj, type):
            probes[name] = {"host_arrays": probe.outcome(lambda o=obj: o(*probe.host_args(o)))}
    surface["probes"] = probes
    return surface


def main(argv: list[str]) -> int:
    surface = record()
    text = json.dumps(surface, indent=1, sort_keys=True) + "\n"
    if "--check" in argv:
        if not SURFACE.exists() or SURFACE.read_text() != text:
            print(f"{SURFACE} is out of date for cupy {surface['cupy_version']}: run {Path(__file__).name}")
            return 1
        print(f"{SURFACE.name} is current for cupy {surface['cupy_version']}")
        return 0
    SURFACE.write_text(text)
    print(f"wrote {SURFACE} (cupy {surface['cupy_version']}, {len(surface['functions'])} functions, "
          f"{len(surface['ufuncs'])} ufuncs, {len(surface['ndarray'])} ndarray members)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
