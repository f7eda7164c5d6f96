"""The backward engine: counts dependencies, runs ready nodes in decreasing sequence number, routes
gradients along ``next_edges`` (summing them per input), runs hooks, and frees saved tensors unless
``retain_graph``. Leaf updates (AccumulateGrad) are applied after the whole graph ran, so a failing backward
leaves existing ``.grad`` values unchanged.

>>> import openreg
>>> from openreg.autograd.engine import run_backward
>>> x = openreg.ones(2, requires_grad=True)
>>> y = (x * x).sum()
>>> run_backward([y], [openreg.ones(())], keep_graph=False, create_graph=False)
>>> x.grad.tolist()
[2.0, 2.0]
"""
from __future__ import annotations

import functools
import itertools
import operator
from heapq import heappop, heappush

from .._dispatch.ops import A
from .._quiet import enter_quiet, leave_quiet
from . import grad_mode
from ._ops import expandable_to, sum_to
from .accumulate_grad import AccumulateGrad
from .anomaly_mode import check_outputs, warn_error
from .anomaly_mode import state as anomaly
from .graph import _NO_HOOKS, _NO_MAP, UINT64_MAX, Node, grad_accumulator, gradient_edge
from .saved import SavedTensor

_new = object.__new__
_FormulaNode = None


def _formula_node_class():
    """``FormulaNode``, imported on first use (kernel.py imports the tensor module, which imports this one)."""
    global _FormulaNode
    from .kernel import FormulaNode
    _FormulaNode = FormulaNode
    return FormulaNode
_is_none = functools.partial(operator.is_, None)    # ``g is None`` without a Python frame (for map)


class GraphRoot(Node):
    """Feeds the given root gradients into the graph."""

    def __init__(self, edges: list, grads: list) -> None:
        # Node.__init__ written out (one per backward call)
        self.next_edges = edges
        self._sequence_nr = UINT64_MAX
        self._pre_hooks = self._post_hooks = _NO_HOOKS
        self._tensor_pre_hooks = self._retains = _NO_MAP
        self.input_meta = []
        self.grads = grads

    def name(self) -> str:
        return "GraphRoot"

    def apply(self, grads: list) -> list:
        return list(self.grads)


_GRAPH_ROOT = GraphRoot([], [])     # what names the root in the errors of its gradients' routing


def _fmt(size) -> str:
    return str(list(size))


def validate(node: Node, i: int, g, meta):
    """PyTorch's validate_outputs: reduce broadcast gradients, cast dtype, check device."""
    if meta is None:
        return None
    size, dtype, device = meta[0], meta[1], meta[2]
    if tuple(g._size) != tuple(size):
        if not expandable_to(tuple(size), tuple(g._size)):
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"{_fmt(g._size)} but expected shape compatible with {_fmt(size)}")
        g = sum_to(g, size)
    if g._dtype is not dtype:
        if g._dtype.is_complex and not dtype.is_complex:
            g = A.real(g)       # a real input's gradient is the real part (PyTorch's handle_r_to_c)
        g = g.to(dtype)
    if g._storage.device != device:
        raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - expected device "
                           f"{device} but got {g.device}")
    return g


def _sum(old, new):
    """Two gradients of one input added up in PyTorch's InputBuffer order: ``new + old`` when the buffered one
    is sparse (sparse + sparse keeps that order; dense + sparse is the supported form), else ``old + new``."""
    if old.is_sparse:
        return new + old
    return old + new


def _hook_name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def _run_tensor_hooks(hooks: list, g):
    for _hid, fn in list(hooks):
        r = fn(g)
        if r is not None:
            if tuple(r._size) != tuple(g._size):
                raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the size of value")
            if r._dtype is not g._dtype:
                raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the type of value (was {g.type()} got "
                                   f"{r.type()})")
            if r.device != g.device:
                raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the type of value (was {g.type()} got "
                                   f"{r.type()})")
            g = r
    return g


