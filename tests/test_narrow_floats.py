"""bfloat16 and float8 through ml_dtypes: host storage is ml_dtypes arrays (np.asarray/numpy() give real
bfloat16/float8 arrays), casts round as PyTorch's do, float8 promotes with nothing else and runs only the
operators PyTorch runs on it, and files interchange bit for bit."""
from __future__ import annotations

import io
import os

import ml_dtypes
import numpy as np
import pytest
from device_params import DEVICES, LAST_DEVICE, needs_device

import openreg

NARROW = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]
FLOAT8 = NARROW[1:]


def _torch():
    return pytest.importorskip("torch", reason="compares with PyTorch")


def _bits(arr: np.ndarray) -> np.ndarray:
    return arr.view(np.uint16 if arr.itemsize == 2 else np.uint8)


def _edge_values() -> np.ndarray:
    rng = np.random.default_rng(0)
    wide = rng.standard_normal(3000) * 10.0 ** rng.integers(-12, 12, 3000)
    edges = [0.0, -0.0, np.inf, -np.inf, 448, 460, 464, 465, 480, 240, 248, 256, 57344, 61440, 65504, 3.39e38,
             3.4e38, 1e-40, 2 ** -9, 2 ** -10, 2 ** -17, 2 ** -18, 0.1, -1.5, 3.3]
    return np.concatenate([wide, edges]).astype(np.float32)


# -- storage ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NARROW)
def test_numpy_views_are_ml_dtypes_arrays_sharing_memory(name):
    d = getattr(openreg, name)
    t = openreg.tensor([1.0, 2.0, -0.5], dtype=d)
    a = t.numpy()
    assert a.dtype == np.dtype(getattr(ml_dtypes, name)) and np.asarray(t).dtype == a.dtype
    assert a.astype(np.float32).tolist() == [1.0, 2.0, -0.5]
    t.mul_(openreg.tensor([2.0, 2.0, 2.0], dtype=d)) if name != "bfloat16" else t.add_(1)
    assert a.astype(np.float32).tolist() == ([2.0, 3.0, 0.5] if name == "bfloat16" else [2.0, 4.0, -1.0])
    back = openreg.from_numpy(a)
    assert back.dtype is d and back.data_ptr() == t.data_ptr()


@needs_device
@pytest.mark.parametrize("name", NARROW)
def test_device_tensors_round_trip_as_ml_dtypes(name):
    d = getattr(openreg, name)
    t = openreg.tensor([1.0, -2.5, 0.25], dtype=d, device=LAST_DEVICE)
    assert t.cpu().numpy().dtype == np.dtype(getattr(ml_dtypes, name))
    assert t.tolist() == [1.0, -2.5, 0.25] and t[1].item() == -2.5
    assert np.asarray(t, copy=True).astype(np.float32).tolist() == [1.0, -2.5, 0.25]


# -- casts -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", NARROW)
def test_casts_round_to_nearest_even_like_ml_dtypes(device, name):
    """ml_dtypes is the reference, except float8_e4m3fn, which saturates to +-448 as PyTorch's casts do."""
    v = _edge_values()
    got = openreg.from_numpy(v).to(device).to(getattr(openreg, name)).cpu().numpy()
    ref_in = np.clip(v, -448, 448) if name == "float8_e4m3fn" else v
    with np.errstate(over="ignore"):
        ref = ref_in.astype(getattr(ml_dtypes, name))
    np.testing.assert_array_equal(_bits(got), _bits(ref))


def test_float8_e4m3fn_saturates_and_keeps_nan():
    t = openreg.tensor([460.0, 470.0, 1e6, float("inf"), -float("inf"), float("nan")]).to(openreg.float8_e4m3fn)
    assert t.float().tolist()[:5] == [448.0, 448.0, 448.0, 448.0, -448.0] and np.isnan(t.float().tolist()[5])
    overflow = openreg.tensor([1e6, 300.0]).to(openreg.float8_e4m3fnuz).float().tolist()
    assert all(np.isnan(overflow))                                          # fnuz: NaN, no infinity
    assert openreg.tensor([61440.0]).to(openreg.float8_e5m2).float().tolist() == [float("inf")]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", NARROW)
