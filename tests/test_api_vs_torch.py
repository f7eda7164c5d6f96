"""Differential tests: the same small program run in openreg (on the emulated ``privateuseone`` device, sometimes also
on ``cpu``) and in PyTorch on the CPU, comparing values, dtypes, shapes, strides, view-ness, schema strings, tags and
error types. Known openreg bugs are ``xfail(strict=True)`` with a short description.
"""
import math
from typing import Optional  # infer_schema recognises typing.Optional, as PyTorch's does

import numpy as np
import pytest

import openreg

torch = pytest.importorskip("torch", reason="differential tests need PyTorch")

DEV = "privateuseone"
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64"]


def _bug(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


def _dname(dt) -> str:
    return str(dt).rsplit(".", 1)[-1]


def _np(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.dtype is torch.bfloat16:
            x = x.float()
        return x.numpy()
    x = x.detach().cpu()
    if x.dtype is openreg.bfloat16:
        x = x.to(openreg.float32)
    return x.numpy()


def _is_view(o, base) -> bool:
    return o.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()


def _compare(o, t, *, strides: bool = True, rtol: float = 1e-5, atol: float = 1e-6, path: str = "out") -> None:
    if isinstance(t, torch.Tensor):
        assert isinstance(o, openreg.Tensor), f"{path}: openreg gave {type(o).__name__}, torch a Tensor"
        assert tuple(o.shape) == tuple(t.shape), f"{path}: shape {tuple(o.shape)} vs torch {tuple(t.shape)}"
        assert _dname(o.dtype) == _dname(t.dtype), f"{path}: dtype {o.dtype} vs torch {t.dtype}"
        if strides:
            assert tuple(o.stride()) == tuple(t.stride()), f"{path}: stride {o.stride()} vs torch {t.stride()}"
        assert o.requires_grad == t.requires_grad, f"{path}: requires_grad {o.requires_grad} vs {t.requires_grad}"
        np.testing.assert_allclose(_np(o), _np(t), rtol=rtol, atol=atol, err_msg=path, equal_nan=True)
    elif isinstance(t, (tuple, list)):
        assert isinstance(o, (tuple, list)) and len(o) == len(t), f"{path}: {o!r} vs torch {t!r}"
        for i, (a, b) in enumerate(zip(o, t)):
            _compare(a, b, strides=strides, rtol=rtol, atol=atol, path=f"{path}[{i}]")
    elif isinstance(t, torch.dtype):
        assert _dname(o) == _dname(t), f"{path}: {o} vs torch {t}"
    elif isinstance(t, float):
        assert isinstance(o, float) and o == pytest.approx(t, rel=rtol, abs=atol, nan_ok=True), f"{path}: {o} vs {t}"
    else:
        assert type(o) is type(t) and o == t, f"{path}: {o!r} vs torch {t!r}"


def check(prog, *, devices=(DEV,), strides: bool = True, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Run ``prog(lib, device)`` with (torch, "cpu") and (openreg, each device); compare results or error types."""
    try:
        expected = prog(torch, "cpu")
        terr = None
    except (RuntimeError, IndexError, TypeError, ValueError, NotImplementedError, AttributeError) as e:
        terr = e
    for dev in devices:
        if terr is not None:
            with pytest.raises(Exception) as info:
                prog(openreg, dev)
            assert isinstance(info.value, type(terr)), (
                f"{dev}: openreg raised {type(info.value).__name__}: {info.value}; torch {type(terr).__name__}: {terr}")
        else:
            _compare(prog(openreg, dev), expected, strides=strides, rtol=rtol, atol=atol)


def _sample(m, name: str, dev: str, shape=(3,)):
    """Deterministic small values of dtype ``name`` on ``dev``, including zeros and negatives where representable."""
    n = int(np.prod(shape))
    base = np.array([1, 2, 0, 3, 1, 2, 1, 5, 4, 2, 6, 1][:n] + [1] * max(0, n - 12), dtype=np.float64).reshape(shape)
    if name == "bool":
        data = (base % 2 == 1).tolist()
    elif name.startswith(("int", "uint")):
        data = base.astype(np.int64).tolist()
    elif name.startswith("complex"):
        data = (base + 0.5j).tolist()
    else:
        data = (base * 0.5).tolist()
    return m.tensor(data, dtype=getattr(m, name), device=dev)


# ------------------------------------------------------------------------------------------------- type promotion

@pytest.mark.parametrize("a", DTYPES)
def test_promote_types_table(a):
    for b in DTYPES:
        _compare(openreg.promote_types(getattr(openreg, a), getattr(openreg, b)),
                 torch.promote_types(getattr(torch, a), getattr(torch, b)), path=f"promote_types({a}, {b})")


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("op", ["add", "mul", "maximum", "eq", "lt"])
def test_binary_tensor_tensor_dtypes(a, op):
    for b in DTYPES:
        if op in ("maximum", "lt") and "complex64" in (a, b):
            continue  # torch: not implemented for complex

        def prog(m, dev, b=b):
            return getattr(m, op)(_sample(m, a, dev), _sample(m, b, dev))
        check(prog)


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("scalar", [True, 2, 2.5, 1 + 1j], ids=["bool", "int", "float", "complex"])
def test_tensor_scalar_promotion(a, scalar):
    if a == "float16" and isinstance(scalar, complex):
        pytest.skip("torch gives complex32, which openreg does not have")
    for op in ("add", "mul", "sub", "div", "rsub"):
        if op in ("sub", "rsub") and (a == "bool" or isinstance(scalar, bool)):
            continue

        def prog(m, dev, op=op):
            t = _sample(m, a, dev)
            if op == "rsub":
                return scalar - t
            return getattr(t, op)(scalar)
        check(prog, rtol=1e-2 if a in ("float16", "bfloat16") else 1e-5)


@pytest.mark.parametrize("a,b", [("int64", "float64"), ("float32", "float64"), ("uint8", "int64"),
                                 ("int32", "float16"), ("bool", "int8"), ("float16", "complex64"),
                                 ("int8", "uint8"), ("bfloat16", "float16")])
def test_zero_dim_tensor_promotion(a, b):
    if (a, b) == ("float16", "complex64"):
        pytest.skip("torch gives complex32, which openreg does not have")
    def prog(m, dev):
        t = _sample(m, a, dev, (2, 2))
        s = m.tensor(1, dtype=getattr(m, b), device=dev)
        return t + s, s * t, m.where(t > 100, t, s), m.tensor(2, dtype=getattr(m, a), device=dev) + s
    check(prog, rtol=1e-2)


@pytest.mark.parametrize("a", DTYPES)
def test_division_dtypes(a):
    if a == "bool":
        return

    def prog(m, dev):
        t = _sample(m, a, dev) + 1
        return t / t, t / 2, m.div(t, 2, rounding_mode="floor"), m.div(t, 2, rounding_mode="trunc")
    check(prog, rtol=1e-2)
    if a == "complex64":  # every floor/trunc spelling raises NotImplementedError, as in PyTorch
        for fn in (lambda m, t: t // 2, lambda m, t: m.floor_divide(t, t), lambda m, t: t.floor_divide_(2),
                   lambda m, t: m.div(t, t, rounding_mode="trunc"), lambda m, t: t // m.tensor(2.0)):
            check(lambda m, dev, fn=fn: fn(m, _sample(m, a, dev)))


@pytest.mark.parametrize("a", ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"])
def test_unary_dtypes(a):
    def prog(m, dev):
        t = _sample(m, a, dev).abs() + 1 if a != "bool" else _sample(m, a, dev)
        return m.exp(t), m.sqrt(t), m.sigmoid(t), m.abs(t) if a != "bool" else t, m.neg(t) if a != "bool" else t
    check(prog, rtol=2e-3, atol=1e-3)


def test_inplace_promotion_errors():
    check(lambda m, dev: m.ones(2, dtype=m.int64, device=dev).add_(1.5))
    check(lambda m, dev: m.ones(2, dtype=m.float32, device=dev).add_(m.ones(2, dtype=m.float64, device=dev)))
    check(lambda m, dev: m.ones(2, dtype=m.int32, device=dev).mul_(m.ones(2, dtype=m.float32, device=dev)))
    check(lambda m, dev: m.ones(2, dtype=m.bool, device=dev).add_(1))
    check(lambda m, dev: m.ones(2, dtype=m.int32, device=dev).div_(2))


# ----------------------------------------------------------------------------------------------------- broadcasting

@pytest.mark.parametrize("sa,sb", [((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((1,), (2, 2)), ((), (3,)), ((5, 1, 3), (2, 1)),
                                   ((0, 3), (1, 3)), ((2, 0, 3), (1, 3)),
                                   ((2, 3), (3, 2)), ((2,), (3,))])
def test_broadcasting(sa, sb):
    def prog(m, dev):
        a = m.arange(int(np.prod(sa)), dtype=m.float32, device=dev).reshape(sa)
        b = m.arange(int(np.prod(sb)), dtype=m.float32, device=dev).reshape(sb)
        return a + b, a * b, m.maximum(a, b), m.where(a > 1, a, b)
    check(prog)


# ------------------------------------------------------------------------------------------------------- reductions

@pytest.mark.parametrize("name", ["sum", "mean", "prod", "amax", "amin"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions(name, dim, keepdim):
    def prog(m, dev):
        t = m.arange(24, dtype=m.float32, device=dev).reshape(2, 3, 4) / 7
        f = getattr(m, name)
        if dim is None:
            return f(t)
        return f(t, dim, keepdim=keepdim)
    check(prog, rtol=1e-5)


@pytest.mark.parametrize("a", ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "complex64"])
def test_reduction_dtypes(a):
    def prog(m, dev):
        t = _sample(m, a, dev, (2, 3))
        r = [t.sum(), t.sum(0), t.prod(), t.sum(dtype=m.float64), t.sum(1, dtype=m.float32)]
        if a not in ("complex64",):
            r += [t.amax(), t.amin(1), t.argmax(), t.argmax(1, keepdim=True)]
        return r
    check(prog, rtol=1e-3)


def test_mean_errors_and_dtype():
    check(lambda m, dev: m.arange(4, device=dev).mean())
    check(lambda m, dev: m.arange(4, device=dev).mean(dtype=m.float64))
    check(lambda m, dev: m.arange(4, device=dev).float().mean(0, True))
    check(lambda m, dev: m.ones(2, 3, device=dev).sum(5))
    check(lambda m, dev: m.ones(0, device=dev).amax())
    check(lambda m, dev: m.ones(0, device=dev).argmax())
    check(lambda m, dev: (m.ones(0, device=dev).sum(), m.ones(0, device=dev).prod(), m.ones(0, 2, device=dev).mean(0)))


def test_argmax_ties_and_nan():
    check(lambda m, dev: m.tensor([1.0, 3.0, 3.0, 0.0], device=dev).argmax())
    check(lambda m, dev: m.tensor([1.0, float("nan"), 3.0], device=dev).argmax())
    check(lambda m, dev: m.tensor([[1.0, float("nan")], [2.0, 0.0]], device=dev).amax(1))


# ------------------------------------------------------------------------------------------------- views and strides

VIEW_PROGS = {
    "transpose": lambda t, m: t.transpose(0, 2),
    "transpose_neg": lambda t, m: t.transpose(-1, -2),
    "permute": lambda t, m: t.permute(2, 0, 1),
    "permute_neg": lambda t, m: t.permute(-1, 0, 1),
    "expand": lambda t, m: t[:, :1].expand(2, 5, 4),
    "expand_new_dim": lambda t, m: t.expand(3, 2, 3, 4),
    "expand_minus1": lambda t, m: t[:1].expand(-1, 3, 4),
    "narrow": lambda t, m: t.narrow(2, 1, 2),
    "narrow_neg": lambda t, m: t.narrow(-1, -3, 2),
    "select": lambda t, m: t.select(1, 2),
    "select_neg": lambda t, m: t.select(-1, -1),
    "slice_steps": lambda t, m: t[:, ::2, 1::2],
    "slice_negative_start": lambda t, m: t[-1:, -2:],
    "slice_empty": lambda t, m: t[:, 5:],
    "int_index": lambda t, m: t[1, 2],
    "none_ellipsis": lambda t, m: t[None, ..., None, 0],
    "unsqueeze": lambda t, m: t.unsqueeze(-1),
    "unsqueeze0": lambda t, m: t.unsqueeze(0),
    "squeeze_all": lambda t, m: t[:, :1].squeeze(),
    "squeeze_dim": lambda t, m: t[:, :1].squeeze(1),
    "squeeze_noop": lambda t, m: t.squeeze(0),
    "flatten": lambda t, m: t.flatten(),
    "flatten_range": lambda t, m: t.flatten(1),
    "flatten_noncontig": lambda t, m: t.transpose(0, 1).flatten(1),
    "unflatten": lambda t, m: t.unflatten(2, (2, 2)),
    "unflatten_minus1": lambda t, m: t.unflatten(-1, (-1, 2)),
    "view": lambda t, m: t.view(6, 4),
    "view_minus1": lambda t, m: t.view(-1, 2),
    "reshape_copy": lambda t, m: t.transpose(0, 1).reshape(-1),
    "reshape_view": lambda t, m: t.reshape(4, 6),
    "split": lambda t, m: t.split(2, dim=2),
    "split_sizes": lambda t, m: t.split([1, 2], dim=1),
    "split_uneven": lambda t, m: t.split(3, -1),
    "chunk": lambda t, m: t.chunk(2, 2),
    "chunk_uneven": lambda t, m: t.chunk(2, 1),
    "chunk_more": lambda t, m: t.chunk(5, 1),
    "unbind": lambda t, m: t.unbind(1),
    "t_2d": lambda t, m: t[0].t(),
    "T": lambda t, m: t[0].T,
    "mT": lambda t, m: t.mT,
    "as_strided": lambda t, m: m.as_strided(t, (3, 3), (1, 2), 1),
    "diagonal": lambda t, m: m.diagonal(t[0]),
    "movedim": lambda t, m: m.movedim(t, 0, -1),
    "swapaxes": lambda t, m: m.swapaxes(t, 0, 1),
}


@pytest.mark.parametrize("name", list(VIEW_PROGS))
def test_views_strides(name):
    fn = VIEW_PROGS[name]

    def prog(m, dev):
        base = m.arange(24.0, device=dev).reshape(2, 3, 4)
        out = fn(base, m)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        views = tuple((o.storage_offset(), (o._base is not None) if m is torch else _is_view(o, base)) for o in outs)
        return out, views
    check(prog)


@pytest.mark.parametrize("prog", [
    lambda m, dev: m.ones(2, 3, device=dev).view(4),
    lambda m, dev: m.ones(2, 3, device=dev).transpose(0, 1).view(6),
    lambda m, dev: m.ones(2, 3, device=dev).expand(3, 3),
    lambda m, dev: m.ones(2, 3, device=dev).permute(0, 0),
    lambda m, dev: m.ones(2, 3, device=dev).transpose(0, 3),
    lambda m, dev: m.ones(2, 3, device=dev).narrow(1, 2, 2),
    lambda m, dev: m.ones(2, 3, device=dev).select(0, 2),
    lambda m, dev: m.ones(2, 3, device=dev).unflatten(1, (2, 2)),
    lambda m, dev: m.ones(2, 3, device=dev).split(0),
    lambda m, dev: m.ones(2, 3, device=dev).chunk(0),
    lambda m, dev: m.ones(2, 3, device=dev).view(-1, -1),
    lambda m, dev: m.ones(2, 3, device=dev).reshape(5),
    lambda m, dev: m.ones(2, 3, device=dev)[0, 0, 0],
    lambda m, dev: m.ones(2, 3, device=dev)[..., ...],
    lambda m, dev: m.ones(2, 3, device=dev)[::-1],
    lambda m, dev: m.ones(2, 3, device=dev).squeeze(2),
    lambda m, dev: m.ones(2, 3, device=dev).unsqueeze(3),
], ids=["view_size", "view_stride", "expand_bad", "permute_dup", "transpose_range", "narrow_range", "select_range",
        "unflatten_bad", "split_zero", "chunk_zero", "view_two_minus1", "reshape_bad", "too_many_indices",
        "two_ellipsis", "negative_step", "squeeze_range", "unsqueeze_range"])
def test_view_errors(prog):
    check(prog)


# ---------------------------------------------------------------------------------------------- indexing and setitem

IDX = {
    "int_tensor": lambda m, dev: (m.tensor([2, 0, 2], device=dev),),
    "neg_int_tensor": lambda m, dev: (m.tensor([-1, 0], device=dev),),
    "two_tensors": lambda m, dev: (m.tensor([0, 1], device=dev), m.tensor([2, 3], device=dev)),
    "tensor_slice": lambda m, dev: (m.tensor([1, 0], device=dev), slice(None, None, 2)),
    "slice_tensor": lambda m, dev: (slice(None), m.tensor([3, 1], device=dev)),
    "bool_mask_row": lambda m, dev: (m.tensor([True, False, True], device=dev),),
    "bool_mask_full": lambda m, dev: (m.arange(12, device=dev).reshape(3, 4) % 3 == 0,),
    "broadcast_idx": lambda m, dev: (m.tensor([[0], [2]], device=dev), m.tensor([1, 3], device=dev)),
    "list_index": lambda m, dev: ([0, 2],),
    "none_and_tensor": lambda m, dev: (None, m.tensor([1], device=dev)),
    "separated_adv": lambda m, dev: (m.tensor([0, 1], device=dev), slice(None), m.tensor([1, 0], device=dev)),
    "int_and_tensor": lambda m, dev: (1, m.tensor([0, 3], device=dev)),
    "ellipsis_tensor": lambda m, dev: (Ellipsis, m.tensor([0, 0], device=dev)),
    "scalar_bool": lambda m, dev: (True,),
    "zero_dim_tensor": lambda m, dev: (m.tensor(1, device=dev),),
}


@pytest.mark.parametrize("name", list(IDX))
def test_getitem(name):
    def prog(m, dev):
        t = m.arange(24.0, device=dev).reshape(3, 4, 2) if name == "separated_adv" else \
            m.arange(12.0, device=dev).reshape(3, 4)
        idx = IDX[name](m, dev)
        return t[idx if len(idx) > 1 else idx[0]]
    check(prog, strides=False)


@pytest.mark.parametrize("name", list(IDX))
def test_setitem(name):
    def prog(m, dev):
        t = m.arange(24.0, device=dev).reshape(3, 4, 2) if name == "separated_adv" else \
            m.arange(12.0, device=dev).reshape(3, 4)
        idx = IDX[name](m, dev)
        key = idx if len(idx) > 1 else idx[0]
        t[key] = -1.0
        t2 = t.clone()
        t2[key] = t2[key] * 10
        return t, t2
    check(prog)


@pytest.mark.parametrize("prog", [
    lambda m, dev: m.zeros(3, device=dev)[m.tensor([3], device=dev)],
    lambda m, dev: m.zeros(3, device=dev)[m.tensor([0.0], device=dev)],
    lambda m, dev: m.zeros(3, device=dev)[m.tensor([True, False], device=dev)],
    lambda m, dev: m.zeros(3, device=dev)[5],
], ids=["oob_tensor", "float_index", "mask_shape", "oob_int"])
def test_index_errors(prog):
    check(prog)


def test_setitem_broadcast_and_dtype():
    def prog(m, dev):
        t = m.zeros(3, 4, dtype=m.int32, device=dev)
        t[1] = m.tensor([1.7, 2.2, 3.9, -4.5], device=dev)
        t[:, 0] = 7
        t[2:, 1:3] = m.tensor([[5]], device=dev)
        return t
    check(prog)


def test_setitem_bad_shape():
    def prog(m, dev):
        t = m.zeros(3, 4, device=dev)
        t[0] = m.ones(3, device=dev)
    check(prog)


# ------------------------------------------------------------------------------------------------------- cat / stack

@pytest.mark.parametrize("prog", [
    lambda m, dev: m.cat([m.ones(2, 3, device=dev), m.zeros(1, 3, device=dev)]),
    lambda m, dev: m.cat([m.ones(2, 3, device=dev), m.zeros(2, 1, device=dev)], dim=-1),
    lambda m, dev: m.cat([m.ones(2, dtype=m.int32, device=dev), m.ones(1, dtype=m.float16, device=dev)]),
    lambda m, dev: m.cat([m.ones(2, dtype=m.bool, device=dev), m.ones(1, dtype=m.uint8, device=dev)]),
    lambda m, dev: m.cat([m.ones(2, 3, device=dev), m.ones(0, device=dev)]),
    lambda m, dev: m.cat([m.ones(2, 3, device=dev).t(), m.ones(3, 2, device=dev).t()], 1),
    lambda m, dev: m.cat([m.ones(2, 3, device=dev), m.ones(2, 2, device=dev)]),
    lambda m, dev: m.cat([], 0),
    lambda m, dev: m.cat([m.ones(2, device=dev)], 1),
    lambda m, dev: m.stack([m.ones(2, 3, device=dev), m.zeros(2, 3, device=dev)], 1),
    lambda m, dev: m.stack([m.ones(2, 3, device=dev), m.zeros(2, 3, device=dev)], -1),
    lambda m, dev: m.stack([m.ones(2, dtype=m.int64, device=dev), m.ones(2, device=dev)]),
    lambda m, dev: m.stack([m.ones(2, device=dev), m.ones(3, device=dev)]),
    lambda m, dev: m.stack([], 0),
    lambda m, dev: m.stack([m.tensor(1.0, device=dev), m.tensor(2.0, device=dev)]),
])
def test_cat_stack(prog):
    check(prog)


# -------------------------------------------------------------------------------------------------------- factories

@pytest.mark.parametrize("prog", [
    lambda m, dev: m.arange(5, device=dev),
    lambda m, dev: m.arange(1, 4, device=dev),
    lambda m, dev: m.arange(0, 1, 0.1, device=dev),
    lambda m, dev: m.arange(1.0, 5, device=dev),
    lambda m, dev: m.arange(5, 0, -2, device=dev),
    lambda m, dev: m.arange(0, 10, 3, dtype=m.float64, device=dev),
    lambda m, dev: m.arange(-1.5, 1.5, 0.5, device=dev),
    lambda m, dev: m.arange(0, -3, device=dev),
    lambda m, dev: m.arange(0, 5, 0, device=dev),
    lambda m, dev: m.arange(0, 5, -1, device=dev),
    lambda m, dev: m.linspace(0, 1, 7, device=dev),
    lambda m, dev: m.linspace(-2, 10, 5, dtype=m.int64, device=dev),
    lambda m, dev: m.linspace(3, 3, 1, device=dev),
    lambda m, dev: m.linspace(0, 1, 0, device=dev),
    lambda m, dev: m.linspace(0, 1, -1, device=dev),
    lambda m, dev: m.eye(3, device=dev),
    lambda m, dev: m.eye(2, 4, dtype=m.bool, device=dev),
    lambda m, dev: m.eye(0, device=dev),
    lambda m, dev: m.eye(-1, device=dev),
    lambda m, dev: m.full((2,), 3, device=dev),
    lambda m, dev: m.full((2,), 3.0, device=dev),
    lambda m, dev: m.full((2,), True, device=dev),
    lambda m, dev: m.full((2,), 1 + 2j, device=dev),
    lambda m, dev: m.full((2, 2), 7, dtype=m.float16, device=dev),
    lambda m, dev: m.full((), 2.5, device=dev),
    lambda m, dev: m.zeros(2, 3, dtype=m.int8, device=dev),
    lambda m, dev: m.ones((2, 0), device=dev),
    lambda m, dev: m.zeros(-1, device=dev),
    lambda m, dev: m.tensor([[1, 2], [3]], device=dev),
    lambda m, dev: m.tensor([1, 2.5, True], device=dev),
    lambda m, dev: m.tensor([True, False], device=dev),
    lambda m, dev: m.tensor([], device=dev),
    lambda m, dev: m.tensor([[]], device=dev),
    lambda m, dev: m.tensor(3, device=dev),
    lambda m, dev: m.tensor([1, 2j], device=dev),
    lambda m, dev: m.tensor(np.arange(3, dtype=np.int16), device=dev),
    lambda m, dev: m.tensor(np.float64(2.5), device=dev),
    lambda m, dev: m.triu_indices(4, 3, 1, device=dev),
    lambda m, dev: m.triu_indices(3, 4, -1, device=dev),
    lambda m, dev: m.zeros_like(m.ones(2, 3, device=dev).t()),
    lambda m, dev: m.full_like(m.ones(2, dtype=m.int32, device=dev), 2.7),
    lambda m, dev: m.empty_strided((2, 3), (1, 2), device=dev).fill_(1),
    lambda m, dev: m.randint(3, 4, (2,), device=dev),
    lambda m, dev: m.rand(2, 3, device=dev).dtype,
    lambda m, dev: m.randn(2, dtype=m.float64, device=dev).dtype,
    lambda m, dev: m.rand(2, dtype=m.int64, device=dev),
], ids=lambda p: None)
def test_factories(prog):
    check(prog, rtol=1e-6)


def test_from_numpy_dtypes():
    for dt in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
               np.complex64):
        a = np.ones((2, 3), dtype=dt)[:, ::2]
        _compare(openreg.from_numpy(a), torch.from_numpy(a))


# ---------------------------------------------------------------------------------------------------- matmul family

@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
                                   ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)),
                                   ((2, 1, 2, 3), (5, 3, 4)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,)),
                                   ((2, 3), (4, 3)), ((3,), (4,)), ((2, 2, 3), (3, 3, 4)), ((), (3,))])
def test_matmul_shapes(sa, sb):
    def prog(m, dev):
        a = m.arange(int(np.prod(sa)), dtype=m.float32, device=dev).reshape(sa) / 3
        b = m.arange(int(np.prod(sb)), dtype=m.float32, device=dev).reshape(sb) / 5
        return m.matmul(a, b)
    check(prog, strides=False)


@pytest.mark.parametrize("prog", [
    lambda m, dev: m.mm(m.ones(2, 3, device=dev), m.ones(3, 4, device=dev)),
    lambda m, dev: m.mm(m.ones(2, 3, device=dev), m.ones(4, 3, device=dev)),
    lambda m, dev: m.mm(m.ones(2, device=dev), m.ones(2, 3, device=dev)),
    lambda m, dev: m.mm(m.ones(2, 3, device=dev), m.ones(3, 4, dtype=m.float64, device=dev)),
    lambda m, dev: m.mm(m.ones(2, 3, dtype=m.int64, device=dev), m.ones(3, 1, dtype=m.int64, device=dev)),
    lambda m, dev: m.bmm(m.ones(2, 2, 3, device=dev), m.ones(2, 3, 4, device=dev)),
    lambda m, dev: m.bmm(m.ones(2, 2, 3, device=dev), m.ones(3, 3, 4, device=dev)),
    lambda m, dev: m.bmm(m.ones(2, 3, device=dev), m.ones(3, 4, device=dev)),
    lambda m, dev: m.addmm(m.ones(4, device=dev), m.ones(2, 3, device=dev), m.ones(3, 4, device=dev)),
    lambda m, dev: m.addmm(m.ones(2, 4, device=dev), m.ones(2, 3, device=dev), m.ones(3, 4, device=dev), beta=0.5,
                           alpha=2),
    lambda m, dev: m.addmm(m.ones(3, device=dev), m.ones(2, 3, device=dev), m.ones(3, 4, device=dev)),
    lambda m, dev: m.dot(m.arange(3.0, device=dev), m.arange(3.0, device=dev)),
    lambda m, dev: m.dot(m.arange(3.0, device=dev), m.arange(4.0, device=dev)),
    lambda m, dev: m.dot(m.ones(2, 2, device=dev), m.ones(2, 2, device=dev)),
    lambda m, dev: m.dot(m.arange(3, device=dev), m.arange(3, device=dev)),
    lambda m, dev: m.outer(m.arange(3.0, device=dev), m.arange(2, device=dev)),
    lambda m, dev: m.ones(2, 3, device=dev) @ m.ones(3, device=dev),
    lambda m, dev: m.matmul(m.ones(2, 3, device=dev), m.ones(2, 3, device=dev)),
    lambda m, dev: m.matmul(m.tensor(1.0, device=dev), m.ones(2, device=dev)),
])
def test_matmul_family(prog):
    check(prog, strides=False)


# ------------------------------------------------------------------------------------------ softmax / log_softmax

@pytest.mark.parametrize("fname", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax(fname, dim):
    def prog(m, dev):
        t = (m.arange(12.0, device=dev).reshape(3, 4) - 5) * 3
        f = getattr(m, fname)
        return f(t, dim), getattr(t, fname)(dim), f(t, dim, dtype=m.float64), f(m.arange(4, device=dev), 0,
                                                                                    dtype=m.float32)
    check(prog, rtol=1e-5)


def test_softmax_edge_cases():
    check(lambda m, dev: m.softmax(m.tensor([float("-inf"), 0.0, float("inf")], device=dev), 0))
    check(lambda m, dev: m.log_softmax(m.tensor([1000.0, 0.0], device=dev), 0))
    check(lambda m, dev: m.softmax(m.ones(0, 3, device=dev), 1), strides=False)
    check(lambda m, dev: m.softmax(m.ones(2, device=dev), 2))
    check(lambda m, dev: m.softmax(m.tensor(2.0, device=dev), 0))
    check(lambda m, dev: m.softmax(m.arange(3, device=dev), 0))


# ---------------------------------------------------------------------------------------------- misc pointwise ops

@pytest.mark.parametrize("prog", [
    lambda m, dev: m.clamp(m.arange(-3.0, 4, device=dev), -1, 2),
    lambda m, dev: m.clamp(m.arange(-3, 4, device=dev), 0.5),
    lambda m, dev: m.clamp(m.arange(-3, 4, device=dev), min=m.tensor(1.5, device=dev)),
    lambda m, dev: m.clamp(m.arange(-3.0, 4, device=dev), 2, -1),
    lambda m, dev: m.pow(m.arange(4, device=dev), 2),
    lambda m, dev: m.pow(m.arange(4, device=dev), 0.5),
    lambda m, dev: m.pow(m.arange(4, device=dev), -1),
    lambda m, dev: m.pow(2, m.arange(4, device=dev)),
    lambda m, dev: m.pow(2.5, m.arange(4, device=dev)),
    lambda m, dev: m.arange(4, dtype=m.int32, device=dev) ** m.arange(4, dtype=m.int64, device=dev),
    lambda m, dev: m.tensor([-7, 7, -7, 7], device=dev) % m.tensor([3, -3, -3, 3], device=dev),
    lambda m, dev: m.tensor([-7.5, 7.5], device=dev) % 2,
    lambda m, dev: m.tensor([-7, 7], device=dev) // m.tensor([2, -2], device=dev),
    lambda m, dev: m.tensor([-7.0, 7.0], device=dev) // 0,
    lambda m, dev: m.tensor([1.0, 0.0, -1.0], device=dev) / 0,
    lambda m, dev: m.where(m.tensor([True, False], device=dev), 1, 2.5),
    lambda m, dev: m.where(m.tensor([True, False], device=dev), m.ones(2, dtype=m.int32, device=dev), 2.5),
    lambda m, dev: m.where(m.tensor([1, 0], device=dev), 1.0, 2.0),
    lambda m, dev: m.where(m.tensor([True, False], device=dev)),
    lambda m, dev: m.where(m.tensor([[1.0, 0.0], [float("nan"), -0.0]], device=dev)),
    lambda m, dev: m.where(m.tensor(2, device=dev)),
    lambda m, dev: m.nonzero(m.tensor([[0, 1, 2], [3, 0, 0]], device=dev)),
    lambda m, dev: m.nonzero(m.ones(2, 3, device=dev)).stride(),
    lambda m, dev: m.nonzero(m.zeros(2, 3, device=dev)).stride(),
    lambda m, dev: m.tensor(0.0, device=dev).nonzero().shape,
    lambda m, dev: m.tensor([0, 1], device=dev).nonzero(as_tuple=True),
    lambda m, dev: m.ones(2, 3, device=dev).t().nonzero(),
    lambda m, dev: m.ops.aten.where.default(m.tensor([[1, 0], [2, 3]], device=dev)),
    lambda m, dev: m.nonzero(m.tensor([1, 0], device=dev), out=m.empty(0, dtype=m.int64, device=dev)),
    lambda m, dev: m.nonzero(m.tensor([1, 0], device=dev), out=m.empty(0, dtype=m.int32, device=dev)),
    lambda m, dev: m.nonzero(m.tensor([1, 0], device=dev), as_tuple=True, out=m.empty(0, dtype=m.int64)),
    lambda m, dev: m.nonzero(m.ones(2, device="meta")),
    lambda m, dev: m.maximum(m.tensor([1.0, float("nan")], device=dev), m.tensor([2.0, 0.0], device=dev)),
    lambda m, dev: m.relu(m.arange(-2, 3, device=dev)),
    lambda m, dev: m.rsqrt(m.tensor([0.0, 4.0, -1.0], device=dev)),
    lambda m, dev: m.log(m.tensor([0.0, 1.0, -1.0], device=dev)),
    lambda m, dev: ~m.tensor([True, False], device=dev),
    lambda m, dev: -m.tensor([True, False], device=dev),
    lambda m, dev: m.tensor([True, False], device=dev) - m.tensor([True, True], device=dev),
    lambda m, dev: m.tensor([1, 2], dtype=m.uint8, device=dev) - 3,
    lambda m, dev: m.tensor([100], dtype=m.int8, device=dev) * 2,
    lambda m, dev: m.tensor([1, 2], device=dev) == m.tensor([1.0, 3.0], device=dev),
    lambda m, dev: m.tensor([1, 2], device=dev) < 1.5,
    lambda m, dev: m.abs(m.tensor([-1, 2], dtype=m.int8, device=dev)),
    lambda m, dev: m.abs(m.tensor([3 + 4j], device=dev)),
    lambda m, dev: m.abs(m.tensor([True], device=dev)),
    lambda m, dev: m.sigmoid(m.tensor([-100.0, 0.0, 100.0], device=dev)),
    lambda m, dev: m.tanh(m.tensor([1, 2], dtype=m.int16, device=dev)),
], ids=lambda p: None)
def test_pointwise_misc(prog):
    check(prog, rtol=1e-5)


# -------------------------------------------------------------------------------------------- in-place and versions

def test_inplace_ops_and_versions():
    def prog(m, dev):
        t = m.arange(6.0, device=dev).reshape(2, 3)
        v = t[:, 1]
        vs = [t._version]
        v.mul_(10)
        vs.append(t._version)
        t.add_(m.ones(3, device=dev), alpha=2)
        vs.append(v._version)
        t.clamp_(max=20).abs_()
        vs.append(t._version)
        t.fill_(m.tensor(3.0, device=dev))
        vs.append(t._version)
        t.zero_()
        return t, v, vs
    check(prog)


def test_resize_set():
    def prog(m, dev):
        t = m.arange(6.0, device=dev)
        r = t.resize_(2, 2)
        a = m.zeros(0, device=dev).set_(t.untyped_storage(), 1, (2, 2), (1, 2))
        b = m.zeros(0, device=dev).set_(t)
        return r, a, b, a.storage_offset(), t._version
    check(prog)


# ------------------------------------------------------------------------------------------------------------ autograd

def _grad_prog(body):
    def prog(m, dev):
        x = m.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], device=dev, requires_grad=True)
        w = m.tensor([[1.0, 2.0], [0.5, -1.0], [3.0, 0.1]], device=dev, requires_grad=True)
        out = body(m, x, w)
        out.backward()
        return out.detach(), x.grad, w.grad
    return prog


AUTOGRAD_BODIES = {
    "mm_tanh_sum": lambda m, x, w: m.tanh(m.mm(x, w)).sum(),
    "matmul_softmax": lambda m, x, w: (m.softmax(x @ w, 1) * m.arange(2.0, device=x.device)).sum(),
    "log_softmax_nll": lambda m, x, w: -m.log_softmax(x @ w, -1)[:, 0].mean(),
    "broadcast_mul": lambda m, x, w: (x * w.t()[0]).sum() + (x + w[:, 0]).prod(),
    "sigmoid_exp_pow": lambda m, x, w: (m.sigmoid(x).exp() ** 2).mean() + (w.abs().sqrt()).sum(),
    "views": lambda m, x, w: (x.t()[1:, :1] * w[1:, 1:]).sum() + x.reshape(-1)[::2].sum() + w.unsqueeze(0).sum(),
    "indexing": lambda m, x, w: x[m.tensor([0, 1, 1], device=x.device), m.tensor([2, 0, 0], device=x.device)].sum(),
    "cat_stack": lambda m, x, w: (m.cat([x, w.t()], 0) ** 2).sum() + m.stack([x[0], x[1]]).amax(),
    "where_clamp_relu": lambda m, x, w: m.where(x > 0, x, x * 3).sum() + m.clamp(x, -0.5, 1).sum() + m.relu(w).sum(),
    "maximum_minimum": lambda m, x, w: m.maximum(x, m.zeros_like(x)).sum() + m.minimum(x, x * 2).sum(),
    "amax_amin": lambda m, x, w: x.amax(1).sum() + w.amin(0).sum(),
    "mean_dim_keepdim": lambda m, x, w: (x - x.mean(1, keepdim=True)).pow(2).sum(),
    "div_sub_neg": lambda m, x, w: (x / (w.t() + 5) - (-x)).sum(),
    "addmm_outer_dot": lambda m, x, w: m.addmm(m.ones(2, 2, device=x.device), x, w).sum()
    + m.outer(x[0], w[:, 0]).sum() + m.dot(x[1], w[:, 1]),
    "bmm": lambda m, x, w: m.bmm(x.unsqueeze(0), w.unsqueeze(0)).sum(),
    "split_chunk_unbind": lambda m, x, w: x.split(1, 1)[2].sum() * 2 + w.chunk(2, 0)[1].sum() + x.unbind(0)[1].prod(),
    "expand_narrow_select": lambda m, x, w: (x[:1].expand(4, 3).narrow(1, 1, 2) * 2).sum() + w.select(1, 0).sum(),
    "inplace_on_clone": lambda m, x, w: x.clone().mul_(w.t()).add_(1).sum(),
    "setitem": lambda m, x, w: _setitem(m, x, w),
    "log_sin_cos_rsqrt": lambda m, x, w: (m.log(x.abs() + 1) + m.sin(x) * m.cos(x)).sum() + m.rsqrt(w.abs() + 1).sum(),
    "prod_with_zero": lambda m, x, w: (x * m.tensor([1.0, 0.0, 1.0], device=x.device)).prod(1).sum(),
}


def _setitem(m, x, w):
    y = x.clone()
    y[:, 0] = w[:2, 1]
    return (y * y).sum()


@pytest.mark.parametrize("name", list(AUTOGRAD_BODIES))
def test_autograd_gradients(name):
    check(_grad_prog(AUTOGRAD_BODIES[name]), strides=False, rtol=1e-5)


def test_autograd_grad_create_graph():
    def prog(m, dev):
        x = m.tensor([0.3, -1.2, 2.0], device=dev, requires_grad=True)
        y = (x.sin() * x ** 3).sum()
        (g,) = m.autograd.grad(y, x, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x, retain_graph=True)
        z = (g * g).sum()
        z.backward()
        return g.detach(), gg, x.grad, g.requires_grad
    check(prog, strides=False)


def test_autograd_backward_multi():
    def prog(m, dev):
        a = m.tensor([1.0, 2.0], device=dev, requires_grad=True)
        b = m.tensor([3.0, -1.0], device=dev, requires_grad=True)
        y1, y2 = a * b, (a + b).exp()
        m.autograd.backward([y1, y2], [m.ones(2, device=dev), m.tensor([0.5, 2.0], device=dev)])
        a2 = a.detach().clone().requires_grad_()
        (a2 * a2).sum().backward(inputs=[a2])
        return a.grad, b.grad, a2.grad
    check(prog, strides=False)


def test_autograd_grad_fn_names_python_scalar():
    def prog(m, dev):
        x = m.ones(2, 3, device=dev, requires_grad=True)
        return [o.grad_fn.name() for o in (x + 1, x - 1, x * 2, x / 2)]
    check(prog)


def test_autograd_grad_fn_names():
    def prog(m, dev):
        x = m.ones(2, 3, device=dev, requires_grad=True)
        outs = [x + x, x * x, x.sum(), x.t(), x[0], x.view(6), x.exp(), x.mm(x.t()), x.mean(1), x.clone(), x.unsqueeze(0),
                x.transpose(0, 1), x.expand(2, 2, 3), x.relu(), x.softmax(1), x.abs(), x.permute(1, 0)]
        return [o.grad_fn.name() for o in outs]
    check(prog)


@pytest.mark.parametrize("prog", [
    lambda m, dev: m.ones(2, device=dev, requires_grad=True).mul(2).backward(),
    lambda m, dev: m.ones(2, device=dev).sum().backward(),
    lambda m, dev: m.autograd.grad(m.ones(2, device=dev, requires_grad=True).sum(), m.ones(2, device=dev,
                                                                                              requires_grad=True)),
    lambda m, dev: m.ones(2, device=dev, requires_grad=True).add_(1),
    lambda m, dev: m.ones(2, device=dev, dtype=m.int64).requires_grad_(),
    lambda m, dev: m.ones(2, device=dev, requires_grad=True).sum().backward(m.ones(3, device=dev)),
], ids=["nonscalar", "no_grad_fn", "unused_input", "leaf_inplace", "int_requires_grad", "bad_grad_shape"])
def test_autograd_errors(prog):
    check(prog)


def test_forward_ad():
    def prog(m, dev):
        fwAD = m.autograd.forward_ad
        with fwAD.dual_level():
            p = m.tensor([0.5, 1.0, -2.0], device=dev)
            x = fwAD.make_dual(p, m.tensor([1.0, 2.0, 0.5], device=dev))
            w = m.tensor([[1.0], [2.0], [0.5]], device=dev)
            y = (x.sin() * x.exp()).unsqueeze(0) @ w
            z = m.softmax(x, 0) * x.t() + x.view(3, 1).sum(0)
            outs = [fwAD.unpack_dual(o) for o in (y, z, x[1:], x * 2)]
            return [(o.primal, o.tangent) for o in outs] + [fwAD.unpack_dual(p).tangent]
    check(prog, strides=False)


# ------------------------------------------------------------------------------------------- schemas and tags of ops

SCHEMA_OPS = ["abs", "neg", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "pow", "clamp",
              "where", "maximum", "minimum", "sum", "mean", "prod", "amax", "amin", "argmax", "mm", "bmm", "matmul",
              "addmm", "dot", "outer", "cat", "stack", "add", "sub", "mul", "div", "floor_divide", "remainder", "eq",
              "ne", "lt", "le", "gt", "ge", "view", "reshape", "as_strided", "t", "transpose", "permute", "expand",
              "squeeze", "unsqueeze", "flatten", "unflatten", "narrow", "select", "unbind", "split", "chunk", "slice",
              "fill_", "zero_", "copy_", "add_", "mul_", "abs_", "clamp_", "resize_", "set_", "empty",
              "empty_strided", "zeros", "ones", "full", "arange", "linspace", "eye", "rand", "randn", "randint",
              "triu_indices", "clone", "contiguous", "detach", "_softmax", "_log_softmax", "softmax", "log_softmax",
              "index", "index_put_", "_to_copy", "alias", "split_with_sizes", "zeros_like", "ones_like", "empty_like",
              "full_like", "rand_like", "randn_like", "diagonal", "as_strided_", "nonzero"]


TAGS = ["core", "pointwise", "inplace_view", "nondeterministic_seeded", "dynamic_output_shape"]


def _op_mismatches(op: str) -> set:
    """("schema"|"tags"|"missing", overload) for every difference between aten::<op> in openreg and in PyTorch."""
    tp = getattr(torch.ops.aten, op)
    op_ = getattr(openreg.ops.aten, op)
    have = set(op_.overloads())
    out = set()
    for ov in tp.overloads():
        schema = str(getattr(tp, ov)._schema)
        if ov not in have:
            # TorchScript scalar/list overloads (int, float, str, ...), Dimname and *_out variants: not in the contract
            args = schema.split("(", 1)[1].rsplit(") ->", 1)[0]
            if ("Tensor" in args and "out" not in ov and "hacked_twin" not in ov and "Dimname" not in schema
                    and "str" not in ov and not ov.startswith(("list_", "t", "left_t", "right_")) or ov == "Tensor") \
                    and not (op in ("eq", "ne") and ov == "Tensor_list") and ov != "dtype" \
                    and not (op == "copy_" and ov != "default"):
                out.add(("missing", ov))
            continue
        ours = getattr(op_, ov)
        if str(ours._schema) != schema:
            out.add(("schema", ov))
        tt = {t.name for t in getattr(tp, ov).tags if t.name in TAGS}
        if {t.name for t in ours.tags if t.name in TAGS} != tt:
            out.add(("tags", ov))
        if ours.name() != getattr(tp, ov).name():
            out.add(("name", ov))
    return out


_S, _T, _M = "schema", "tags", "missing"
# Known discrepancies, per op. "schema": enum defaults printed by name (dtype=long, memory_format=contiguous_format)
# where PyTorch prints ints (dtype=4, memory_format=0). "tags": core/pointwise/... differ. "missing": overload absent.
_KNOWN: dict = {}


@pytest.mark.parametrize("op", SCHEMA_OPS)
def test_op_schemas_tags_overloads(op):
    """Schema text, name() and tags of every overload both have; functional overloads PyTorch has and openreg lacks."""
    found = _op_mismatches(op)
    known = _KNOWN.get(op, set())
    assert found <= known, f"aten::{op}: new discrepancies {sorted(found - known)}"
    assert found == known, f"aten::{op}: fixed {sorted(known - found)}: remove them from _KNOWN"
    if known:
        pytest.xfail(f"aten::{op}: {sorted(known)}")


def test_tag_enum_members():
    for name in ("core", "pointwise", "inplace_view", "pt2_compliant_tag", "nondeterministic_seeded",
                 "dynamic_output_shape", "view_copy", "needs_fixed_stride_order"):
        if hasattr(torch.Tag, name):
            assert hasattr(openreg.Tag, name), name


# --------------------------------------------------------------------------------------------------------- library

def _lib_prog(m, ns):
    lib_mod = m.library
    with lib_mod._scoped_library(ns, "DEF") as lib:
        lib.define("scale(Tensor x, float s=2.0) -> Tensor")
        lib.define("inc_(Tensor(a!) x) -> Tensor(a!)")
        lib.impl("scale", lambda x, s=2.0: x * s, "CPU")
        lib.impl("inc_", lambda x: x.add_(1), "CPU")
        ops = getattr(m.ops, ns)
        x = m.arange(3.0)
        y = ops.scale(x)
        z = ops.scale.default(x, 3.0)
        w = ops.inc_(x)
        schema = str(ops.scale.default._schema)
        mutable = ops.inc_.default._schema.is_mutable
        name = ops.scale.default.name()
        ovs = list(ops.scale.overloads())
    gone = not hasattr(getattr(m.ops, ns), "scale")
    return y, z, w is x, schema, mutable, name, ovs, gone


def test_library_define_impl():
    o = _lib_prog(openreg, "diffns_a")
    t = _lib_prog(torch, "diffns_a")
    _compare(o, t)


def _custom_op_prog(m, ns):
    @m.library.custom_op(f"{ns}::mysin", mutates_args=())
    def mysin(x: m.Tensor, k: float = 1.0) -> m.Tensor:
        return x.sin() * k

    def setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.k = inputs[1]

    def bwd(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos() * ctx.k, None

    mysin.register_autograd(bwd, setup_context=setup)

    @mysin.register_fake
    def _(x, k=1.0):
        return m.empty_like(x)

    x = m.tensor([0.1, 0.7], requires_grad=True)
    y = mysin(x, 2.0)
    y.sum().backward()
    schema = str(getattr(m.ops, ns).mysin.default._schema)
    m.library.opcheck(mysin, (m.tensor([0.3, 0.2]), 0.5))
    return y.detach(), x.grad, schema


def test_custom_op_and_opcheck():
    _compare(_custom_op_prog(openreg, "diffns_b"), _custom_op_prog(torch, "diffns_b"))


def test_fallthrough_kernel():
    def prog(m, ns):
        with m.library._scoped_library(ns, "DEF") as lib:
            lib.define("f(Tensor x) -> Tensor")
            lib.impl("f", lambda x: x + 1, "CPU")
            lib.impl("f", m.library.fallthrough_kernel, "AutogradCPU")
            return getattr(m.ops, ns).f(m.ones(2, requires_grad=True)).requires_grad
    _compare(prog(openreg, "diffns_c"), prog(torch, "diffns_c"))


@pytest.mark.parametrize("case", ["bad_kind", "bad_schema", "impl_undefined", "reserved_ns", "call_no_kernel",
                                  "define_in_impl"])
def test_library_errors(case):
    def prog(m, dev):
        ns = "diffns_err_" + case
        if case == "bad_kind":
            m.library.Library(ns, "NOPE")
        elif case == "bad_schema":
            with m.library._scoped_library(ns, "DEF") as lib:
                lib.define("f(Tensor x -> Tensor")
        elif case == "impl_undefined":
            with m.library._scoped_library(ns, "DEF") as lib:
                lib.impl("nothere", lambda x: x, "CPU")
                getattr(m.ops, ns).nothere(m.ones(1))
        elif case == "reserved_ns":
            m.library.Library("aten", "DEF")
        elif case == "call_no_kernel":
            with m.library._scoped_library(ns, "DEF") as lib:
                lib.define("f(Tensor x) -> Tensor")
                getattr(m.ops, ns).f(m.ones(1))
        elif case == "define_in_impl":
            with m.library._scoped_library(ns, "IMPL") as lib:
                lib.define("f(Tensor x) -> Tensor")
        return True
    check(prog)


def test_infer_schema_of_custom_op():
    def prog(m, ns):
        @m.library.custom_op(f"{ns}::g", mutates_args=("out",))
        def g(x: m.Tensor, out: m.Tensor, xs: list[m.Tensor], n: int = 3, flag: bool = False, s: float = 1.5,
              opt: Optional[m.Tensor] = None, dims: Optional[list[int]] = None) -> None:  # noqa: UP045
            out.copy_(x * n)
        return str(getattr(m.ops, ns).g.default._schema)
    _compare(prog(openreg, "diffns_d"), prog(torch, "diffns_d"))


# ------------------------------------------------------------------------------------------------ error types misc

@pytest.mark.parametrize("prog", [
    lambda m, dev: m.ones(2, device=dev) + m.ones(3, device=dev),
    lambda m, dev: m.ones(2, 3, device=dev).sum(2),
    lambda m, dev: m.ones(2, 3, device=dev).view(5),
    lambda m, dev: m.ones(2, device=dev).item(),
    lambda m, dev: m.tensor([1, 2], device=dev) // 0,
    lambda m, dev: m.tensor("abc"),
    lambda m, dev: m.ones(2, device=dev).to("nonsense"),
    lambda m, dev: m.zeros(2, 3, device=dev).size(3),
    lambda m, dev: m.zeros(2, 3, device=dev).stride(-3),
    lambda m, dev: m.ones(2, device=dev).expand(3),
    lambda m, dev: m.ones(2, device=dev).resize_(-1),
    lambda m, dev: m.ones(2, device=dev).copy_(m.ones(3, device=dev)),
    lambda m, dev: m.ones(2, device=dev).fill_(m.ones(2, device=dev)),
    lambda m, dev: m.empty(2, 3, device=dev).numel() + m.empty((2, -3), device=dev).numel(),
    lambda m, dev: m.where(m.ones(2, device=dev), 1.0, 0.0),
    lambda m, dev: m.tensor([1.0], device=dev).bool() & m.tensor([1.0], device=dev),
    lambda m, dev: len(m.tensor(1.0, device=dev)),
    lambda m, dev: iter(m.tensor(1.0, device=dev)),
    lambda m, dev: bool(m.ones(2, device=dev)),
    lambda m, dev: int(m.ones(2, device=dev)),
    lambda m, dev: m.ones(2, 3, device=dev).squeeze((0, 5)),
    lambda m, dev: m.ones(2, device=dev).permute(0, 1),
], ids=["broadcast", "dim_range", "view_bad", "item_multi", "int_div_zero", "tensor_str", "bad_device", "size_dim",
        "stride_dim", "expand_shrink", "resize_neg", "copy_shape", "fill_nonscalar", "negative_size",
        "where_cond_float", "bitand_float", "len_0d", "iter_0d", "bool_ambiguous", "int_multi", "squeeze_tuple_range",
        "permute_len"])
def test_error_types(prog):
    check(prog)


@pytest.mark.parametrize("prog", [
    lambda m, dev: (len(m.ones(3, 2, device=dev)), [r.tolist() for r in m.arange(4, device=dev).reshape(2, 2)]),
    lambda m, dev: (bool(m.ones(1, device=dev)), int(m.tensor([2.7], device=dev)), float(m.tensor(3, device=dev))),
    lambda m, dev: (m.ones(2, 3, device=dev).size(), m.ones(2, 3, device=dev).shape[-1], m.ones(()).dim()),
    lambda m, dev: m.ones(2, 3, dtype=m.float16, device=dev).element_size(),
    lambda m, dev: m.ones(2, 3, device=dev).t().is_contiguous(),
    lambda m, dev: m.ones(2, 1, device=dev).t().is_contiguous(),
    lambda m, dev: m.ones(2, 3, device=dev).to(dtype=m.int32).type().rsplit(".", 1)[-1],
    lambda m, dev: (m.tensor(3, device=dev).item(), m.tensor(1.5).tolist(), m.tensor([[True]]).tolist()),
    lambda m, dev: m.ones(2, 3, device=dev).new_zeros(4).dtype,
    lambda m, dev: m.ones(2, 3, device=dev).new_full((2,), 3),
    lambda m, dev: m.ones(2, 3, device=dev).new_tensor([1, 2]),
    lambda m, dev: m.arange(6, device=dev).reshape(2, 3).contiguous().stride(),
    lambda m, dev: m.arange(6, device=dev).reshape(2, 3).t().contiguous().stride(),
    lambda m, dev: m.arange(6, device=dev).reshape(2, 3).t().clone().stride(),
    lambda m, dev: m.empty_like(m.arange(6, device=dev).reshape(2, 3).t()).stride(),
    lambda m, dev: m.arange(6.0, device=dev).reshape(2, 3)[:, 1:].clone().stride(),
    lambda m, dev: m.arange(6.0, device=dev).reshape(2, 3).t().to(m.float64).stride(),
    lambda m, dev: m.ones(2, 3, device=dev).expand(4, 2, 3).clone().stride(),
    lambda m, dev: m.ones(2, 3, device=dev).expand(4, 2, 3).contiguous().stride(),
    lambda m, dev: (m.ones(2, 3, device=dev).t() + 1).stride(),
    lambda m, dev: (m.ones(2, 3, device=dev).t() + m.ones(3, 2, device=dev)).stride(),
    lambda m, dev: (m.ones(3, 2, device=dev) + m.ones(2, 3, device=dev).t()).stride(),
    lambda m, dev: (m.ones(1, 3, device=dev).expand(4, 3) + m.ones(3, 4, device=dev).t()).stride(),
    lambda m, dev: (m.ones(2, 3, 4, device=dev).permute(2, 0, 1) * m.ones(4, 2, 3, device=dev)).stride(),
    lambda m, dev: m.where(m.ones(3, 2, device=dev) > 0, m.ones(2, 3, device=dev).t(), 0.0).stride(),
    lambda m, dev: (m.ones(3, 2, device=dev).t() - m.ones(3, device=dev)).stride(),
    lambda m, dev: m.clamp(m.ones(2, 3, device=dev).t(), m.zeros(3, 2, device=dev)).stride(),
    lambda m, dev: (m.ones(2, 3, device="meta").t() + m.ones(3, 2, device="meta")).stride(),
    lambda m, dev: m.ones(2, 3, device=dev).t().exp().stride(),
    lambda m, dev: (m.ones(4, 1, device=dev).expand(4, 3) * 2).stride(),
], ids=lambda p: None)
def test_metadata_and_layouts(prog):
    check(prog)


# ------------------------------------------------------------------------------ scalars that do not fit the dtype

_SCALAR_OPS = {
    "fill_": lambda m, d, v, dev: m.zeros(3, dtype=d, device=dev).fill_(v),
    "full": lambda m, d, v, dev: m.full((2,), v, dtype=d, device=dev),
    "full_like": lambda m, d, v, dev: m.full_like(m.zeros(2, dtype=d, device=dev), v),
    "new_full": lambda m, d, v, dev: m.zeros(2, dtype=d, device=dev).new_full((2,), v),
    "clamp_max": lambda m, d, v, dev: m.zeros(3, dtype=d, device=dev).clamp_max(v),
    "clamp_min": lambda m, d, v, dev: m.zeros(3, dtype=d, device=dev).clamp_min(v),
    "clamp": lambda m, d, v, dev: m.zeros(3, dtype=d, device=dev).clamp(v, None),
    "clamp_": lambda m, d, v, dev: m.zeros(3, dtype=d, device=dev).clamp_(None, v),
    "masked_fill": lambda m, d, v, dev: m.zeros(3, dtype=d, device=dev).masked_fill(
        m.tensor([True, False, True], device=dev), v),
    "where_other": lambda m, d, v, dev: m.where(m.tensor([True, False], device=dev), m.zeros(2, dtype=d, device=dev), v),
    "where_self": lambda m, d, v, dev: m.where(m.tensor([True, False], device=dev), v, m.zeros(2, dtype=d, device=dev)),
    "add_alpha": lambda m, d, v, dev: m.add(m.zeros(2, dtype=d, device=dev), m.ones(2, dtype=d, device=dev), alpha=v),
    "add_wraps": lambda m, d, v, dev: m.zeros(2, dtype=d, device=dev) + v,
    "setitem": lambda m, d, v, dev: _setitem(m.zeros(2, dtype=d, device=dev), v),
    "scalar_tensor": lambda m, d, v, dev: m.scalar_tensor(v, dtype=d, device=dev),
    "tensor": lambda m, d, v, dev: m.tensor([v, 0], dtype=d, device=dev),
    "pow": lambda m, d, v, dev: m.ones(2, dtype=d, device=dev).pow(v),
    "arange": lambda m, d, v, dev: m.arange(0, v, max(abs(v), 1) if not math.isnan(v) else 1, dtype=d, device=dev),
}
_SCALAR_VALUES = [300, 65536, -1, 2**31, float("inf"), float("nan"), 1e40, 70000.0, -1.5, 2.5, True]
_CONVERT = "cannot be converted to type"
# Differences that are not about scalar conversion: clamp of a bool tensor by a bool (PyTorch: not implemented
# for 'Bool'), and complex + inf (PyTorch's complex arithmetic gives inf+nanj).
_SCALAR_OTHER_DIFFERENCES = {(op, "bool", "True") for op in ("clamp", "clamp_", "clamp_max", "clamp_min")} | {
    ("add_wraps", "complex64", "inf"), ("add_wraps", "complex64", "1e+40")}


def _setitem(t, v):
    t[0] = v
    return t


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(_SCALAR_OPS))
def test_scalar_to_dtype_conversion_checks(op, dtype):
    """Where PyTorch refuses a scalar that does not fit ("value cannot be converted to type int16_t without
    overflow"), openreg does with the same type name; elsewhere both give the same (possibly wrapped) values."""
    make = _SCALAR_OPS[op]
    for v in _SCALAR_VALUES:
        if (op, dtype, repr(v)) in _SCALAR_OTHER_DIFFERENCES:
            continue
        for dev in ("cpu", DEV):
            try:
                expected, terr = make(torch, getattr(torch, dtype), v, "cpu"), None
            except (RuntimeError, TypeError, ValueError) as e:
                expected, terr = None, e
            try:
                got, oerr = make(openreg, getattr(openreg, dtype), v, dev), None
            except (RuntimeError, TypeError, ValueError, NotImplementedError) as e:
                got, oerr = None, e
            where = f"{op}({dtype}, {v!r}) on {dev}"
            if terr is not None and _CONVERT in str(terr):
                assert isinstance(oerr, RuntimeError), f"{where}: torch raised '{terr}', openreg gave {got!r} {oerr!r}"
                name = str(terr).split(_CONVERT)[1].split()[0]
                assert f"{_CONVERT} {name} without overflow" in str(oerr), f"{where}: {oerr} vs torch {terr}"
            elif terr is not None:
                assert oerr is not None, f"{where}: torch raised '{terr}', openreg gave {got!r}"
            else:
                assert oerr is None, f"{where}: torch gave {expected!r}, openreg raised {oerr!r}"
                _compare(got, expected, path=where)
