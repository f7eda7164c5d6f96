"""openreg.utils._pytree against torch.utils._pytree, and openreg.func built on it."""
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest

import openreg
from openreg.utils import _pytree as pt

try:
    import torch
    import torch.utils._pytree as tpt
except ImportError:  # pragma: no cover - CI has no torch
    torch = tpt = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")

Point = namedtuple("Point", "x y")


def _trees():
    return [
        None, 3, [], (), {}, [1, (2, None)], {"b": [1, 2], "a": Point(3, 4)},
        OrderedDict(z=1, a=(2, 3)), defaultdict(int, {1: [5], 2: 6}), deque([1, [2]], maxlen=4),
        {"k": {"n": [Point(1, (2,)), "s"]}}, [openreg.Size([2, 3]), 1.5],
    ]


@pytest.mark.parametrize("i", range(12))
def test_flatten_unflatten_round_trip(i):
    tree = _trees()[i]
    leaves, spec = pt.tree_flatten(tree)
    assert spec.num_leaves == len(leaves)
    back = pt.tree_unflatten(leaves, spec)
    assert back == tree and type(back) is type(tree)
    if isinstance(tree, defaultdict):
        assert back.default_factory is int
    if isinstance(tree, deque):
        assert back.maxlen == 4
    assert pt.tree_leaves(tree) == leaves and pt.tree_structure(tree) == spec


@needs_torch
@pytest.mark.parametrize("i", range(11))       # the last tree holds an openreg.Size, a leaf in both
def test_matches_torch(i):
    tree = _trees()[i]
    leaves, spec = pt.tree_flatten(tree)
    tleaves, tspec = tpt.tree_flatten(tree)
    assert leaves == tleaves
    assert repr(spec) == repr(tspec)
    assert (spec.num_leaves, spec.num_nodes, spec.num_children) == (tspec.num_leaves, tspec.num_nodes,
                                                                   tspec.num_children)
    assert spec.context == tspec.context


def test_namedtuple_and_size_leaves():
    spec = pt.tree_structure(Point(1, 2))
    assert spec.type is namedtuple and spec.context is Point
    assert pt.tree_leaves([openreg.Size([2, 3])]) == [openreg.Size([2, 3])]   # a tuple subclass: a leaf
    assert repr(pt.LeafSpec()) == "*" and pt.LeafSpec() == pt.tree_structure(5)
    assert pt.tree_flatten(None) == ([None], pt.LeafSpec())


def test_tree_map_variants():
    assert pt.tree_map(lambda a, b: a + b, [1, (2,)], [10, (20,)]) == [11, (22,)]
    assert pt.tree_map(lambda a, b: (a, b), {"a": 1, "b": 2}, {"b": 1, "a": 3}) == {"a": (1, 3), "b": (2, 1)}
    assert pt.tree_map(lambda a, b: (a, b), [1, 2], [1, [2, 3]]) == [(1, 1), (2, [2, 3])]
    with pytest.raises(ValueError, match="Node type mismatch"):
        pt.tree_map(lambda a, b: a, [1, (2,)], [10, [20]])
    with pytest.raises(ValueError, match="Node arity mismatch; expected 1, but got 2"):
        pt.tree_map(lambda a, b: a, [1, (2,)], [10, (20, 3)])
    with pytest.raises(ValueError, match="Node keys mismatch"):
        pt.tree_map(lambda a, b: a, {"a": 1, "b": 2}, {"b": 1, "c": 3})
    assert pt.tree_map_only(int, lambda x: x * 2, [1, 2.0, "s"]) == [2, 2.0, "s"]
    assert pt.tree_map_only((int, str), lambda x: x * 2, [1, 2.0, "s"]) == [2, 2.0, "ss"]
    assert pt.tree_map_only(lambda x: x == 2.0, lambda x: -x, [1, 2.0]) == [1, -2.0]
    seen = []
    tree = [1, {"a": 2}]
    assert pt.tree_map_(seen.append, tree) is tree and seen == [1, 2]
    assert pt.tree_leaves([1, [2, 3]], is_leaf=lambda x: isinstance(x, list) and len(x) == 2) == [[1, [2, 3]]]


def test_all_any():
    assert pt.tree_all(lambda x: x > 0, [1, (2,)]) and not pt.tree_all(lambda x: x > 1, [1, (2,)])
    assert pt.tree_any(lambda x: x > 1, [1, (2,)]) and not pt.tree_any(lambda x: x > 5, [1, (2,)])
    assert pt.tree_all_only(int, lambda x: x > 0, [1, -2.0]) and pt.tree_any_only(float, lambda x: x < 0, [1, -2.0])


def test_unflatten_errors():
    spec = pt.tree_structure([0, (0, 0)])
    with pytest.raises(ValueError, match="`leaves` has length 1 but the spec refers to a pytree that holds 3"):
        pt.tree_unflatten([1], spec)
    with pytest.raises(TypeError, match="Expected `treespec` to be an instance of PyTreeSpec"):
        pt.tree_unflatten([1], [1])


def test_register_pytree_node():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    pt.register_pytree_node(Pair, lambda p: ([p.a, p.b], "ctx"), lambda v, c: Pair(*v))
    try:
        leaves, spec = pt.tree_flatten([Pair(1, (2, 3))])
        assert leaves == [1, 2, 3] and spec.children_specs[0].context == "ctx"
        assert pt.tree_map(lambda x: x + 1, Pair(1, 2)).b == 3
        with pytest.raises(ValueError, match="already registered as pytree node"):
            pt.register_pytree_node(Pair, lambda p: ([], None), lambda v, c: None)
    finally:
        del pt.SUPPORTED_NODES[Pair]


def test_func_uses_the_pytree():
    x = openreg.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = openreg.func.vmap(lambda d: OrderedDict(s=d["v"].sum(), p=Point(d["v"], d["v"] * 2)))({"v": x})
    assert type(out) is OrderedDict and type(out["p"]) is Point
    assert out["s"].tolist() == [3.0, 7.0] and out["p"].y.tolist() == [[2.0, 4.0], [6.0, 8.0]]
    with pytest.raises(ValueError, match="in_dims is not compatible"):
        openreg.func.vmap(lambda a, b: a + b, in_dims=(0,))(x, x)


def test_utils_dlpack_round_trip():
    from openreg.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack
    t = openreg.arange(4.0)
    cap = to_dlpack(t)
    assert "dltensor" in repr(cap)
    u = from_dlpack(cap)
    t.add_(1)
    assert u.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert DLDeviceType.kDLCPU == 1
    with pytest.raises(TypeError, match="must be Tensor"):
        to_dlpack([1.0])


@needs_torch
def test_utils_dlpack_with_torch():
    import torch.utils.dlpack as tdl

    from openreg.utils.dlpack import from_dlpack, to_dlpack
    t = torch.arange(3.0)
    assert from_dlpack(tdl.to_dlpack(t)).tolist() == [0.0, 1.0, 2.0]
    assert tdl.from_dlpack(to_dlpack(openreg.arange(3.0))).tolist() == [0.0, 1.0, 2.0]
