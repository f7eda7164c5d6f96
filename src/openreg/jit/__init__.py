"""``openreg.jit``: programs written for TorchScript run, eagerly.

openreg has no TorchScript compiler: ``script`` and ``trace`` give back the function or module they are handed, so
code decorated with ``@torch.jit.script`` or wrapped in ``torch.jit.trace`` computes exactly what it computes
without them (TorchScript's own promise), as ``openreg.compile`` does for ``torch.compile``. ``is_scripting()`` and
``is_tracing()`` are False, as in PyTorch's eager mode. What has no eager meaning -- reading or writing TorchScript
archives (``save``, ``load``) -- raises ``NotImplementedError`` naming the missing feature.

>>> import openreg
>>> @openreg.jit.script
... def gelu_tanh(x):
...     return 0.5 * x * (1.0 + openreg.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
>>> round(gelu_tanh(openreg.tensor([1.0])).item(), 4)
0.8412
>>> m = openreg.nn.Linear(2, 2)
>>> openreg.jit.trace(m, openreg.ones(1, 2)) is m, openreg.jit.is_scripting()
(True, False)
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar  # Final: torch.jit.Final

from ..nn.module import Module

__all__ = [
    "Final", "Future", "ScriptFunction", "ScriptModule", "annotate", "export", "fork", "freeze", "ignore",
    "interface", "is_scripting", "is_tracing", "isinstance", "load", "optimize_for_inference", "save", "script",
    "script_if_tracing", "script_method", "trace", "trace_module", "unused", "wait",
]

_T = TypeVar("_T")
_builtin_isinstance = isinstance


def _check_callable(obj: Any, what: str) -> None:
    if not callable(obj):
        raise TypeError(f"{what}: expected a function or an nn.Module, not {type(obj).__name__}")


def script(obj: Any = None, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> Any:
    """``torch.jit.script``: ``obj`` (a function, an ``nn.Module`` or a class) itself, run eagerly."""
    if obj is None:
        return script
    _check_callable(obj, "openreg.jit.script")
    return obj


def trace(func: Any, example_inputs: Any = None, optimize: Any = None, check_trace: bool = True,
          check_inputs: Any = None, check_tolerance: float = 1e-5, strict: bool = True, _force_outplace: bool = False,
          _module_class: Any = None, _compilation_unit: Any = None, example_kwarg_inputs: Any = None,
          _store_inputs: bool = True) -> Any:
    """``torch.jit.trace``: ``func`` itself, run eagerly (nothing is recorded, so no input shape is baked in)."""
    _check_callable(func, "openreg.jit.trace")
    return func


def trace_module(mod: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
    """``torch.jit.trace_module``: ``mod`` itself, run eagerly."""
    _check_callable(mod, "openreg.jit.trace_module")
    return mod


def script_if_tracing(fn: Callable) -> Callable:
    """``torch.jit.script_if_tracing``: ``fn`` itself."""
    return fn


def _passthrough_decorator(fn: Any = None, **_: Any) -> Any:
    # @ignore, @ignore(drop=True), @unused, @export: markers for the TorchScript compiler, which openreg has not.
    if fn is None:
        return _passthrough_decorator
    return fn


ignore = unused = export = script_method = interface = _passthrough_decorator


# TorchScript overload declarations (torchvision's DenseNet declares its layers' ``forward`` this way): recorded by
# qualified name, as PyTorch records them for its compiler, and returned unchanged; the real definition that
# follows them in the source is the one Python calls.
_overloaded_fns: dict[str, list[Callable]] = {}
_overloaded_methods: dict[str, list[Callable]] = {}


def _check_overload_body(func: Callable) -> None:
    import ast
    import inspect
    import textwrap
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return   # no source (exec'd code): nothing to check, as for PyTorch's parse of a builtin
    body = ast.parse(source).body[0].body
    doc = body[1:] if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str) and len(body) > 1 else body
    ok = len(doc) == 1 and (isinstance(doc[0], ast.Pass) or (
        isinstance(doc[0], ast.Expr) and isinstance(doc[0].value, ast.Constant) and doc[0].value.value is Ellipsis))
    if not ok:
        raise RuntimeError("Only `pass` statement or `...` can be the body of overload declaration:\n" + source)


def _overload(func: Callable) -> Callable:
    """``torch.jit._overload``: declare one typed signature of a function; returns ``func``."""
    _check_overload_body(func)
    _overloaded_fns.setdefault(f"{func.__module__}.{func.__qualname__}", []).append(func)
    return func


def _overload_method(func: Callable) -> Callable:
    """``torch.jit._overload_method``: declare one typed signature of a method; returns ``func``.

    >>> import openreg
    >>> class Layer(openreg.nn.Module):
    ...     @openreg.jit._overload_method
    ...     def forward(self, x: list) -> int:
    ...         pass
    ...     def forward(self, x):
    ...         return len(x)
    >>> Layer()([1, 2])
    2
    """
    _check_overload_body(func)
    _overloaded_methods.setdefault(f"{func.__module__}.{func.__qualname__}", []).append(func)
    return func


def is_scripting() -> bool:
    """False: openreg never compiles TorchScript, so code always runs in Python."""
    return False


def is_tracing() -> bool:
    """False: ``trace`` records nothing."""
    return False


def annotate(the_type: Any, the_value: _T) -> _T:
    """``torch.jit.annotate``: the value (the type is for the TorchScript compiler)."""
    return the_value


def isinstance(obj: Any, target_type: Any) -> bool:
    """``torch.jit.isinstance`` for plain classes and ``typing`` containers (``List[int]``, ``Dict[str, Tensor]``)."""
    import types
    import typing
    origin = typing.get_origin(target_type)
    if origin is None:
        return _builtin_isinstance(obj, target_type)
    args = typing.get_args(target_type)
    if origin is typing.Union or origin is types.UnionType:
        return any(isinstance(obj, a) for a in args)
    if not _builtin_isinstance(obj, origin):
        return False
    if origin in (list, set) and args:
        return all(isinstance(x, args[0]) for x in obj)
    if origin is tuple and args:
        return len(obj) == len(args) and all(isinstance(x, a) for x, a in zip(obj, args))
    if origin is dict and args:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    return True


class Future(Generic[_T]):
    """The result of ``fork``: computed when forked (openreg runs it at once), returned by ``wait``."""

    def __init__(self, value: _T):
        self._value = value

    def wait(self) -> _T:
        return self._value

    def done(self) -> bool:
        return True


def fork(func: Callable, *args: Any, **kwargs: Any) -> Future:
    """``torch.jit.fork``: runs ``func(*args, **kwargs)`` now (TorchScript would run it asynchronously)."""
    return Future(func(*args, **kwargs))


def wait(future: Future) -> Any:
    """``torch.jit.wait``: the forked call's result."""
    return future.wait()


