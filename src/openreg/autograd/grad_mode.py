"""Grad mode: whether operators record the autograd graph on this thread.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` work as context managers and as
decorators, as in PyTorch.

>>> import openreg
>>> x = openreg.ones(2, requires_grad=True)
>>> with openreg.no_grad():
...     y = x + 1
>>> y.requires_grad, openreg.is_grad_enabled()
(False, True)
"""
from __future__ import annotations

import functools
import inspect
import threading


class _GradState(threading.local):
    enabled = True
    inference = False


state = _GradState()


def is_grad_enabled() -> bool:
    """Whether grad mode is on for this thread.

    >>> import openreg
    >>> openreg.is_grad_enabled()
    True
    """
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """Whether ``inference_mode`` is active on this thread.

    >>> import openreg
    >>> openreg.is_inference_mode_enabled()
    False
    """
    return state.inference


class _DecoratorContextManager:
    """A context manager usable as a function decorator (a fresh instance per call)."""

    def _clone(self):
        return self.__class__()

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is not supported")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self._clone():
                return func(*args, **kwargs)
        return wrapper

    def _wrap_generator(self, func):
        """A generator function whose body runs under the mode each time it resumes (between its yields the
        caller's mode holds), as PyTorch's decorators do."""
        @functools.wraps(func)
        def generator(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self._clone():
                    value = gen.send(None)
                while True:
                    try:
                        sent = yield value
                    except GeneratorExit:
                        with self._clone():
                            gen.close()
                        raise
                    except BaseException as exc:  # noqa: BLE001 - thrown in by the caller: into the body, under the mode
                        with self._clone():
                            value = gen.throw(exc)
                    else:
                        with self._clone():
                            value = gen.send(sent)
            except StopIteration as stop:
                return stop.value
        return generator


class _NoParamDecorator(_DecoratorContextManager):
    """Also usable as a bare decorator (``@no_grad`` as well as ``@no_grad()``), as in PyTorch 2."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """Disable gradient recording inside the block (or the decorated function).

    >>> import openreg
    >>> @openreg.no_grad()
    ... def double(t):
    ...     return t * 2
    >>> double(openreg.ones(1, requires_grad=True)).requires_grad
    False
    """

    def __enter__(self) -> None:
        self._prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc) -> None:
        state.enabled = self._prev

    def __call__(self, func):
        """As a decorator: grad mode saved, turned off and restored around each call, as ``with no_grad()`` does,
        without making a context manager per call (optimizers' ``step`` runs under it every iteration)."""
        if inspect.isclass(func) or inspect.isgeneratorfunction(func):
            return super().__call__(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = state.enabled
            state.enabled = False
            try:
                return func(*args, **kwargs)
            finally:
                state.enabled = prev
        return wrapper


class enable_grad(_NoParamDecorator):
    """Enable gradient recording inside the block, even within ``no_grad``.

    >>> import openreg
    >>> x = openreg.ones(1, requires_grad=True)
    >>> with openreg.no_grad():
    ...     with openreg.enable_grad():
    ...         y = x * 2
    >>> y.requires_grad
    True
    """

    def __enter__(self) -> None:
        self._prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc) -> None:
        state.enabled = self._prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``; takes effect immediately, and is undone on exit when used with ``with``.

    >>> import openreg
    >>> with openreg.set_grad_enabled(False):
    ...     openreg.is_grad_enabled()
    False
    """

    def __init__(self, mode: bool) -> None:
        self._prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def _clone(self):
        return self.__class__(self.mode)

    def __call__(self, func):
        state.enabled = self._prev     # used as a decorator: do not change the mode at decoration time
        return super().__call__(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.enabled = self._prev


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad`` (and marks inference mode); ``inference_mode(False)`` turns grad mode on and leaves
    inference mode for its block, as PyTorch's.

    >>> import openreg
    >>> with openreg.inference_mode():
    ...     y = openreg.ones(1, requires_grad=True) * 2
    >>> y.requires_grad
    False
    """

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):   # bare @inference_mode
            return cls(True)(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def _clone(self):
        return self.__class__(self.mode)

    def __enter__(self) -> None:
        self._prev = (state.enabled, state.inference)
        if self.mode:
            from .inference import enter
            enter()
            state.enabled, state.inference = False, True
        else:  # as PyTorch's InferenceMode(false): grad mode on, out of inference mode
            state.enabled, state.inference = True, False

    def __exit__(self, *exc) -> None:
        state.enabled, state.inference = self._prev
        if self.mode:
            from .inference import leave
            leave()


__all__ = [
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
    "state",
]