def _run_post_hooks(node: Node, outputs: list, grads: list, edges: list) -> list:
    """A node's ``hook(grad_inputs, grad_outputs)`` calls, after its gradients were validated (reduced to each
    input's shape, as PyTorch's ``validate_outputs`` does before the post-hooks); a hook may return a tuple of
    replacements of the same length."""
    outputs = [validate(node, i, g, e[0].input_meta[e[1]]) if g is not None and e is not None and
               e[1] < len(e[0].input_meta) else g for i, (g, e) in enumerate(zip(outputs, edges))]
    for _hid, hook in list(node._post_hooks):
        r = hook(tuple(outputs), tuple(grads))
        if r is not None:
            if not isinstance(r, tuple):
                raise TypeError(f"expected tuple, but hook returned '{type(r).__name__}'")
            if len(r) != len(outputs):
                raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got "
                                   f"{len(r)}, but expected {len(outputs)})")
            outputs = list(r)
    return outputs


def _retain(t, g) -> None:
    """retain_grad's update of a non-leaf's ``.grad``."""
    from ._ops import clone_like
    if t._grad is None:
        t._grad = clone_like(g, t)
    else:
        t._grad = A.add__Tensor(t._grad, g)


def run_backward(roots: list, root_grads: list, *, keep_graph: bool, create_graph: bool, inputs=None,
                 accumulate: bool = True, allow_unused: bool = True):
    """Run the graph from ``roots``. With ``inputs`` and ``accumulate=False`` return their gradients
    (``autograd.grad``); with ``accumulate=True`` only update ``.grad`` (of ``inputs`` when given).
    Backward formulas compute with inf and NaN silently, as the forward kernels do."""
    token = enter_quiet()
    try:
        return _run_backward(roots, root_grads, keep_graph, create_graph, inputs, accumulate)
    finally:
        leave_quiet(token)


def _apply(node, grads, edges) -> list:
    """``node.apply(grads)``, which must give one gradient per edge."""
    outputs = node.apply(grads)
    if len(outputs) != len(edges):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(edges)}, got {len(outputs)})")
    return outputs


def _apply_checked(node, grads, edges):
    """A node's gradients under anomaly detection: an error inside warns which node raised it, and NaN in
    the result raises (``anomaly_mode``)."""
    try:
        if all(map(_is_none, grads)) and not node._post_hooks:
            return [None] * len(edges)
        outputs = _apply(node, grads, edges)
        check_outputs(node, outputs)
    except Exception:
        warn_error(node)
        raise
    return outputs


