"""One backward op for every input of a multi-input node.

A derivative entry has one formula per input and the graph node calls them one after another with the same
gradient list and saved arguments. Ops whose backward computes all inputs' gradients in one call (attention,
the fused recurrent cells) route every formula through :func:`once`: the first call computes them all, the
others take theirs from a memo, which empties as soon as each needed gradient was taken.

>>> calls = []
>>> def compute(g, a):
...     calls.append(1)
...     return (g[0] * 2, g[0] * 3)
>>> g, a = [1.0], object()
>>> [once(g, a, compute, i, lambda a: [True, True]) for i in (0, 1)], len(calls)
([2.0, 3.0], 1)
"""
from __future__ import annotations

_memo: dict = {}


def once(g, a, compute, which: int, needed):
    """Gradient ``which`` of ``compute(g, a)``, computed once per node application; ``needed(a)`` lists which
    inputs will ask (those that require grad)."""
    if _memo.get("g") is not g or _memo.get("a") is not a:
        _memo.clear()
        _memo.update(g=g, a=a, grads=compute(g, a), left={i for i, n in enumerate(needed(a)) if n})
    grads = _memo["grads"]
    _memo["left"].discard(which)
    if not _memo["left"]:
        _memo.clear()
    return grads[which]


__all__ = ["once"]