def test_casts_match_pytorch(device, name):
    torch = _torch()
    v = _edge_values()
    for src in ("float32", "float64", "float16", "int32"):
        with np.errstate(all="ignore"):
            arr = v.astype(src) if src != "int32" else np.clip(np.nan_to_num(v, posinf=0, neginf=0), -2e9,
                                                               2e9).astype(np.int32)
            expected = torch.from_numpy(arr).to(getattr(torch, name)).float().numpy()
        got = openreg.from_numpy(arr).to(device).to(getattr(openreg, name)).float().cpu().numpy()
        np.testing.assert_array_equal(got, expected, err_msg=f"{src} -> {name}")
    if name != "bfloat16":   # every float8 bit pattern widened to each floating dtype
        pattern = np.arange(256, dtype=np.uint8)
        tb = torch.from_numpy(pattern).view(getattr(torch, name))
        ob = openreg.from_numpy(pattern).to(device).view(getattr(openreg, name))
        for dst in ("float32", "float64", "float16", "bfloat16"):
            np.testing.assert_array_equal(ob.to(getattr(openreg, dst)).float().cpu().numpy(),
                                          tb.to(getattr(torch, dst)).float().numpy())


# -- promotion and operators -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOAT8)
def test_float8_promotes_only_with_itself(name):
    d = getattr(openreg, name)
    assert openreg.promote_types(d, d) is d
    for other in (openreg.float32, openreg.bfloat16, openreg.int32, openreg.bool, openreg.float8_e5m2
                  if name != "float8_e5m2" else openreg.float8_e4m3fn):
        with pytest.raises(RuntimeError, match=f"Promotion for Float8 Types is not supported, attempted to "
                                               f"promote {d.scalar_name} and {other.scalar_name}"):
            openreg.promote_types(d, other)
    with pytest.raises(RuntimeError, match="Promotion for Float8 Types is not supported"):
        openreg.ones(2, dtype=d) + openreg.ones(2)


def test_promote_types_matches_pytorch():
    torch = _torch()
    names = NARROW + ["float16", "float32", "float64", "int8", "uint8", "int64", "bool", "complex64"]
    for a in names:
        for b in names:
            try:
                expected = str(torch.promote_types(getattr(torch, a), getattr(torch, b))).split(".")[-1]
            except RuntimeError as exc:
                with pytest.raises(RuntimeError, match=str(exc)):
                    openreg.promote_types(getattr(openreg, a), getattr(openreg, b))
                continue
            assert openreg.promote_types(getattr(openreg, a), getattr(openreg, b)).name == expected


def _float8_cases(m, x, i):
    """Operators on a float8 tensor ``x`` of module ``m`` (openreg or torch)."""
    y = x.clone()
    return {
        "mul": lambda: x * x, "abs": lambda: x.abs(), "eq": lambda: x == y, "ne_scalar": lambda: x != 1,
        "mm": lambda: x[:2].reshape(1, 2) @ x[:2].reshape(2, 1), "cat": lambda: m.cat([x, x]),
        "stack": lambda: m.stack([x, x]), "where": lambda: m.where(x == y, x, y), "clone": lambda: x.clone(),
        "index_select": lambda: x.index_select(0, i), "masked_select": lambda: x[x == y],
        "fill": lambda: x.clone().fill_(2), "full": lambda: m.full((2,), 3.0, dtype=x.dtype),
        "zeros_like": lambda: m.zeros_like(x), "contiguous": lambda: x.reshape(5, 1).t().contiguous(),
        "to_float8": lambda: x.to(m.float8_e5m2), "copy_from_float": lambda: x.clone().copy_(m.ones(5, device=x.device)),
        "any": lambda: x.any(),
        # refused by PyTorch's CPU kernels
        "add": lambda: x + x, "sub": lambda: x - x, "mul_scalar": lambda: x * 2, "neg": lambda: -x,
        "lt": lambda: x < y, "sum": lambda: x.sum(), "mean": lambda: x.mean(), "max": lambda: x.max(),
        "argmax": lambda: x.argmax(), "div": lambda: x / x, "exp": lambda: x.exp(), "relu": lambda: x.relu(),
        "clamp": lambda: x.clamp(0, 1), "sort": lambda: x.sort(), "topk": lambda: x.topk(2),
        "flip": lambda: x.flip(0), "cumsum": lambda: x.cumsum(0), "bmm": lambda: m.bmm(x.reshape(1, 1, 5),
                                                                                     x.reshape(1, 5, 1)),
        "nonzero": lambda: x.nonzero(), "arange": lambda: m.arange(3, dtype=x.dtype),
        "rand": lambda: m.rand(2, dtype=x.dtype), "randn": lambda: m.randn(2, dtype=x.dtype),
        "nan_to_num": lambda: x.nan_to_num(), "var": lambda: x.var(), "softmax": lambda: x.softmax(0),
        "add_float32": lambda: x + m.ones(5, device=x.device),
        "gather": lambda: x.gather(0, i), "masked_fill": lambda: x.masked_fill(x == y, 1.0),
    }