def _run_backward(roots: list, root_grads: list, keep_graph: bool, create_graph: bool, inputs, accumulate: bool):
    root_edges = []
    for t in roots:     # gradient_edge(t), written out for an output that is not a view
        fn = t._grad_fn
        root_edges.append((fn, t._output_nr) if fn is not None and t._base is None else gradient_edge(t))
    formula_node = _FormulaNode or _formula_node_class()
    if inputs is None and not anomaly[0]:
        _run_all(root_edges, root_grads, keep_graph, create_graph, formula_node)
        return None
    root = _new(GraphRoot)      # GraphRoot(root_edges, root_grads) written out
    root.next_edges = root_edges
    root._sequence_nr = UINT64_MAX
    root._pre_hooks = root._post_hooks = _NO_HOOKS
    root._tensor_pre_hooks = root._retains = _NO_MAP
    root.input_meta = []
    root.grads = root_grads
    # targets: edges whose gradient is captured (grad) or accumulated (backward(inputs=...))
    targets: dict = {}
    input_edges = []
    deps: dict = {}
    needed = None       # every node runs (no inputs): no membership tests
    if inputs is None:
        # discover the graph and count the dependencies on the way (deps doubles as the visited set)
        stack = [root]
        while stack:
            for e in stack.pop().next_edges:
                if e is not None:
                    nxt = e[0]
                    d = deps.get(nxt)
                    if d is None:
                        deps[nxt] = 1
                        stack.append(nxt)
                    else:
                        deps[nxt] = d + 1
    else:
        for k, t in enumerate(inputs):
            e = gradient_edge(t)
            if e is None:
                if not accumulate:
                    raise RuntimeError("One of the differentiated Tensors does not require grad")
                e = (grad_accumulator(t), 0)
            input_edges.append(e)
            targets.setdefault((e[0], e[1]), []).append(k)
        needed = _needed_nodes(root, root_edges, input_edges, targets, accumulate, deps)
    captured = [None] * (len(inputs) if inputs is not None else 0)
    buffers: dict = {}
    counter = itertools.count()
    # the ready nodes, by decreasing sequence number; ``ready`` holds the only one while there is just one (a
    # chain of nodes, the common case, needs no heap)
    heap = []
    ready = root
    acc_updates = []
    retains = []
    prev_mode = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    try:
        while True:
            if ready is not None:
                node = ready
                ready = None
            elif heap:
                node = heappop(heap)[2]
            else:
                break
            grads = buffers.pop(node, None)
            if grads is None:
                grads = [None] * (len(node.input_meta) or 1)
            # tensor pre-hooks (and retain_grad) for each input of the node
            is_acc = isinstance(node, AccumulateGrad)
            if is_acc:
                m = node.variable._ameta
                if m is not None and m.hooks and grads[0] is not None:
                    grads[0] = _run_tensor_hooks(m.hooks, grads[0])
            else:
                if node._tensor_pre_hooks:
                    for nr, hooks in node._tensor_pre_hooks.items():
                        if nr < len(grads) and grads[nr] is not None:
                            grads[nr] = _run_tensor_hooks(hooks, grads[nr])
                if node._retains:
                    for nr, ref in node._retains.items():
                        t = ref()
                        if t is not None and nr < len(grads) and grads[nr] is not None:
                            retains.append((t, grads[nr]))
            if targets:
                for nr in range(len(grads)):
                    ks = targets.get((node, nr))
                    if ks:
                        for k in ks:
                            captured[k] = grads[nr]
            if needed is not None and node not in needed:
                continue
            if node._pre_hooks:
                for _hid, hook in list(node._pre_hooks):
                    r = hook(tuple(grads))
                    if r is not None:
                        grads = list(r)
            if is_acc:
                if inputs is not None and not accumulate:
                    continue
                acc_updates.append((node, grads))
                continue
            edges = node.next_edges
            if anomaly[0] and node is not root:
                outputs = _apply_checked(node, grads, edges)
            elif node is root:
                outputs = list(root_grads)      # GraphRoot.apply
            elif not node._post_hooks and (
                    grads[0] is None if len(grads) == 1 else all(map(_is_none, grads))):
                outputs = [None] * len(edges)
            elif node.__class__ is formula_node and not node._post_hooks and \
                    (plan := node.info.bwd_by_slot) is not None:
                # FormulaNode.apply's planned path written out (its gradients are not all None here)
                outputs = [None] * len(edges)
                gin = list(grads) if node.info.multi_output else grads[0]
                sargs = node.args
                for i, fn in plan:
                    if edges[i] is not None:
                        outputs[i] = fn(gin, sargs)
                gin = None
            else:
                outputs = _apply(node, grads, edges)
            if node._post_hooks:
                outputs = _run_post_hooks(node, outputs, grads, edges)
            if not keep_graph and node is not root:
                if node.__class__ is formula_node:     # FormulaNode.release written out
                    sargs = node.args
                    if sargs is not None:
                        for v in sargs._values.values():
                            if v.__class__ is SavedTensor:
                                v.freed = True
                                v.data = None
                            elif v.__class__ is list:
                                for st in v:
                                    if st.__class__ is SavedTensor:
                                        st.release()
                    sargs = None
                else:
                    node.release()
            del grads
            i = -1
            for e in edges:
                i += 1
                if e is None:
                    continue
                nxt, nr = e
                if needed is not None and nxt not in needed and (nxt, nr) not in targets:
                    continue
                g = outputs[i]
                im = nxt.input_meta
                if g is not None and nr < len(im):
                    m = im[nr]
                    # the common case (same shape, dtype and device object) needs no call
                    if m is None or g._size != m[0] or g._dtype is not m[1] or g._storage.device is not m[2]:
                        g = validate(node, i, g, m)
                buf = buffers.get(nxt)
                if buf is None:
                    if nr == 0 and len(im) <= 1:     # a single input: its buffer is complete (no sum)
                        buffers[nxt] = [g]
                    else:
                        buf = buffers[nxt] = [None] * len(im)
                        buf[nr] = g
                elif g is not None:
                    buf[nr] = g if buf[nr] is None else _sum(buf[nr], g)
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    if ready is None and not heap:
                        ready = nxt
                    else:
                        if ready is not None:
                            heappush(heap, (-ready._sequence_nr, next(counter), ready))
                            ready = None
                        heappush(heap, (-nxt._sequence_nr, next(counter), nxt))
        outputs = g = buf = None
        for t, g in retains:
            _retain(t, g)
        for node, grads in acc_updates:
            node.apply(grads)
            if not keep_graph and node.__class__ is not AccumulateGrad:    # its release is Node's no-op
                node.release()
    finally:
        grad_mode.state.enabled = prev_mode
    if inputs is not None and not accumulate:
        return captured
    if inputs is not None and accumulate:
        for k, t in enumerate(inputs):
            if t._grad_fn is not None and captured[k] is not None:
                _retain(t, captured[k])
    return None


