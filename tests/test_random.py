"""Random numbers: Philox4x32-10 (known answers, raw CUDA kernel through the host launcher == NumPy), the
generator API and registry, seeding functions, the random ops on CPU and the device, their distributions
(KS and chi-square statistics computed here with NumPy) and PyTorch's errors."""
from __future__ import annotations

import math
import os

import numpy as np
import pytest
from device_params import LAST_DEVICE, needs_two_devices
from hypothesis import given, settings
from hypothesis import strategies as st
from openreg.backends.cpu.kernels_random import numpy_values
from openreg.backends.privateuseone import kernels

import openreg
from openreg import philox
from openreg import random as orandom
from openreg.generator import DEFAULT_SEED

DEV = "privateuseone"
DEVICES = ["cpu", f"{DEV}:0"]
LAST = openreg.device(LAST_DEVICE).index

# Random123's kat_vectors for philox4x32_10 (counter, key, expected output).
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def host(t) -> np.ndarray:
    return np.asarray(t.cpu().tolist())


# -- statistics (no SciPy) -----------------------------------------------------------------------------------
def ks_statistic(samples: np.ndarray, cdf) -> float:
    x = np.sort(np.asarray(samples, dtype=np.float64))
    n = x.size
    f = cdf(x)
    return float(max((np.arange(1, n + 1) / n - f).max(), (f - np.arange(n) / n).max()))


def ks_critical(n: int) -> float:
    return 1.95 / math.sqrt(n)  # alpha = 0.001


def chi_square(observed: np.ndarray, expected: np.ndarray) -> float:
    return float(((observed - expected) ** 2 / expected).sum())