REFUSED = {"add": "add_stub", "sub": "add_stub", "mul_scalar": "mul_cpu_reduced_float", "neg": "neg_cpu",
           "lt": "lt_cpu", "sum": "sum_cpu", "mean": "sum_cpu", "max": "max_all", "argmax": "argmax_cpu",
           "div": "div_cpu", "exp": "exp_vml_cpu", "relu": "clamp_min_scalar_cpu", "clamp": "clamp_scalar_cpu",
           "sort": "sorting_kernel_method_name", "topk": "topk_cpu", "flip": "flip_cpu",
           "cumsum": "cumsum_out_cpu", "bmm": "bmm", "nonzero": "nonzero_count_cpu", "arange": "arange_cpu",
           "rand": "check_uniform_bounds", "randn": "normal_kernel_cpu", "nan_to_num": "nan_to_num",
           "softmax": "softmax", "gather": "gather_expanded_index", "masked_fill": "masked_fill"}


@pytest.mark.parametrize("device", DEVICES)
def test_float8_runs_what_pytorch_runs_and_refuses_the_rest(device):
    x = openreg.tensor([1.0, 2.5, -3.0, 0.0, 0.5], device=device).to(openreg.float8_e4m3fn)
    i = openreg.tensor([0, 1], device=device)
    for name, fn in _float8_cases(openreg, x, i).items():
        if name in REFUSED:
            with pytest.raises(NotImplementedError, match="not implemented for 'Float8_e4m3fn'"):
                fn()
        elif name == "var":
            with pytest.raises(RuntimeError, match="std_var_all: Unsupported dtype Float8_e4m3fn"):
                fn()
        elif name == "add_float32":
            with pytest.raises(RuntimeError, match="Promotion for Float8 Types is not supported"):
                fn()
        else:
            fn()
    assert (x * x).float().tolist() == [1.0, 6.0, 9.0, 0.0, 0.25]   # 6.25 rounds to 6 in e4m3
    assert (x[:2].reshape(1, 2) @ x[:2].reshape(2, 1)).float().item() == 7.0
    assert x.abs().dtype is openreg.float8_e4m3fn and (x == x.abs()).dtype is openreg.bool


def test_float8_operators_match_pytorch():
    torch = _torch()
    o = openreg.tensor([1.0, 2.5, -3.0, 0.0, 0.5]).to(openreg.float8_e4m3fn)
    t = torch.tensor([1.0, 2.5, -3.0, 0.0, 0.5]).to(torch.float8_e4m3fn)
    ocases, tcases = _float8_cases(openreg, o, openreg.tensor([0, 1])), _float8_cases(torch, t, torch.tensor([0, 1]))
    for name, tfn in tcases.items():
        try:
            expected = tfn()
        except Exception as exc:   # noqa: BLE001 - the error type and its key words are what we compare
            # the key words: "not implemented for 'Float8_e4m3fn'" (kernel names are PyTorch's internals)
            words = "not implemented for 'Float8_e4m3fn'" if "not implemented" in str(exc) else str(exc)[:40]
            with pytest.raises(type(exc), match=words):
                ocases[name]()
            continue
        got = ocases[name]()
        if isinstance(expected, torch.Tensor):
            assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], name
            if name not in ("full", "zeros_like") and expected.dtype != torch.bool:
                np.testing.assert_array_equal(got.float().numpy(), expected.float().numpy(), err_msg=name)


