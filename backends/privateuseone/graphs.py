"""CUDA graphs (``CUDAGraph``, ``graph``, ``make_graphed_callables``, ``graph_pool_handle``) are not supported:
openreg launches every kernel eagerly and has no graph capture, so each raises ``NotImplementedError`` naming CUDA
graphs instead of running the program without them. ``is_current_stream_capturing()`` is False: nothing ever
captures.

>>> import openreg
>>> mod = getattr(openreg, openreg.utils.get_privateuse1_backend_name())
>>> mod.is_current_stream_capturing()
False
>>> mod.CUDAGraph()
Traceback (most recent call last):
...
NotImplementedError: CUDA graphs (CUDAGraph) are not supported by openreg's device: ...
"""
from __future__ import annotations

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"]


def _refuse(what: str):
    from openreg.devices import privateuse1_name
    raise NotImplementedError(f"CUDA graphs ({what}) are not supported by openreg's device: kernels run eagerly "
                              f"and cannot be captured; run the captured code directly on the "
                              f"'{privateuse1_name()}' device instead")


class CUDAGraph:
    """A captured CUDA graph: not supported (raises ``NotImplementedError``)."""

    def __init__(self, keep_graph: bool = False) -> None:
        _refuse("CUDAGraph")


class graph:
    """``with graph(g):`` capture context: not supported (raises ``NotImplementedError``)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode: str = "global") -> None:
        _refuse("graph")


def make_graphed_callables(callables, sample_args, num_warmup_iters: int = 3, allow_unused_input: bool = False,
                           pool=None):
    """Graph-captured versions of callables: not supported (raises ``NotImplementedError``)."""
    _refuse("make_graphed_callables")


def graph_pool_handle():
    """A memory pool for graph capture: not supported (raises ``NotImplementedError``)."""
    _refuse("graph_pool_handle")


def is_current_stream_capturing() -> bool:
    """False: openreg never captures a stream."""
    return False