def chi_square_critical(dof: int, z: float = 3.09) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile at alpha = 0.001."""
    a = 2.0 / (9.0 * dof)
    return dof * (1.0 - a + z * math.sqrt(a)) ** 3


def normal_cdf(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf)
    return 0.5 * (1.0 + erf(x / math.sqrt(2.0)))


# -- Philox: NumPy reference ------------------------------------------------------------------------------------
@pytest.mark.parametrize("ctr,key,expected", KAT)
def test_numpy_philox_known_answers(ctr, key, expected):
    assert tuple(int(w) for w in philox.philox4x32_10(ctr, key)) == expected


def test_numpy_stream_is_counter_based():
    words = philox.uint32_stream(123, 0, 40)
    assert words[12:20].tolist() == philox.uint32_stream(123, 12, 8).tolist()
    assert words[5:9].tolist() == philox.uint32_stream(123, 5, 4).tolist()
    block3 = philox.philox4x32_10([3, 0, 0, 0], list(philox.split_seed(123)))
    assert words[12:16].tolist() == block3.tolist()
    # 64-bit seeds use both key words
    assert philox.uint32_stream(1 << 32, 0, 4).tolist() != philox.uint32_stream(0, 0, 4).tolist()


@pytest.mark.parametrize("seed, offset, n", [(123, 0, 9), (2**64 - 1, 2**34 - 3, 777), (5, 3, 4 * (1 << 14) + 10),
                                             (7, 2**36 + 1, 70001)])
def test_stream_equals_the_block_function_across_its_passes(seed, offset, n):
    # uint32_stream computes blocks in passes of one-dimensional rounds; word j must be word j % 4 of
    # philox4x32_10(counter=j // 4) for every j, also across a pass boundary and with a counter above 2**32
    words = philox.uint32_stream(seed, offset, n)
    first = offset // 4
    blocks = np.arange(first, (offset + n - 1) // 4 + 1, dtype=np.uint64)
    counter = np.stack([blocks & np.uint64(0xFFFFFFFF), blocks >> np.uint64(32),
                        np.zeros_like(blocks), np.zeros_like(blocks)])
    want = philox.philox4x32_10(counter, np.array(philox.split_seed(seed), np.uint64).reshape(2, 1))
    np.testing.assert_array_equal(words, want.T.reshape(-1)[offset - 4 * first:][:n])


def test_numpy_transforms_are_exact():
    w = philox.uint32_stream(9, 0, 8)
    assert philox.uniform_f32(9, 0, 8).tolist() == [float(x >> 8) * 2.0 ** -24 for x in w.tolist()]
    hi, lo = w[0::2].astype(np.uint64), w[1::2].astype(np.uint64)
    assert philox.uniform_f64(9, 0, 4).tolist() == [float(int(((h << np.uint64(32)) | lo_) >> np.uint64(11)))
                                                    * 2.0 ** -53 for h, lo_ in zip(hi, lo)]
    z = philox.normal_f64(9, 0, 2)
    u1, u2 = (float(w[0]) + 1) * 2.0 ** -32, float(w[1]) * 2.0 ** -32
    r = math.sqrt(-2 * math.log(u1))
    assert z.tolist() == pytest.approx([r * math.cos(2 * math.pi * u2), r * math.sin(2 * math.pi * u2)], rel=1e-14)


# -- Philox: the raw CUDA kernel through the host launcher --------------------------------------------------------
@pytest.fixture(scope="module")
def launcher():
    try:
        from openreg.backends.privateuseone import launchers as hl
    except ImportError as exc:  # the Kernels work is not in this checkout
        pytest.skip(f"host launcher not available: {exc}")
    try:
        hl.find_compiler()
    except RuntimeError as exc:
        pytest.skip(f"no C++ compiler for the host launcher: {exc}")
    return hl.HostLauncher(workers=2)


def test_kernel_known_answers(launcher):
    inp = np.array([list(c) + list(k) for c, k, _ in KAT], dtype=np.uint32)
    out = np.zeros((len(KAT), 4), dtype=np.uint32)
    launcher.launch(kernels.philox_block_launch(kernels.philox_operand(launcher, out, writable=True),
                                                 kernels.philox_operand(launcher, inp), len(KAT)))
    assert [tuple(int(w) for w in row) for row in out] == [e for _, _, e in KAT]
    assert launcher.launch_counts["philox_block"] == 1


@pytest.mark.parametrize("kind", ["u32", "f32", "f64"])
@pytest.mark.parametrize("seed,offset,n", [(0, 0, 1), (42, 8, 7), (2**64 - 1, 2**40, 1003), (7, 4, 70000)])
def test_kernel_streams_bit_identical_to_numpy(launcher, kind, seed, offset, n):
    got = kernels.philox_values(launcher, kind, seed, offset, n)
    ref = numpy_values(kind, seed, offset, n)
    assert got.dtype == ref.dtype
    assert np.array_equal(got.view(np.uint8), ref.view(np.uint8))


@pytest.mark.parametrize("kind", ["normal_f32", "normal_f64"])
def test_kernel_normals_match_numpy(launcher, kind):
    got = kernels.philox_values(launcher, kind, 5, 12, 4099)
    ref = numpy_values(kind, 5, 12, 4099)
    # same words and formula; only libm's log/cos/sin may differ from NumPy's in the last bit
    np.testing.assert_allclose(got, ref, rtol=4e-7 if kind == "normal_f32" else 1e-13, atol=1e-6)


def test_kernel_rejects_unaligned_offset(launcher):
    from openreg.backends.privateuseone.launchers import Operand
    with pytest.raises(ValueError, match="multiple of 4"):
        kernels.philox_launch("u32", Operand(4096, np.dtype("int32"), (8,), (1,)), 0, 2, 8)


def test_device_ops_through_emulated_kernels_equal_numpy_path(monkeypatch, launcher):
    if openreg.privateuseone.driver() != "emulated":
        pytest.skip("compares the emulated driver's two paths")
    g = openreg.Generator(DEV)
    ref = [host(openreg.rand(37, generator=g.manual_seed(3), device=DEV)),
           host(openreg.randn(37, generator=g, device=DEV, dtype=openreg.float64)),
           host(openreg.randint(-5, 1000, (37,), generator=g, device=DEV))]
    monkeypatch.setenv("OPENREG_EMULATE_KERNELS", "1")
    assert kernels.enabled()
    before = kernels.launcher().launch_counts["philox_uniform_f32"]
    got = [host(openreg.rand(37, generator=g.manual_seed(3), device=DEV)),
           host(openreg.randn(37, generator=g, device=DEV, dtype=openreg.float64)),
           host(openreg.randint(-5, 1000, (37,), generator=g, device=DEV))]
    assert kernels.launcher().launch_counts["philox_uniform_f32"] == before + 1
    assert np.array_equal(got[0], ref[0]) and np.array_equal(got[2], ref[2])
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-13)


# -- Generator --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", DEVICES)
def test_generator_basics(dev):
    g = openreg.Generator(dev)
    assert g.device == openreg.device(dev)
    assert g.initial_seed() == DEFAULT_SEED
    assert g.manual_seed(11) is g and g.initial_seed() == 11
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2**64


@needs_two_devices
def test_generator_bare_device_name_means_current_device():
    with openreg.privateuseone.device(1):
        assert openreg.Generator(DEV).device == openreg.device(DEV, 1)


@pytest.mark.parametrize("seed,stored", [(-1, 2**64 - 1), (-(2**63), 2**63), (2**64 - 1, 2**64 - 1), (0, 0)])
def test_seed_rules(seed, stored):
    assert openreg.Generator().manual_seed(seed).initial_seed() == stored


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1])
def test_seed_overflow(seed):
    with pytest.raises(ValueError, match="Overflow when unpacking long"):
        openreg.Generator().manual_seed(seed)
    with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
        openreg.manual_seed(seed)


def test_seed_must_be_an_integer():
    with pytest.raises(RuntimeError, match="manual_seed expected a long"):
        openreg.Generator().manual_seed(1.5)


@pytest.mark.parametrize("dev", DEVICES)
def test_state_roundtrip(dev):
    g = openreg.Generator(dev).manual_seed(5)
    openreg.rand(3, generator=g, device=dev)
    state = g.get_state()
    assert state.dtype == openreg.uint8 and state.device.type == "cpu" and state.numel() == 16
    a = host(openreg.rand(9, generator=g, device=dev))
    g.manual_seed(99)
    assert g.set_state(state) is g
    assert np.array_equal(host(openreg.rand(9, generator=g, device=dev)), a)
    assert g.initial_seed() == 5


def test_state_errors():
    g = openreg.Generator()
    with pytest.raises(RuntimeError, match="wrong size"):
        g.set_state(openreg.zeros(8, dtype=openreg.uint8))
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        g.set_state(openreg.zeros(16, dtype=openreg.int64))
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        g.set_state(openreg.zeros(16, dtype=openreg.uint8, device=DEV))
    with pytest.raises(TypeError, match="expected a torch.ByteTensor, but got list"):
        g.set_state([0] * 16)


def test_offsets_on_the_device_generator():
    g = openreg.Generator(DEV).manual_seed(1)
    assert g.get_offset() == 0
    openreg.rand(6, generator=g, device=DEV)              # 6 words -> 8 (whole blocks)
    assert g.get_offset() == 8
    openreg.rand(3, generator=g, device=DEV, dtype=openreg.float64)  # 2 words per value -> 8
    assert g.get_offset() == 16
    openreg.randn(5, generator=g, device=DEV)             # 3 pairs -> 8
    assert g.get_offset() == 24
    assert g.set_offset(4) is g and g.get_offset() == 4
    with pytest.raises(RuntimeError, match="offset must be a multiple of 4"):
        g.set_offset(6)
    with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
        openreg.Generator().get_offset()
    with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
        openreg.Generator().set_offset(4)


def test_results_do_not_depend_on_call_splitting():
    g = openreg.Generator(DEV).manual_seed(8)
    whole = host(openreg.rand(16, generator=g, device=DEV))
    g.manual_seed(8)
    parts = [host(openreg.rand(4, generator=g, device=DEV)), host(openreg.rand(12, generator=g, device=DEV))]
    assert np.array_equal(np.concatenate(parts), whole)
    # setting the offset of another generator (another "stream") reproduces the second part
    other = openreg.Generator(LAST_DEVICE).manual_seed(8).set_offset(4)
    assert np.array_equal(host(openreg.rand(12, generator=other, device=LAST_DEVICE)), whole[4:])


def test_cpu_and_device_share_the_philox_stream():
    a = host(openreg.rand(33, generator=openreg.Generator().manual_seed(4)))
    b = host(openreg.rand(33, generator=openreg.Generator(DEV).manual_seed(4), device=DEV))
    assert np.array_equal(a, b)
    assert np.array_equal(a, philox.uniform_f32(4, 0, 33).astype(np.float64))


# -- registry and seeding functions --------------------------------------------------------------------------------
def test_registry_errors_on_a_fresh_registry():
    with orandom._fresh_privateuse1_registry():
        with pytest.raises(RuntimeError, match="Please register a generator to the PrivateUse1 dispatch key"):
            openreg.Generator(DEV)
        made = []

        def factory(index):
            made.append(index)
            from openreg.backends.privateuseone.generator import DeviceGeneratorImpl
            return DeviceGeneratorImpl(openreg.device(DEV, index))
        orandom.register_privateuse1_generator(factory)
        assert openreg.Generator(f"{DEV}:1").device.index == 1 and made == [1]
        with pytest.raises(RuntimeError, match="Only can register a generator to the PrivateUse1 dispatch key once!"):
            orandom.register_privateuse1_generator(factory)
    # the bundled registration is back
    with pytest.raises(RuntimeError, match="once"):
        orandom.register_privateuse1_generator(lambda i: None)
    assert openreg.Generator(DEV).device.type == DEV


def test_meta_generator_is_not_supported():
    with pytest.raises(RuntimeError, match="not supported for torch.Generator"):
        openreg.Generator("meta")


def test_default_generators_one_per_device():
    pu = openreg.privateuseone
    gens = pu.default_generators
    assert isinstance(gens, tuple) and len(gens) == pu.device_count()
    assert [g.device.index for g in gens] == list(range(pu.device_count()))
    assert orandom.default_generator(LAST_DEVICE) is gens[LAST]
    assert orandom.default_generator("cpu") is openreg.default_generator
    with openreg.privateuseone.device(LAST):
        assert orandom.default_generator(DEV) is gens[LAST]


@needs_two_devices
def test_device_module_seeding():
    pu = openreg.privateuseone
    pu.manual_seed_all(21)
    assert [g.initial_seed() for g in pu.default_generators] == [21] * pu.device_count()
    pu.manual_seed(22)
    assert pu.initial_seed() == 22 and pu.default_generators[1].initial_seed() == 21
    a = host(openreg.rand(5, device=f"{DEV}:1"))
    state = pu.get_rng_state(f"{DEV}:1")
    b = host(openreg.rand(5, device=f"{DEV}:1"))
    pu.set_rng_state(state, 1)
    assert np.array_equal(host(openreg.rand(5, device=f"{DEV}:1")), b) and not np.array_equal(a, b)
    states = pu.get_rng_state_all()
    c = host(openreg.rand(5, device=f"{DEV}:0"))
    pu.set_rng_state_all(states)
    assert np.array_equal(host(openreg.rand(5, device=f"{DEV}:0")), c)
    pu.seed()
    pu.seed_all()


def test_global_manual_seed_seeds_everything():
    openreg.manual_seed(123)
    cpu = host(openreg.rand(4))
    dev1 = host(openreg.rand(4, device=LAST_DEVICE))
    assert openreg.initial_seed() == 123
    assert openreg.privateuseone.default_generators[0].initial_seed() == 123
    openreg.manual_seed(123)
    assert np.array_equal(host(openreg.rand(4)), cpu)
    assert np.array_equal(host(openreg.rand(4, device=LAST_DEVICE)), dev1)
    assert openreg.seed() == openreg.initial_seed()


def test_global_rng_state():
    openreg.manual_seed(0)
    state = openreg.get_rng_state()
    a = host(openreg.randn(6))
    openreg.set_rng_state(state)
    assert np.array_equal(host(openreg.randn(6)), a)


@pytest.mark.parametrize("device_type", [DEV, "cpu"])
def test_fork_rng_restores(device_type):
    openreg.manual_seed(7)
    with orandom.fork_rng(device_type=device_type):
        openreg.rand(10)
        openreg.rand(10, device=LAST_DEVICE)
    cpu_next, dev_next = host(openreg.rand(3)), host(openreg.rand(3, device=LAST_DEVICE))
    openreg.manual_seed(7)
    assert np.array_equal(host(openreg.rand(3)), cpu_next)
    dev_fresh = host(openreg.rand(3, device=LAST_DEVICE))
    assert np.array_equal(dev_fresh, dev_next) == (device_type == DEV)


@needs_two_devices
def test_fork_rng_disabled_and_devices_subset():
    openreg.manual_seed(7)
    with orandom.fork_rng(enabled=False):
        openreg.rand(4)
    assert openreg.default_generator.get_state().tolist() != openreg.Generator().manual_seed(7).get_state().tolist()
    openreg.manual_seed(7)
    with orandom.fork_rng(devices=[1]):
        openreg.rand(4, device=f"{DEV}:0")
        openreg.rand(4, device=f"{DEV}:1")
    assert openreg.privateuseone.default_generators[1].get_offset() == 0
    assert openreg.privateuseone.default_generators[0].get_offset() == 4


# -- random ops: reproducibility, dtypes, shapes ----------------------------------------------------------------------
OPS = {
    "rand": lambda g, d: openreg.rand(3, 5, generator=g, device=d),
    "randn": lambda g, d: openreg.randn(7, generator=g, device=d, dtype=openreg.float64),
    "randint": lambda g, d: openreg.randint(-3, 9, (4, 2), generator=g, device=d),
    "randperm": lambda g, d: openreg.randperm(11, generator=g, device=d),
    "uniform_": lambda g, d: openreg.empty(6, device=d).uniform_(2, 4, generator=g),
    "normal_": lambda g, d: openreg.empty(6, device=d).normal_(1, 2, generator=g),
    "random_": lambda g, d: openreg.empty(6, device=d, dtype=openreg.int16).random_(generator=g),
    "bernoulli_": lambda g, d: openreg.empty(9, device=d).bernoulli_(0.3, generator=g),
    "bernoulli": lambda g, d: openreg.bernoulli(openreg.full((9,), 0.5, device=d), generator=g),
    "multinomial": lambda g, d: openreg.multinomial(openreg.tensor([[1.0, 2, 3], [0, 1, 1]], device=d), 5, True,
                                                    generator=g),
    "multinomial_norep": lambda g, d: openreg.multinomial(openreg.tensor([1.0, 2, 3, 4], device=d), 3,
                                                          generator=g),
    "normal": lambda g, d: openreg.normal(openreg.zeros(4, device=d), openreg.ones(4, device=d), generator=g),
}


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("dev", DEVICES)
def test_same_seed_same_values(name, dev):
    g = openreg.Generator(dev)
    a = host(OPS[name](g.manual_seed(17), dev))
    b = host(OPS[name](g.manual_seed(17), dev))
    c = host(OPS[name](g, dev))
    assert np.array_equal(a, b)
    if a.size > 4 and name not in ("multinomial_norep",):
        assert not np.array_equal(a, c)
    # CPU and device draw the same Philox stream
    other = "cpu" if dev != "cpu" else f"{DEV}:0"
    assert np.array_equal(host(OPS[name](openreg.Generator(other).manual_seed(17), other)), a)


@pytest.mark.parametrize("dtype", [openreg.float16, openreg.bfloat16, openreg.float32, openreg.float64])
@pytest.mark.parametrize("dev", DEVICES)
def test_rand_dtypes_in_range(dtype, dev):
    x = openreg.rand(4000, dtype=dtype, device=dev)
    v = host(x)
    assert x.dtype == dtype and x.device == openreg.device(dev)
    assert v.min() >= 0 and v.max() < 1
    y = openreg.empty(2000, dtype=dtype, device=dev).uniform_(-1, 1)
    assert host(y).min() >= -1 and host(y).max() < 1


@pytest.mark.parametrize("dtype,lo,hi", [(openreg.int8, -128, 128), (openreg.uint8, 0, 256),
                                         (openreg.bool, 0, 2), (openreg.int64, -2**62, 2**62),
                                         (openreg.float32, -10, 10), (openreg.int32, 5, 6)])
@pytest.mark.parametrize("dev", DEVICES)
def test_randint_dtypes_and_ranges(dtype, lo, hi, dev):
    v = host(openreg.randint(lo, hi, (3000,), dtype=dtype, device=dev)).astype(np.float64)
    assert v.min() >= lo and v.max() < hi
    if hi - lo <= 256:
        assert len(np.unique(v)) == hi - lo  # every value shows up in 3000 draws


def test_randint_overloads():
    g = openreg.Generator()
    a = host(openreg.ops.aten.randint.default(5, [4]))
    assert a.min() >= 0 and a.max() < 5
    out = openreg.empty(0, dtype=openreg.int64)
    openreg.ops.aten.randint.low_generator_out(1, 3, [6], generator=g, out=out)
    assert out.shape == (6,) and set(host(out).tolist()) <= {1, 2}
    openreg.ops.aten.randint.generator_out(3, [2, 2], generator=g, out=out.resize_(0))
    assert out.shape == (2, 2)
    assert openreg.randint(10, (3,)).shape == (3,)
    like = openreg.randint_like(openreg.zeros(5, dtype=openreg.int32), 3, 7)
    assert like.dtype == openreg.int32 and set(host(like).tolist()) <= {3, 4, 5, 6}
    assert openreg.ops.aten.randint.low(0, 2, [3], device="meta").device.type == "meta"


def test_random_variants():
    t = openreg.empty(500, dtype=openreg.uint8).random_()
    assert host(t).max() <= 255 and len(np.unique(host(t))) > 200
    t = openreg.empty(500).random_(10)
    assert set(host(t).tolist()) <= set(range(10))
    t = openreg.empty(500, dtype=openreg.int64).random_(-4, 4)
    assert set(host(t).tolist()) == set(range(-4, 4))
    f = openreg.empty(1000, dtype=openreg.float16).random_()
    assert host(f).max() <= 2**11 and np.all(host(f) == np.round(host(f)))


def test_like_factories_and_meta():
    x = openreg.zeros(2, 3, dtype=openreg.float64, device=DEV)
    for fn in (openreg.rand_like, openreg.randn_like):
        y = fn(x)
        assert y.shape == (2, 3) and y.dtype == openreg.float64 and y.device == x.device
    m = openreg.rand(4, 5, device="meta")
    assert m.shape == (4, 5) and m.is_meta
    assert openreg.randn(3, device="meta").shape == (3,)
    assert openreg.randperm(7, device="meta").shape == (7,)


def test_out_variants_and_requires_grad():
    out = openreg.empty(0)
    openreg.rand(2, 3, out=out)
    assert out.shape == (2, 3)
    openreg.ops.aten.randn.out([4], out=out.resize_(0))
    assert out.shape == (4,)
    assert openreg.rand(2, requires_grad=True).requires_grad


def test_strided_in_place_fill():
    base = openreg.zeros(4, 6, device=DEV)
    view = base.t()[::2]
    view.uniform_(5, 6)
    b = host(base)
    filled = b.T[::2]
    assert (filled >= 5).all() and (filled < 6).all()
    assert (b.T[1::2] == 0).all()


# -- distributions ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", DEVICES)
def test_uniform_ks(dev):
    g = openreg.Generator(dev).manual_seed(2024)
    for dtype in (openreg.float32, openreg.float64):
        v = host(openreg.rand(20000, generator=g, device=dev, dtype=dtype))
        assert ks_statistic(v, lambda x: np.clip(x, 0, 1)) < ks_critical(v.size)
    v = host(openreg.empty(20000, device=dev).uniform_(-3, 5, generator=g))
    assert ks_statistic(v, lambda x: np.clip((x + 3) / 8, 0, 1)) < ks_critical(v.size)


@pytest.mark.parametrize("dev", DEVICES)
def test_normal_ks(dev):
    g = openreg.Generator(dev).manual_seed(2025)
    for dtype in (openreg.float32, openreg.float64):
        v = host(openreg.randn(20000, generator=g, device=dev, dtype=dtype))
        assert ks_statistic(v, normal_cdf) < ks_critical(v.size)
    v = host(openreg.empty(20000, device=dev).normal_(3, 0.5, generator=g))
    assert ks_statistic(v, lambda x: normal_cdf((x - 3) / 0.5)) < ks_critical(v.size)


def test_ks_detects_a_wrong_distribution():
    v = host(openreg.randn(20000, generator=openreg.Generator().manual_seed(1)))
    assert ks_statistic(v * 1.1, normal_cdf) > ks_critical(v.size)


@pytest.mark.parametrize("dev", DEVICES)
def test_randint_chi_square(dev):
    g = openreg.Generator(dev).manual_seed(77)
    for lo, hi in ((0, 7), (-50, 50), (0, 2**40 + 3)):
        v = host(openreg.randint(lo, hi, (30000,), generator=g, device=dev)).astype(np.float64)
        if hi - lo <= 100:
            bins = hi - lo
            observed = np.bincount((v - lo).astype(np.int64), minlength=bins)
        else:
            bins = 10
            observed = np.histogram((v - lo) / (hi - lo), bins=bins, range=(0, 1))[0]
        expected = np.full(bins, v.size / bins)
        assert chi_square(observed, expected) < chi_square_critical(bins - 1)


@pytest.mark.parametrize("dev", DEVICES + ["meta"])
def test_bernoulli_tensor_p_must_expand_to_self(dev):
    x = openreg.zeros(3, 2, device=dev)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(2\) must match the existing size "
                                           r"\(5\) at non-singleton dimension 1.  Target sizes: \[3, 2\]"):
        x.bernoulli_(openreg.rand(5, device=dev))
    with pytest.raises(RuntimeError, match="the number of sizes provided"):
        openreg.ops.aten.bernoulli.Tensor(x, openreg.rand(1, 3, 2, device=dev))
    assert x._version == 0
    assert x.bernoulli_(openreg.ones(2, device=dev)).shape == (3, 2)


@pytest.mark.parametrize("dev", DEVICES)
def test_bernoulli_frequencies(dev):
    g = openreg.Generator(dev).manual_seed(5)
    v = host(openreg.empty(40000, device=dev).bernoulli_(0.3, generator=g))
    ones = v.sum()
    assert chi_square(np.array([ones, v.size - ones]), np.array([0.3, 0.7]) * v.size) < chi_square_critical(1)
    p = openreg.tensor([0.0, 0.25, 1.0, 0.5], device=dev).expand(10000, 4)
    draws = host(openreg.bernoulli(p, generator=g))
    assert (draws[:, 0] == 0).all() and (draws[:, 2] == 1).all()
    for col, prob in ((1, 0.25), (3, 0.5)):
        k = draws[:, col].sum()
        assert chi_square(np.array([k, 10000 - k]), np.array([prob, 1 - prob]) * 10000) < chi_square_critical(1)
    assert set(host(openreg.bernoulli(openreg.zeros(5, device=dev), 1.0)).tolist()) == {1.0}


@pytest.mark.parametrize("dev", DEVICES)
def test_multinomial_chi_square(dev):
    g = openreg.Generator(dev).manual_seed(9)
    probs = np.array([1.0, 0.0, 3.0, 6.0])
    t = openreg.tensor(probs.tolist(), device=dev)
    v = host(openreg.multinomial(t, 20000, True, generator=g))
    observed = np.bincount(v, minlength=4)
    assert observed[1] == 0
    keep = probs > 0
    expected = probs[keep] / probs.sum() * v.size
    assert chi_square(observed[keep], expected) < chi_square_critical(int(keep.sum()) - 1)
    # without replacement: distinct indices; first pick follows p
    rows = host(openreg.multinomial(t.expand(6000, 4), 3, generator=g))
    assert rows.shape == (6000, 3) and all(len(set(r)) == 3 for r in rows[:50])
    assert not (rows == 1).any()
    first = np.bincount(rows[:, 0], minlength=4)
    assert chi_square(first[keep], probs[keep] / probs.sum() * 6000) < chi_square_critical(2)


@pytest.mark.parametrize("dev", DEVICES)
def test_randperm_is_uniform(dev):
    g = openreg.Generator(dev).manual_seed(3)
    n, trials = 4, 600
    firsts = np.zeros(n)
    for _ in range(trials):
        p = host(openreg.randperm(n, generator=g, device=dev))
        assert sorted(p.tolist()) == list(range(n))
        firsts[p[0]] += 1
    big = host(openreg.randperm(5000, generator=g, device=dev))
    assert sorted(big.tolist()) == list(range(5000))
    # positions of the values are uncorrelated with the values
    assert abs(np.corrcoef(big, np.arange(5000))[0, 1]) < 0.06
    assert chi_square(firsts, np.full(n, trials / n)) < chi_square_critical(n - 1)
    assert openreg.randperm(0).shape == (0,)
    assert openreg.randperm(5, dtype=openreg.int32).dtype == openreg.int32


# -- dropout -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", DEVICES)
def test_native_dropout(dev):
    x = openreg.ones(20000, device=dev)
    out, mask = openreg.ops.aten.native_dropout(x, 0.2, True)
    o, m = host(out), host(mask)
    assert mask.dtype == openreg.bool
    np.testing.assert_allclose(o, m / 0.8, rtol=1e-6)
    k = m.sum()
    assert chi_square(np.array([k, m.size - k]), np.array([0.8, 0.2]) * m.size) < chi_square_critical(1)
    out, mask = openreg.ops.aten.native_dropout(x, 0.2, False)
    assert host(mask).all() and np.array_equal(host(out), host(x))


@pytest.mark.parametrize("dev", DEVICES)
def test_dropout_functional_and_gradient(dev):
    F = openreg.nn.functional
    x = openreg.randn(1000, device=dev, requires_grad=True)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    g, yv, xv = host(x.grad), host(y), host(x.detach())
    kept = g != 0
    np.testing.assert_allclose(g[kept], 2.0)
    np.testing.assert_allclose(yv[kept], 2 * xv[kept], rtol=1e-6)
    assert (yv[~kept] == 0).all()
    assert F.dropout(x, 0.5, training=False) is x
    assert (host(F.dropout(x, 1.0)) == 0).all()
    z = openreg.ones(4, device=dev)
    assert F.dropout(z, 0.0, inplace=True) is z
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        F.dropout(x, -0.1)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("p", [0.1, 0.5, 1e-9, 1 - 1e-9, 0.0, 1.0])
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_dropout_mask_is_the_uniforms_below_one_minus_p(dev, p, dtype):
    # the mask is decided on the Philox words (float32 kinds) or on the float64 uniforms; either way it is the
    # same stream's uniforms u < 1 - p (rounded to the uniforms' dtype), and the stream advances as rand's
    dt = getattr(openreg, dtype)
    x = openreg.ones(3001, device=dev, dtype=dt)
    gen = openreg.random.default_generator(x.device)
    state = gen.get_state()
    _, mask = openreg.ops.aten.native_dropout(x, p, True)
    after = gen.get_state()
    gen.set_state(state)
    u = host(openreg.rand(3001, device=dev, dtype=openreg.float64 if dtype == "float64" else openreg.float32))
    assert np.array_equal(host(mask), u < u.dtype.type(1.0 - p))
    assert host(gen.get_state()).tolist() == host(after).tolist()


def test_keep_words_at_the_threshold():
    from openreg.operators.random import keep_words
    rng = np.random.default_rng(0)
    for p in [0.1, 0.2, 0.3, 1e-9, 2.98e-8, 0.999999, *rng.random(50)]:
        t = np.float32(1.0 - p)
        edge = math.ceil(float(t) * 2**24) << 8
        w = np.concatenate([np.arange(max(0, edge - 300), min(2**32, edge + 300)),
                            rng.integers(0, 2**32, 2000), [0, 2**32 - 1]]).astype(np.uint32)
        u = (w >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)
        assert np.array_equal(keep_words(np, w, p), u < t), p


def test_dropout_reproducible_under_manual_seed():
    x = openreg.ones(64, device=DEV)
    openreg.manual_seed(5)
    a = host(openreg.dropout(x, 0.5))
    openreg.manual_seed(5)
    assert np.array_equal(host(openreg.dropout(x, 0.5)), a)


# -- errors ------------------------------------------------------------------------------------------------------
def test_generator_of_another_device_type():
    with pytest.raises(RuntimeError, match="Expected a 'privateuseone' device type for generator but found 'cpu'"):
        openreg.rand(3, generator=openreg.Generator(), device=DEV)
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'privateuseone'"):
        openreg.empty(3).normal_(generator=openreg.Generator(DEV))
    with pytest.raises(TypeError, match="generator"):
        openreg.rand(3, generator=5)


@pytest.mark.parametrize("dev", DEVICES)
def test_range_errors(dev):
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got from=5 >= to=5"):
        openreg.randint(5, 5, (3,), device=dev)
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=2"):
        openreg.empty(3, device=dev).bernoulli_(2)
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=-0.5"):
        openreg.bernoulli(openreg.zeros(2, device=dev), -0.5)
    with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1 to be true"):
        openreg.bernoulli(openreg.tensor([0.5, 1.5], device=dev))
    with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range"):
        openreg.empty(3, device=dev).uniform_(2, 1)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        openreg.empty(3, device=dev).normal_(0, -1)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        openreg.rand(3, dtype=openreg.int64, device=dev)
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for unsigned char"):
        openreg.randint(0, 300, (3,), dtype=openreg.uint8, device=dev)
    with pytest.raises(RuntimeError, match="from is out of bounds for signed char"):
        openreg.randint(-200, 0, (3,), dtype=openreg.int8, device=dev)
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for bool"):
        openreg.empty(3, dtype=openreg.bool, device=dev).random_(0, 3)
    with pytest.raises(RuntimeError, match="negative"):
        openreg.randperm(-1, device=dev)
    with pytest.raises(RuntimeError, match="n must be non-negative"):
        openreg.ops.aten.randperm.generator_out(-1, generator=None, out=openreg.empty(0, device=dev))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        openreg.empty(3, dtype=openreg.int64, device=dev).normal_()
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        openreg.bernoulli(openreg.tensor([1, 0], device=dev))
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        openreg.ops.aten.native_dropout(openreg.ones(3, device=dev), 1.5, True)
    # floating tensors take any range (PyTorch only warns about precision)
    assert host(openreg.empty(3, device=dev).random_(-2**25, 0)).max() < 0


@pytest.mark.parametrize("dev", DEVICES)
def test_multinomial_errors(dev):
    t = openreg.tensor([0.0, 1.0, 2.0], device=dev)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        openreg.multinomial(t, 4)
    # without replacement, zero-probability categories come last once the others are used up (as PyTorch's CPU)
    assert sorted(host(openreg.multinomial(t, 3)).tolist()[:2]) == [1, 2]
    assert host(openreg.multinomial(t, 3)).tolist()[2] == 0
    with pytest.raises(RuntimeError, match="cannot sample n_sample <= 0 samples"):
        openreg.multinomial(t, 0)
    with pytest.raises(RuntimeError, match="prob_dist must be 1 or 2 dim"):
        openreg.multinomial(openreg.ones(2, 2, 2, device=dev), 1)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        openreg.multinomial(openreg.tensor([1.0, -1.0], device=dev), 1)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        openreg.multinomial(openreg.zeros(3, device=dev), 1)
    with pytest.raises(RuntimeError, match="only supports floating-point dtypes"):
        openreg.multinomial(openreg.tensor([1, 2], device=dev), 1)


def test_schemas_are_pytorchs():
    A = openreg.ops.aten
    assert str(A.randint.low_generator._schema) == (
        "aten::randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, "
        "ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor")
    assert str(A.bernoulli_.float._schema) == (
        "aten::bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)")
    assert set(A.randint.overloads()) >= {"default", "generator", "low", "low_generator", "out", "generator_out",
                                          "low_out", "low_generator_out"}


def test_no_gpu_needed_at_import():
    assert "cupy" not in os.environ.get("OPENREG_DRIVER", "")


@pytest.mark.parametrize("dev", DEVICES)
def test_normal_overloads_and_gradients(dev):
    g = openreg.Generator(dev)
    mean = openreg.tensor([0.0, 10.0, -5.0], device=dev, requires_grad=True)
    std = openreg.tensor([1.0, 0.5, 2.0], device=dev, requires_grad=True)
    y = openreg.normal(mean, std, generator=g.manual_seed(6))
    z = host(openreg.randn(3, generator=g.manual_seed(6), device=dev))
    np.testing.assert_allclose(host(y.detach()), np.array([0.0, 10.0, -5.0]) + z * [1.0, 0.5, 2.0], rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(host(mean.grad), 1.0)
    np.testing.assert_allclose(host(std.grad), z, rtol=1e-6)
    assert openreg.normal(mean, 0.0).tolist() == [0.0, 10.0, -5.0]
    assert openreg.normal(1.0, openreg.zeros(2, device=dev)).tolist() == [1.0, 1.0]
    assert openreg.normal(0.0, 1.0, (2, 2), device=dev).shape == (2, 2)
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        openreg.normal(mean, openreg.tensor([1.0, -1.0, 1.0], device=dev))
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        openreg.normal(mean, -2.0)


def test_philox_seed_and_offset_reserves_words():
    g = openreg.Generator(DEV).manual_seed(10)
    assert orandom.philox_seed_and_offset(DEV, 5, g) == (10, 0)
    assert g.get_offset() == 8
    seed, offset = orandom.philox_seed_and_offset(DEV, 4, g)
    assert (seed, offset) == (10, 8)
    from openreg.backends.cpu.kernels_random import numpy_values
    g.set_offset(8)
    assert np.array_equal(host(openreg.rand(4, generator=g, device=DEV)),
                          numpy_values("f32", seed, offset, 4).astype(np.float64))


def test_register_needs_a_callable():
    with orandom._fresh_privateuse1_registry(), pytest.raises(TypeError, match="callable"):
        orandom.register_privateuse1_generator(42)


@pytest.mark.parametrize("dev", DEVICES)
def test_like_and_out_overloads_with_generators(dev):
    A = openreg.ops.aten
    g = openreg.Generator(dev)
    x = openreg.zeros(2, 3, device=dev, dtype=openreg.float64)
    ref = host(openreg.rand(2, 3, generator=g.manual_seed(1), device=dev, dtype=openreg.float64))
    assert np.array_equal(host(openreg.rand_like(x, generator=g.manual_seed(1))), ref)
    out = openreg.empty(0, device=dev, dtype=openreg.float64)
    A.rand_like.generator_out(x, generator=g.manual_seed(1), out=out)
    assert np.array_equal(host(out), ref)
    refn = host(openreg.randn(2, 3, generator=g.manual_seed(2), device=dev, dtype=openreg.float64))
    assert np.array_equal(host(openreg.randn_like(x, generator=g.manual_seed(2))), refn)
    A.randn_like.generator_out(x, generator=g.manual_seed(2), out=out.resize_(0))
    assert np.array_equal(host(out), refn)
    ri = host(openreg.randint_like(x, 3, 9, generator=g.manual_seed(3)))
    assert np.array_equal(ri, host(A.randint_like.low_generator_dtype(x, 3, 9, generator=g.manual_seed(3))))
    assert set(ri.ravel().tolist()) <= set(range(3, 9))
    assert set(host(A.randint_like.generator(x, 2, generator=g)).ravel().tolist()) <= {0, 1}
    p = openreg.full((4000,), 0.25, device=dev)
    b = A.bernoulli.Tensor(openreg.zeros(4000, device=dev), p, generator=g)
    assert 800 < host(b).sum() < 1200
    bo = openreg.empty(0, device=dev)
    A.bernoulli.out(p, generator=g, out=bo)
    assert bo.shape == (4000,) and set(host(bo).tolist()) == {0.0, 1.0}
    mo = openreg.empty(0, dtype=openreg.int64, device=dev)
    A.multinomial.out(openreg.tensor([0.0, 1.0], device=dev), 3, True, generator=g, out=mo)
    assert host(mo).tolist() == [1, 1, 1]
    no = openreg.empty(0, device=dev)
    A.normal.float_float_out(5.0, 0.0, [3], generator=g, out=no)
    assert host(no).tolist() == [5.0, 5.0, 5.0]
    A.normal.Tensor_Tensor_out(openreg.ones(2, device=dev), openreg.zeros(2, device=dev), out=no.resize_(0))
    assert host(no).tolist() == [1.0, 1.0]


def test_random_ops_carry_pytorchs_tags():
    A = openreg.ops.aten
    seeded, core = openreg.Tag.nondeterministic_seeded, openreg.Tag.core
    for op in (A.rand.generator, A.uniform_.default, A.bernoulli_.float, A.multinomial.default, A.dropout.default):
        assert seeded in op.tags and core not in op.tags
    for op in (A.rand.default, A.randn.default, A.randperm.default, A.native_dropout.default):
        assert {seeded, core} <= set(op.tags)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), offset=st.integers(0, 2**40).map(lambda x: 4 * x),
       cut=st.integers(0, 12), n=st.integers(0, 24))
def test_streams_split_anywhere(seed, offset, cut, n):
    whole = philox.uint32_stream(seed, offset, cut + n)
    assert np.array_equal(np.concatenate([philox.uint32_stream(seed, offset, cut),
                                          philox.uint32_stream(seed, offset + cut, n)]), whole)
    g = openreg.Generator(DEV).manual_seed(seed).set_offset(offset)
    head = host(openreg.randint(0, 2**32, (4 * cut,), generator=g, device=DEV))
    tail = host(openreg.randint(0, 2**32, (n,), generator=g, device=DEV))
    ref = philox.uint32_stream(seed, offset, 4 * cut + 4 * (-(-n // 4)))
    assert np.array_equal(head, ref[:4 * cut]) and np.array_equal(tail, ref[4 * cut:4 * cut + n])
    assert g.get_offset() == offset + 4 * cut + 4 * (-(-n // 4))
