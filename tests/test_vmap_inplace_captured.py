"""``vmap``: an in-place write of batched values into a tensor that is not batched (captured by the function, or
made inside it without batched inputs) raises PyTorch's error, with the same message as torch 2.13 for each kind
of operator (its batching rules' "inplace arithmetic", the bare name, the fallback's "aten::<op>" at a level, the
broadcast error of add_, out= refused); writes into the batched slices themselves and openreg's own composites
keep working."""
import pytest

import openreg

torch = pytest.importorskip("torch", reason="needs PyTorch to compare with")

CASES = {
    "add_": lambda lib, y, x: y.add_(x), "add_alpha": lambda lib, y, x: y.add_(x, alpha=2),
    "sub_": lambda lib, y, x: y.sub_(x), "mul_": lambda lib, y, x: y.mul_(x), "div_": lambda lib, y, x: y.div_(x),
    "copy_": lambda lib, y, x: y.copy_(x), "pow_": lambda lib, y, x: y.pow_(x),
    "addcmul_": lambda lib, y, x: y.addcmul_(x, x), "clamp_": lambda lib, y, x: y.clamp_(min=x),
    "masked_fill_": lambda lib, y, x: y.masked_fill_(x > 0, 1.0),
    "masked_fill_tensor": lambda lib, y, x: y.masked_fill_(lib.tensor([True, False, True]), x[0]),
    "index_add_": lambda lib, y, x: y.index_add_(0, lib.tensor([0, 1, 2]), x),
    "index_put_": lambda lib, y, x: y.index_put_((lib.tensor([0]),), x[:1]),
    "scatter_": lambda lib, y, x: y.scatter_(0, lib.tensor([0, 1, 2]), x),
    "fill_": lambda lib, y, x: y.fill_(x[0]), "lerp_": lambda lib, y, x: y.lerp_(x, 0.5),
    "maximum_out": lambda lib, y, x: lib.maximum(x, x, out=y), "sigmoid_out": lambda lib, y, x: lib.sigmoid(x, out=y),
    "setitem": lambda lib, y, x: y.__setitem__(slice(None), x), "setitem_one": lambda lib, y, x: y.__setitem__(0, x[0]),
    "view_copy_": lambda lib, y, x: y.view(3).copy_(x), "slice_mul_": lambda lib, y, x: y[:2].mul_(x[:2]),
    "atan2_": lambda lib, y, x: y.atan2_(x), "fresh_add_": lambda lib, y, x: lib.zeros(2, 3).add_(x),
    "addmm_": lambda lib, y, x: lib.zeros(3, 3).addmm_(x.unsqueeze(1), x.unsqueeze(0)),
}


def _error(lib, fn, nested=False):
    vmap = lib.func.vmap
    y = lib.zeros(3)
    f = (lambda x: fn(lib, y, x))
    try:
        (vmap(vmap(f)) if nested else vmap(f))(lib.ones(2, 4, 3) if nested else lib.ones(4, 3))
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_writes_into_unbatched_tensors_raise_as_torch(name):
    expected = _error(torch, CASES[name])
    assert expected is not None
    assert _error(openreg, CASES[name]) == expected


@pytest.mark.parametrize("name", ["pow_", "mul_", "fresh_add_"])
def test_nested_vmap_levels_as_torch(name):
    assert _error(openreg, CASES[name], nested=True) == _error(torch, CASES[name], nested=True)


def test_writes_that_stay_allowed():
    from openreg.func import vmap
    w = openreg.tensor([1.0, 2.0, 3.0])

    def f(x):
        x.mul_(2).add_(w)                  # the batched slice itself
        out = x.clone()
        out[0] = w[0]                      # a batched result written with unbatched values
        return out + openreg.nn.functional.embedding_bag(openreg.tensor([0, 1]), x.view(3, 1).expand(3, 2),
                                                           openreg.tensor([0]), mode="sum").sum()
    got = vmap(f)(openreg.arange(6.0).reshape(2, 3))
    tw = torch.tensor([1.0, 2.0, 3.0])

    def tf(x):
        x.mul_(2).add_(tw)
        out = x.clone()
        out[0] = tw[0]
        return out + torch.nn.functional.embedding_bag(torch.tensor([0, 1]), x.view(3, 1).expand(3, 2),
                                                       torch.tensor([0]), mode="sum").sum()
    assert got.tolist() == torch.func.vmap(tf)(torch.arange(6.0).reshape(2, 3)).tolist()