def _hooked(node, grads: list, retains: list) -> list:
    """``_run_all``'s step for a node with hooks (or a leaf whose tensor has hooks): its tensor pre-hooks and
    retain_grad captures, its pre-hooks, then for a function node its gradients and post-hooks (for an
    AccumulateGrad the hooked ``grads``, which the caller keeps for the update)."""
    is_acc = isinstance(node, AccumulateGrad)
    if is_acc:
        m = node.variable._ameta
        if m is not None and m.hooks and grads[0] is not None:
            grads[0] = _run_tensor_hooks(m.hooks, grads[0])
    else:
        for nr, hooks in node._tensor_pre_hooks.items():
            if nr < len(grads) and grads[nr] is not None:
                grads[nr] = _run_tensor_hooks(hooks, grads[nr])
        for nr, ref in node._retains.items():
            t = ref()
            if t is not None and nr < len(grads) and grads[nr] is not None:
                retains.append((t, grads[nr]))
    for _hid, hook in list(node._pre_hooks):
        r = hook(tuple(grads))
        if r is not None:
            grads = list(r)
    if is_acc:
        return grads
    edges = node.next_edges
    if not node._post_hooks and all(map(_is_none, grads)):
        return [None] * len(edges)
    outputs = _apply(node, grads, edges)
    if node._post_hooks:
        outputs = _run_post_hooks(node, outputs, grads, edges)
    return outputs