def freeze(mod: Any, preserved_attrs: Any = None, optimize_numerics: bool = True) -> Any:
    """``torch.jit.freeze``: the module itself (nothing is compiled, so nothing is inlined)."""
    return mod


def optimize_for_inference(mod: Any, other_methods: Any = None) -> Any:
    """``torch.jit.optimize_for_inference``: the module itself."""
    return mod


class ScriptModule(Module):
    """What ``torch.jit.script`` returns for modules in PyTorch; openreg's ``script`` returns the module itself,
    so a scripted module is no instance of it (``isinstance`` checks are False, as for an eager module). Classes
    written against the older TorchScript API subclass it directly, with ``@script_method`` methods (BlinkDL's
    RWKV_in_150_lines): they are ``nn.Module`` subclasses, run eagerly.

    >>> import openreg
    >>> class Scale(openreg.jit.ScriptModule):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.eval()
    ...     @openreg.jit.script_method
    ...     def forward(self, x):
    ...         return 2 * x
    >>> Scale()(openreg.ones(2)).tolist(), isinstance(openreg.nn.Linear(1, 1), openreg.jit.ScriptModule)
    ([2.0, 2.0], False)
    """


class ScriptFunction:
    """What ``torch.jit.script`` returns for functions in PyTorch; never produced by openreg (see ScriptModule)."""


def _no_archives(what: str):
    raise NotImplementedError(f"openreg.jit.{what}: openreg has no TorchScript, so it cannot {what} TorchScript "
                              f"archives; save the state_dict with openreg.save instead")


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """``torch.jit.save``: not available (no TorchScript archives); raises ``NotImplementedError``."""
    _no_archives("save")


def load(f: Any, map_location: Any = None, _extra_files: Any = None, _restore_shapes: bool = False) -> Any:
    """``torch.jit.load``: not available (no TorchScript archives); raises ``NotImplementedError``."""
    _no_archives("load")
