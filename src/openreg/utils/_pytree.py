"""``openreg.utils._pytree``: nested containers ("pytrees") flattened into leaves and a ``TreeSpec``, as
``torch.utils._pytree`` does.

Nodes are tuples, lists, dicts, namedtuples, ``OrderedDict``, ``defaultdict``, ``deque`` and the types given to
``register_pytree_node``; everything else (``None``, numbers, tensors, subclasses of the node types that are not
registered themselves) is a leaf. A dict's children come in its insertion order and its keys are the node's
context. ``openreg.func`` (``vmap``, ``jacrev``, ...) takes its inputs and outputs apart with these functions.

>>> import openreg
>>> from openreg.utils import _pytree as pytree
>>> leaves, spec = pytree.tree_flatten({"w": openreg.ones(2), "b": [1, (2, None)]})
>>> len(leaves), spec.num_leaves, leaves[1:]
(4, 4, [1, 2, None])
>>> pytree.tree_map(lambda x: x * 10, {"a": [1, 2], "b": (3,)})
{'a': [10, 20], 'b': (30,)}
>>> pytree.tree_unflatten([5, 6], pytree.tree_structure([0, (0,)]))
[5, (6,)]
"""
from __future__ import annotations

import dataclasses
import types
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = [
    "LeafSpec", "TreeSpec", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
    "register_pytree_node", "tree_all", "tree_all_only", "tree_any", "tree_any_only", "tree_flatten",
    "tree_is_leaf", "tree_iter", "tree_leaves", "tree_map", "tree_map_", "tree_map_only", "tree_map_only_",
    "tree_structure", "tree_unflatten",
]

PyTree = Any
Context = Any
FlattenFn = Callable[[PyTree], tuple[list, Context]]
UnflattenFn = Callable[[Iterable, Context], PyTree]


@dataclasses.dataclass(frozen=True)
class NodeDef:
    type: type
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn


SUPPORTED_NODES: dict[Any, NodeDef] = {}


def register_pytree_node(cls: type, flatten_fn: FlattenFn, unflatten_fn: UnflattenFn, *,
                         serialized_type_name: str | None = None, to_dumpable_context: Callable | None = None,
                         from_dumpable_context: Callable | None = None,
                         flatten_with_keys_fn: Callable | None = None) -> None:
    """Make ``cls`` a node: ``flatten_fn(x) -> (children, context)``, ``unflatten_fn(children, context) -> x``.

    >>> from openreg.utils import _pytree as pytree
    >>> class Pair:
    ...     def __init__(self, a, b):
    ...         self.a, self.b = a, b
    >>> pytree.register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda v, _: Pair(*v))
    >>> pytree.tree_map(lambda x: x + 1, Pair(1, 2)).b
    3
    """
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn)