def _run_all(root_edges: list, root_grads: list, keep_graph: bool, create_graph: bool, formula_node) -> None:
    """``_run_backward`` for a backward of the whole graph (no ``inputs``) without anomaly detection: the same
    steps in the same order, without the bookkeeping of captured inputs, needed nodes and per-node anomaly
    checks. The root's gradients are routed first (GraphRoot runs first and returns them); a node with hooks
    goes through ``_hooked``; a node with one input gets its gradient list made when routed to (no sum)."""
    deps: dict = {}
    stack = []
    for e in root_edges:    # discover the graph and count the dependencies (deps doubles as the visited set)
        if e is not None:
            nxt = e[0]
            d = deps.get(nxt)
            if d is None:
                deps[nxt] = 1
                stack.append(nxt)
            else:
                deps[nxt] = d + 1
    while stack:
        for e in stack.pop().next_edges:
            if e is not None:
                nxt = e[0]
                d = deps.get(nxt)
                if d is None:
                    deps[nxt] = 1
                    stack.append(nxt)
                else:
                    deps[nxt] = d + 1
    buffers: dict = {}
    counter = itertools.count()
    heap = []
    ready = ready_grads = None
    acc_updates = []
    retains = []
    node = _GRAPH_ROOT      # the routing of GraphRoot's outputs names it in errors
    edges = root_edges
    outputs = root_grads
    prev_mode = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    try:
        while True:
            for e, g in zip(edges, outputs):
                if e is None:
                    continue
                nxt, nr = e
                im = nxt.input_meta
                # the common case (the input's shape, dtype and device) needs no call; a None meta makes it None
                if g is not None and nr < len(im) and (g._size, g._dtype, g._storage.device) != im[nr]:
                    g = validate(node, _index_of(edges, e), g, im[nr])
                left = deps[nxt] - 1
                if left == 0 and nr == 0 and len(im) <= 1 and nxt not in buffers:
                    grads = [g]     # the one gradient of a node with one input: no buffer
                    if ready is None and not heap:
                        ready, ready_grads = nxt, grads
                        continue
                    buffers[nxt] = grads
                else:
                    deps[nxt] = left
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * (len(im) or 1)
                        buf[nr] = g
                    elif g is not None:
                        buf[nr] = g if buf[nr] is None else _sum(buf[nr], g)
                    if left:
                        continue
                    if ready is None and not heap:
                        ready, ready_grads = nxt, buffers.pop(nxt)
                        continue
                if ready is not None:
                    heappush(heap, (-ready._sequence_nr, next(counter), ready))
                    buffers[ready] = ready_grads
                    ready = ready_grads = None
                heappush(heap, (-nxt._sequence_nr, next(counter), nxt))
            outputs = g = buf = None
            if ready is not None:
                node, grads = ready, ready_grads
                ready = ready_grads = None
            elif heap:
                node = heappop(heap)[2]
                grads = buffers.pop(node, None)
                if grads is None:
                    grads = [None] * (len(node.input_meta) or 1)
            else:
                break
            cls = node.__class__
            if cls is AccumulateGrad or (cls is not formula_node and isinstance(node, AccumulateGrad)):
                m = node.variable._ameta
                if node._pre_hooks or (m is not None and m.hooks):
                    grads = _hooked(node, grads, retains)
                acc_updates.append((node, grads))
                edges = outputs = ()
                continue
            edges = node.next_edges
            if node._pre_hooks or node._post_hooks or node._tensor_pre_hooks or node._retains:
                outputs = _hooked(node, grads, retains)
            elif cls is formula_node and (plan := node.info.bwd_by_slot) is not None and \
                    not node.info.multi_output:
                # FormulaNode.apply's planned path written out
                outputs = [None] * len(edges)
                g = grads[0]
                if g is not None:
                    sargs = node.args
                    for i, fn in plan:
                        if edges[i] is not None:
                            outputs[i] = fn(g, sargs)
                    sargs = None
            elif grads[0] is None if len(grads) == 1 else all(map(_is_none, grads)):
                outputs = [None] * len(edges)
            else:
                outputs = _apply(node, grads, edges)
            grads = None
            if not keep_graph:
                if cls is formula_node:     # FormulaNode.release written out
                    sargs = node.args
                    if sargs is not None:
                        for v in sargs._values.values():
                            if v.__class__ is SavedTensor:
                                v.freed = True
                                v.data = None
                            elif v.__class__ is list and v is not node.input_meta:    # not out_meta
                                for st in v:
                                    if st.__class__ is SavedTensor:
                                        st.release()
                    sargs = None
                else:
                    node.release()
        for t, g in retains:
            _retain(t, g)
        for node, grads in acc_updates:
            node.apply(grads)
            if not keep_graph and node.__class__ is not AccumulateGrad:    # its release is Node's no-op
                node.release()
    finally:
        grad_mode.state.enabled = prev_mode


def _index_of(edges: list, e) -> int:
    """The position of the edge object ``e`` in ``edges`` (for an error message)."""
    for i, x in enumerate(edges):
        if x is e:
            return i
    return edges.index(e)


def _needed_nodes(root, root_edges: list, input_edges: list, targets: dict, accumulate: bool, deps: dict) -> set:
    """The nodes on a path from the roots to ``inputs`` (they run); count their dependencies into ``deps``."""
    nodes = {root}
    order = [root]
    stack = [root]
    while stack:
        node = stack.pop()
        for e in node.next_edges:
            if e is not None:
                nxt = e[0]
                if nxt not in nodes:
                    nodes.add(nxt)
                    order.append(nxt)
                    stack.append(nxt)
    needed = set()
    target_nodes = {e[0] for e in input_edges}
    changed = True
    # post-order fixed point (graphs are DAGs; iterate in reverse discovery order until stable)
    while changed:
        changed = False
        for node in reversed(order):
            if node in needed:
                continue
            if isinstance(node, AccumulateGrad):
                ok = accumulate and node in target_nodes
            else:
                ok = any(e is not None and (e[0] in needed or (e[0], e[1]) in targets) for e in node.next_edges)
                ok = ok or (node is root and any(e is not None and (e[0], e[1]) in targets for e in root_edges))
            if ok:
                needed.add(node)
                changed = True
    needed.add(root)
    for node in nodes:
        if node not in needed:
            continue
        for e in node.next_edges:
            if e is not None and (e[0] in needed or (e[0], e[1]) in targets):
                deps[e[0]] = deps.get(e[0], 0) + 1
    return needed
