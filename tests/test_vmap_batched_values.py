"""Inside ``openreg.func.vmap`` a batched value cannot be read into Python, as in PyTorch: ``item()``, ``int()``,
``float()``, ``complex()``, ``operator.index()``, ``tolist()`` and ``bool()`` (data-dependent control flow) of a
value computed from the mapped inputs raise PyTorch's errors; values made or captured without them convert."""
import numpy as np
import pytest

import openreg
from openreg.func import grad, vmap

try:
    import torch
except ImportError:  # the comparisons with PyTorch skip; the expectations below still run
    torch = None

ITEM = "vmap: It looks like you're calling .item() on a Tensor"
FLOW = "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow"
STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"


def _cases(lib):
    """name -> (thunk, expected): expected is one of the messages above, or "ok" (then compared by value)."""
    fn = lib.func
    x, c = lib.arange(6.0).reshape(2, 3), lib.tensor(5.0)
    idx = lib.arange(2)
    return {
        "item": (lambda: fn.vmap(lambda v: v.sum().item())(x), ITEM),
        "int": (lambda: fn.vmap(lambda v: v * int(v.argmax()))(x), ITEM),
        "float": (lambda: fn.vmap(lambda v: v * float(v[0]))(x), ITEM),
        "complex": (lambda: fn.vmap(lambda v: v * complex(v[1]).real)(x), ITEM),
        "index": (lambda: fn.vmap(lambda v: v.__index__())(idx), ITEM),
        "tolist": (lambda: fn.vmap(lambda v: v.tolist())(x), STORAGE),
        "bool": (lambda: fn.vmap(lambda v: v if bool(v.sum() > 3) else -v)(x), FLOW),
        "if": (lambda: fn.vmap(lambda v: v if v.max() > 3 else -v)(x), FLOW),
        "view_then_item": (lambda: fn.vmap(lambda v: v.view(-1)[0].item())(x), ITEM),
        "slice_bound": (lambda: fn.vmap(lambda v: lib.ones(4)[v:v + 1])(idx), ITEM),
        "in_dims_none_still_batched": (lambda: fn.vmap(lambda v, w: (v * w).sum().item(), in_dims=(0, None))(x, c),
                                       ITEM),
        "nested_inner_reads_outer": (lambda: fn.vmap(lambda v: fn.vmap(lambda w: w * v.sum().item())(lib.ones(3)))(x),
                                     ITEM),
        "under_grad": (lambda: fn.vmap(fn.grad(lambda v: (v ** 2).sum() * v.sum().item()))(x),
                       "vmap: It looks like you're"),
        # what PyTorch accepts: values not computed from the mapped inputs, and openreg's own reads of an element
        "captured_item": (lambda: fn.vmap(lambda v: v * c.item())(x), "ok"),
        "captured_in_dims_none": (lambda: fn.vmap(lambda v, w: v * w.item(), in_dims=(0, None))(x, c), "ok"),
        "made_inside": (lambda: fn.vmap(lambda v: v * lib.tensor([1.0, 2.0]).sum().item())(x), "ok"),
        "shape": (lambda: fn.vmap(lambda v: v * v.shape[0] * len(v))(x), "ok"),
        "nested_inner_unbatched_at_outer": (
            lambda: fn.vmap(lambda v: v * fn.vmap(lambda w: w * 2)(lib.ones(3)).sum().item())(x), "ok"),
        "index_with_batched": (lambda: fn.vmap(lambda i: lib.arange(4.0).reshape(2, 2)[i, i])(idx), "ok"),
        "one_hot": (lambda: fn.vmap(lambda i: lib.nn.functional.one_hot(i, 4))(idx), "ok"),
        "embedding": (lambda: fn.vmap(lambda i: lib.nn.functional.embedding(i, lib.ones(4, 2)))(idx), "ok"),
        "per_sample_grad": (lambda: fn.vmap(fn.grad(lambda v: (v ** 2).sum()))(x), "ok"),
        "result_after_vmap": (lambda: fn.vmap(lambda v: v.sum())(x).sum().item(), "ok"),
        "returned_unbatched": (lambda: fn.vmap(lambda v: c * 2, out_dims=None)(x).item(), "ok"),
    }


def _outcome(thunk):
    try:
        result = thunk()
    except RuntimeError as exc:
        return "error", str(exc)
    return "ok", result.tolist() if hasattr(result, "tolist") else result


CASE_NAMES = sorted(_cases(openreg))


@pytest.mark.parametrize("name", CASE_NAMES)
def test_batched_reads_raise_and_others_convert(name):
    thunk, expected = _cases(openreg)[name]
    kind, value = _outcome(thunk)
    if expected == "ok":
        assert kind == "ok", value
    else:
        assert kind == "error" and value.startswith(expected), value


@pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")
@pytest.mark.parametrize("name", CASE_NAMES)
def test_matches_torch(name):
    import torch.func  # (torch.func is not imported by `import torch`)
    (ours, expected), (theirs, _) = _cases(openreg)[name], _cases(torch)[name]
    (kind, value), (t_kind, t_value) = _outcome(ours), _outcome(theirs)
    assert kind == t_kind, (value, t_value)
    if kind == "ok":
        np.testing.assert_allclose(np.asarray(value, dtype=float), np.asarray(t_value, dtype=float))
    else:      # the same message (under grad, PyTorch's says more: it cannot tell .item() from control flow)
        assert value.startswith(expected) and t_value.startswith(expected), (value, t_value)


def test_equal_and_allclose_of_batched_values_raise():
    x = openreg.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match="Batching rule not implemented for aten::equal"):
        vmap(lambda v: openreg.equal(v, v))(x)
    with pytest.raises(RuntimeError, match="vmap over torch.allclose isn't supported yet"):
        vmap(lambda v: openreg.allclose(v, v))(x)
    c = openreg.ones(3)
    assert vmap(lambda v: v * openreg.allclose(c, c))(x).tolist() == x.tolist()   # unbatched: a plain bool


def test_marks_do_not_outlive_vmap():
    x = openreg.arange(6.0).reshape(2, 3)
    kept = []
    out = vmap(lambda v: kept.append(v * 2) or v.sum())(x)
    assert out.tolist() == [3.0, 12.0]
    assert kept[0].sum().item() == 6.0          # a value kept past its vmap converts again
    assert (kept[1] + 1).tolist() == [7.0, 9.0, 11.0]
    g = vmap(grad(lambda v: (v ** 3).sum()))(x)
    assert g.tolist() == (3 * x ** 2).tolist()