def is_namedtuple_class(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple_instance(obj: Any) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj: Any) -> bool:
    """Whether ``obj`` is a namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def _node_type(tree: Any) -> Any:
    return namedtuple if is_namedtuple_instance(tree) else type(tree)


def _dict_flatten(d):
    return list(d.values()), list(d)


def _defaultdict_flatten(d):
    return list(d.values()), [d.default_factory, list(d)]


register_pytree_node(tuple, lambda t: (list(t), None), lambda v, _: tuple(v))
register_pytree_node(list, lambda t: (list(t), None), lambda v, _: list(v))
register_pytree_node(dict, _dict_flatten, lambda v, keys: dict(zip(keys, v)))
register_pytree_node(namedtuple, lambda t: (list(t), type(t)), lambda v, cls: cls(*v))
register_pytree_node(OrderedDict, _dict_flatten, lambda v, keys: OrderedDict(zip(keys, v)))
register_pytree_node(defaultdict, _defaultdict_flatten, lambda v, c: defaultdict(c[0], zip(c[1], v)))
register_pytree_node(deque, lambda d: (list(d), d.maxlen), lambda v, maxlen: deque(v, maxlen=maxlen))


class TreeSpec:
    """The structure of a pytree: the node ``type`` (None for a leaf), its ``context`` (a dict's keys, a
    namedtuple's class, ...) and ``children_specs``."""

    def __init__(self, type: Any, context: Any, children_specs: list[TreeSpec]) -> None:
        self.type, self.context, self.children_specs = type, context, list(children_specs)
        self.num_children = len(self.children_specs)
        self.num_nodes = 1 + sum(c.num_nodes for c in self.children_specs)
        self.num_leaves = (1 if type is None else 0) + sum(c.num_leaves for c in self.children_specs)

    def is_leaf(self) -> bool:
        return self.type is None

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TreeSpec) and self.type is other.type and self.context == other.context
                and self.children_specs == other.children_specs)

    def __hash__(self) -> int:
        return hash((self.type, repr(self.context), tuple(self.children_specs)))

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        name = self.type.__name__
        parts = []
        for i, child in enumerate(self.children_specs):
            text = child.__repr__(indent + 2)
            parts.append(text if i == 0 else ",\n" + " " * (indent + 2) + text)
        return f"TreeSpec({name}, {self.context}, [{''.join(parts)}])"

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """The pytree of this structure holding ``leaves``."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        it = iter(leaves)

        def build(spec: TreeSpec) -> Any:
            if spec.is_leaf():
                return next(it)
            return SUPPORTED_NODES[spec.type].unflatten_fn([build(c) for c in spec.children_specs], spec.context)
        return build(self)

    def flatten_up_to(self, tree: PyTree) -> list[Any]:
        """The subtrees of ``tree`` standing where this structure has leaves (``tree`` has this structure at
        least down to them); ``ValueError`` naming the first mismatch."""
        out: list[Any] = []

        def walk(spec: TreeSpec, sub: Any) -> None:
            if spec.is_leaf():
                out.append(sub)
                return
            for child, child_spec in zip(matching_children(spec, sub, strict=True), spec.children_specs):
                walk(child_spec, child)
        walk(self, tree)
        return out


def matching_children(spec: TreeSpec, tree: PyTree, strict: bool = False) -> list[Any] | None:
    """The children of ``tree`` in the order of node spec ``spec`` (a dict's by its keys), or None (``strict``:
    ``ValueError`` naming the difference) when ``tree``'s top node differs in type, arity, keys or context."""
    def fail(message: str) -> None:
        if strict:
            raise ValueError(message)
    kind = _node_type(tree)
    if kind is not spec.type or kind not in SUPPORTED_NODES:
        return fail(f"Node type mismatch; expected {spec.type}, but got {kind}.")
    children, context = SUPPORTED_NODES[kind].flatten_fn(tree)
    if len(children) != spec.num_children:
        return fail(f"Node arity mismatch; expected {spec.num_children}, but got {len(children)}.")
    if kind in (dict, OrderedDict, defaultdict):
        keys = context[1] if kind is defaultdict else context
        want = spec.context[1] if kind is defaultdict else spec.context
        if set(keys) != set(want):
            return fail(f"Node keys mismatch; missing key(s): {set(want) - set(keys)}; extra key(s): "
                        f"{set(keys) - set(want)}.")
        return [tree[k] for k in want]
    if context != spec.context:
        return fail(f"Node context mismatch for custom node type {spec.type}.")
    return children


class LeafSpec(TreeSpec):
    """The structure of a leaf (printed ``*``)."""

    def __init__(self) -> None:
        super().__init__(None, None, [])


_LEAF = LeafSpec()


def tree_is_leaf(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Whether ``tree`` is a leaf: ``is_leaf(tree)`` says so, or its type is no registered node."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


def tree_flatten(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> tuple[list[Any], TreeSpec]:
    """``(leaves, spec)`` of ``tree``, leaves in depth-first order; ``is_leaf`` may stop the descent early."""
    leaves: list[Any] = []

    def go(x: Any) -> TreeSpec:
        if tree_is_leaf(x, is_leaf):
            leaves.append(x)
            return _LEAF
        kind = _node_type(x)
        children, context = SUPPORTED_NODES[kind].flatten_fn(x)
        return TreeSpec(kind, context, [go(c) for c in children])
    spec = go(tree)
    return leaves, spec


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    """The pytree of structure ``treespec`` holding ``leaves``."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of type "
                        f"{type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> Iterator[Any]:
    """The leaves of ``tree``, one at a time."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    for child in SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> list[Any]:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
             is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """``tree`` with each leaf ``x`` replaced by ``func(x, *the same leaves of rests)``; every tree of ``rests``
    has ``tree``'s structure at least down to its leaves."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(*flat))


def tree_map_(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
              is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """``func`` called on each leaf (and the same leaves of ``rests``) for its effect; returns ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for xs in zip(*flat):
        func(*xs)
    return tree


def _selector(type_or_types_or_pred: Any) -> Callable[[Any], bool]:
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def _only(type_or_types_or_pred: Any, func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    select = _selector(type_or_types_or_pred)
    return lambda x: func(x) if select(x) else x


def tree_map_only(type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """``tree_map`` applied only to the leaves of the given type(s) (or passing the predicate).

    >>> from openreg.utils._pytree import tree_map_only
    >>> tree_map_only(int, lambda x: x * 2, [1, 2.0, "s"])
    [2, 2.0, 's']
    """
    return tree_map(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree,
                   is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    return tree_map_(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types: Any, /, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    select = _selector(type_or_types)
    return all(pred(x) for x in tree_iter(tree, is_leaf) if select(x))


def tree_any_only(type_or_types: Any, /, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    select = _selector(type_or_types)
    return any(pred(x) for x in tree_iter(tree, is_leaf) if select(x))