@needs_device
def test_refused_float8_op_leaves_no_device_memory_behind():
    x = openreg.ones(1024, dtype=openreg.float8_e5m2, device=LAST_DEVICE)
    index = int(LAST_DEVICE.split(":")[1])
    before = openreg.privateuseone.memory_allocated(index)
    for fn in (lambda: x + x, lambda: x.sum(), lambda: x.sort(), lambda: x * 2):
        with pytest.raises(NotImplementedError):
            fn()
    assert openreg.privateuseone.memory_allocated(index) == before


def test_narrow_floats_print_their_values_and_dtype():
    x = openreg.tensor([1.0, -2.0, 0.5]).to(openreg.float8_e5m2)
    assert repr(x) == repr(x.float())[:-1] + ", dtype=openreg.float8_e5m2)"
    assert repr(openreg.tensor([1.5], dtype=openreg.bfloat16)) == "tensor([1.5000], dtype=openreg.bfloat16)"


# -- files -----------------------------------------------------------------------------------------------------
def _narrow_tensors():
    values = openreg.tensor([1.0, -2.5, 448.0, 0.015625, 3.3])
    return {name: values.to(getattr(openreg, name)) for name in NARROW}


def test_save_load_keeps_every_bit():
    tensors = _narrow_tensors()
    buf = io.BytesIO()
    openreg.save(tensors, buf)
    buf.seek(0)
    back = openreg.load(buf)
    for name, t in tensors.items():
        assert back[name].dtype is t.dtype
        np.testing.assert_array_equal(_bits(back[name].numpy()), _bits(t.numpy()))


def test_safetensors_keeps_every_bit(tmp_path):
    pytest.importorskip("safetensors")
    from openreg.utils import safetensors as st
    tensors = _narrow_tensors()
    st.save_file(tensors, os.fspath(tmp_path / "n.safetensors"))
    back = st.load_file(os.fspath(tmp_path / "n.safetensors"))
    for name, t in tensors.items():
        assert back[name].dtype is t.dtype
        np.testing.assert_array_equal(_bits(back[name].numpy()), _bits(t.numpy()))


def test_files_interchange_with_pytorch(tmp_path):
    torch = _torch()
    tensors = _narrow_tensors()
    openreg.save(tensors, tmp_path / "o.pt")
    loaded = torch.load(tmp_path / "o.pt", weights_only=True)
    torch.save(loaded, tmp_path / "t.pt")
    back = openreg.load(tmp_path / "t.pt")
    for name, t in tensors.items():
        assert loaded[name].dtype == getattr(torch, name)
        np.testing.assert_array_equal(loaded[name].view(torch.uint8).numpy(), t.numpy().view(np.uint8))
        np.testing.assert_array_equal(_bits(back[name].numpy()), _bits(t.numpy()))
    stt = pytest.importorskip("safetensors.torch")
    from openreg.utils import safetensors as st
    st.save_file(tensors, os.fspath(tmp_path / "o.safetensors"))
    theirs = stt.load_file(os.fspath(tmp_path / "o.safetensors"))
    stt.save_file(theirs, os.fspath(tmp_path / "t.safetensors"))
    ours = st.load_file(os.fspath(tmp_path / "t.safetensors"))
    for name, t in tensors.items():
        assert theirs[name].dtype == getattr(torch, name)
        np.testing.assert_array_equal(theirs[name].view(torch.uint8).numpy(), t.numpy().view(np.uint8))
        np.testing.assert_array_equal(_bits(ours[name].numpy()), _bits(t.numpy()))


@pytest.mark.parametrize("name", FLOAT8)
def test_device_rounding_code_matches_ml_dtypes_bit_for_bit(name):
    """The array-module rounding the cuda driver uses for float8 (CuPy has no float8), run on NumPy: every float16
    value, random magnitudes over 28 decades and the edge cases give ml_dtypes' bits (NaN sign included)."""
    from openreg._array_bridge import _float32_to_float8_bits
    rng = np.random.default_rng(1)
    v = np.concatenate([rng.standard_normal(100000) * 10.0 ** rng.integers(-14, 14, 100000),
                        np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float64),
                        [np.nan, -np.nan, 3.4e38, 1e-45, -1e-45], _edge_values()]).astype(np.float32)
    d = getattr(openreg, name)
    with np.errstate(all="ignore"):
        expected = (np.clip(v, -448, 448) if name == "float8_e4m3fn" else v).astype(d.numpy).view(np.uint8)
        got = _float32_to_float8_bits(np, v, d)
    np.testing.assert_array_equal(got, expected)
