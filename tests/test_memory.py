"""The caching allocator: exact statistics, size classes, cache reuse, limits and out-of-memory errors."""
from __future__ import annotations

import gc

import pytest
from device_params import needs_two_devices
from openreg.backends.privateuseone.allocator import CachingAllocator, OutOfMemoryError, round_size
from openreg.backends.privateuseone.emulated_driver import EmulatedDriver

import openreg

pu = openreg.privateuseone
# The tests use the last device, which the rest of the suite leaves alone (device 0 on one-GPU machines).
IDX = pu.device_count() - 1
D1 = f"privateuseone:{IDX}"


def _snap(index=IDX):
    s = pu.memory_stats(index)
    return {k: s[k] for k in ("allocated_bytes.all.current", "reserved_bytes.all.current",
                              "requested_bytes.all.current", "allocation.all.current", "segment.all.current",
                              "num_device_alloc", "num_device_free")}


def _delta(after, before):
    return {k: after[k] - before[k] for k in after}


@pytest.fixture(autouse=True)
def _clean():
    gc.collect()
    pu.empty_cache()
    yield
    pu.set_per_process_memory_fraction(1.0, IDX)
    gc.collect()
    pu.empty_cache()


def test_round_size_classes():
    assert [round_size(n) for n in (1, 512, 513, 1 << 20)] == [512, 512, 1024, 1 << 20]
    assert round_size((1 << 20) + 1) == (1 << 20) + (1 << 18)      # 4 classes per power of two
    assert round_size(3 << 20) == 3 << 20
    assert round_size((3 << 20) + 1) == (7 << 19)
    for n in range(1, 5000, 37):
        assert round_size(n) >= n and round_size(n) % 512 == 0


def test_stats_exact_after_every_alloc_free_and_empty_cache():
    base = _snap()
    a = openreg.empty(100, device=D1)                    # 400 bytes -> one 512-byte block, new segment
    assert _delta(_snap(), base) == {"allocated_bytes.all.current": 512, "reserved_bytes.all.current": 512,
                                     "requested_bytes.all.current": 400, "allocation.all.current": 1,
                                     "segment.all.current": 1, "num_device_alloc": 1, "num_device_free": 0}
    b = openreg.empty(3 << 18, dtype=openreg.float32, device=D1)  # 3 MiB -> large pool class 3 MiB
    assert _delta(_snap(), base)["allocated_bytes.all.current"] == 512 + (3 << 20)
    assert pu.memory_stats(IDX)["allocated_bytes.large_pool.current"] >= 3 << 20
    del a
    d = _delta(_snap(), base)
    assert d["allocated_bytes.all.current"] == 3 << 20 and d["reserved_bytes.all.current"] == 512 + (3 << 20)
    assert d["allocation.all.current"] == 1 and d["requested_bytes.all.current"] == 3 << 20
    c = openreg.empty(90, device=D1)                     # served from the cache: no new segment
    d = _delta(_snap(), base)
    assert d["num_device_alloc"] == 2 and d["reserved_bytes.all.current"] == 512 + (3 << 20)
    assert d["allocated_bytes.all.current"] == 512 + (3 << 20)
    del b, c
    d = _delta(_snap(), base)
    assert d["allocated_bytes.all.current"] == 0 and d["reserved_bytes.all.current"] == 512 + (3 << 20)
    pu.empty_cache()
    assert _delta(_snap(), base) == {"allocated_bytes.all.current": 0, "reserved_bytes.all.current": 0,
                                     "requested_bytes.all.current": 0, "allocation.all.current": 0,
                                     "segment.all.current": 0, "num_device_alloc": 2, "num_device_free": 2}
    assert pu.memory_reserved(IDX) == pu.memory_allocated(IDX)


def test_peaks_and_reset():
    pu.reset_peak_memory_stats(IDX)
    base = pu.memory_allocated(IDX)
    t = openreg.empty(1 << 16, dtype=openreg.uint8, device=D1)
    del t
    assert pu.max_memory_allocated(IDX) == base + (1 << 16)
    assert pu.memory_allocated(IDX) == base
    pu.reset_peak_memory_stats(D1)
    assert pu.max_memory_allocated(IDX) == base
    assert pu.max_memory_reserved(IDX) >= pu.memory_reserved(IDX)


def test_memory_stats_keys():
    s = pu.memory_stats(0)
    for key in ("allocated_bytes.all.current", "allocated_bytes.all.peak", "allocated_bytes.small_pool.freed",
                "reserved_bytes.all.current", "reserved_bytes.large_pool.peak", "requested_bytes.all.allocated",
                "allocation.all.current", "segment.all.current", "num_alloc_retries", "num_ooms"):
        assert key in s


@needs_two_devices
def test_memory_stats_of_devices_are_separate():
    before0, before1 = pu.memory_allocated(0), pu.memory_allocated(IDX)
    t = openreg.empty(1000, device=D1)
    assert pu.memory_allocated(0) == before0 and pu.memory_allocated(IDX) == before1 + 4096
    del t


def test_views_keep_memory_until_last_reference():
    base = pu.memory_allocated(IDX)
    t = openreg.zeros(4, 4, device=D1)
    v = t.as_strided((2,), (5,), 1)
    s = t.untyped_storage()[8:16]
    del t
    assert pu.memory_allocated(IDX) == base + 512
    del v
    assert pu.memory_allocated(IDX) == base + 512
    del s
    assert pu.memory_allocated(IDX) == base


def test_oom_message_and_counters():
    total = pu.mem_get_info(IDX)[1]
    fraction = (4 << 20) / total
    pu.set_per_process_memory_fraction(fraction, IDX)
    keep = openreg.empty(1 << 20, dtype=openreg.uint8, device=D1)
    before = pu.memory_stats(IDX)
    request = 5 << 20
    with pytest.raises(RuntimeError, match="out of memory") as info:
        openreg.empty(request, dtype=openreg.uint8, device=D1)
    assert isinstance(info.value, OutOfMemoryError)
    msg = str(info.value)
    limit = int(fraction * total)
    assert "Tried to allocate 5.00 MiB" in msg and f"{request} bytes" in msg
    assert f"({1 << 20} bytes) is in use" in msg and f"({limit} bytes)" in msg
    after = pu.memory_stats(IDX)
    assert after["num_ooms"] == before["num_ooms"] + 1
    assert after["num_alloc_retries"] == before["num_alloc_retries"] + 1
    assert after["allocated_bytes.all.current"] == before["allocated_bytes.all.current"]
    del keep
    pu.set_per_process_memory_fraction(1.0, IDX)
    big = openreg.empty(request, dtype=openreg.uint8, device=D1)   # fits again
    del big


def test_cached_blocks_freed_and_retried_before_oom():
    alloc = CachingAllocator(EmulatedDriver(devices=1, memory=4 << 20))
    blocks = [alloc.malloc(0, 1 << 20) for _ in range(3)]       # 3 MiB reserved
    for b in blocks:
        alloc.free(b)                                          # cached, still reserved
    assert alloc.stats(0)["reserved_bytes.all.current"] == 3 << 20
    big = alloc.malloc(0, 2 << 20)                             # needs the cache released first
    s = alloc.stats(0)
    assert s["num_alloc_retries"] == 1 and s["num_ooms"] == 0
    assert s["reserved_bytes.all.current"] == 2 << 20 and s["allocated_bytes.all.current"] == 2 << 20
    with pytest.raises(OutOfMemoryError, match="Tried to allocate 3.00 MiB"):
        alloc.malloc(0, 3 << 20)
    s = alloc.stats(0)
    assert s["num_ooms"] == 1 and s["num_alloc_retries"] == 2
    alloc.free(big)
    alloc.empty_cache()
    assert alloc.stats(0)["reserved_bytes.all.current"] == 0
    assert alloc.driver.mem_get_info(0) == (4 << 20, 4 << 20)


def test_fraction_argument_errors():
    with pytest.raises(ValueError, match="Invalid fraction value"):
        pu.set_per_process_memory_fraction(-0.1)
    with pytest.raises(TypeError, match="must be `float`"):
        pu.set_per_process_memory_fraction(IDX)


def test_pool_returns_to_baseline_after_failing_ops():
    base = _snap()
    x = openreg.ones(3, device=D1)
    with pytest.raises(RuntimeError):
        x + openreg.ones(4, device=D1)                     # shape mismatch
    with pytest.raises(RuntimeError, match="same device"):
        x + openreg.ones(3)                                  # a CPU tensor: devices differ
    with pytest.raises(RuntimeError):
        openreg.ops.inductor._mm_plus_mm(x, x, x, x, x)      # not matrices
    pu.set_per_process_memory_fraction((1 << 20) / pu.mem_get_info(IDX)[1], IDX)
    with pytest.raises(RuntimeError, match="out of memory"):
        x + openreg.ones(1 << 20, device=D1)
    pu.set_per_process_memory_fraction(1.0, IDX)
    del x
    gc.collect()
    pu.empty_cache()
    after = _snap()
    assert after["allocated_bytes.all.current"] == base["allocated_bytes.all.current"]
    assert after["reserved_bytes.all.current"] == base["reserved_bytes.all.current"]
    assert after["allocation.all.current"] == base["allocation.all.current"]


def test_failed_allocation_leaves_no_unraisable_error():
    # An out-of-memory DeviceAllocation is garbage collected half-built; its __del__ must not raise.
    import sys
    seen = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        pu.set_per_process_memory_fraction((1 << 20) / pu.mem_get_info(IDX)[1], IDX)
        with pytest.raises(RuntimeError, match="out of memory"):
            openreg.empty(4 << 20, dtype=openreg.uint8, device=D1)
        gc.collect()
    finally:
        pu.set_per_process_memory_fraction(1.0, IDX)
        sys.unraisablehook = old_hook
    assert seen == []


def test_accumulated_totals_count_every_allocation_and_free():
    """``*.allocated`` / ``*.freed`` are the totals added / removed since the last reset (the allocator derives
    the added total from the current value, so it is checked here through resets, allocations and frees)."""
    a = CachingAllocator(EmulatedDriver(devices=1, memory=1 << 22))

    def totals(name="allocated_bytes", pool="all"):
        s = a.stats(0)
        return s[f"{name}.{pool}.current"], s[f"{name}.{pool}.allocated"], s[f"{name}.{pool}.freed"]

    b1, b2 = a.malloc(0, 100), a.malloc(0, 2 << 20)
    assert totals() == (512 + (2 << 20), 512 + (2 << 20), 0)
    assert totals("requested_bytes", "small_pool") == (100, 100, 0)
    a.free(b1)
    assert totals() == (2 << 20, 512 + (2 << 20), 512)
    a.reset_accumulated(0)
    assert totals() == (2 << 20, 0, 0) and totals("allocation") == (1, 0, 0)
    b3 = a.malloc(0, 600)
    a.free(b2)
    assert totals() == (1024, 1024, 2 << 20) and totals("allocation") == (1, 1, 1)
    assert totals("requested_bytes") == (600, 600, 2 << 20)
    assert totals("segment", "large_pool") == (1, 0, 0)     # reserved until empty_cache
    a.free(b3)
    a.empty_cache(0)
    assert totals("segment") == (0, 1, 3) and totals("reserved_bytes") == (0, 1024, 512 + 1024 + (2 << 20))


def test_released_blocks_are_accounted_as_freed_at_the_next_malloc_or_read():
    """A finalizer's ``release`` only queues the block: the next malloc reuses it (a block of the same size class
    directly, with the requested bytes' peak moving only when they grow) and every statistic reads as if it had
    been freed at once -- the same figures ``free`` gives."""
    def run(give_back):
        a = CachingAllocator(EmulatedDriver(devices=2, memory=1 << 20))
        b1 = a.malloc(1, 100)
        seg = b1.segment
        give_back(a, b1)
        b2 = a.malloc(1, 400)                       # same class: the released segment serves it
        early = a.stats(1)["requested_bytes.all.peak"], a.stats(1)["requested_bytes.small_pool.peak"]
        b3 = a.malloc(0, 100)
        give_back(a, b3)                            # another device: freed as it is
        b4 = a.malloc(1, 2000)                      # another class: a new segment
        give_back(a, b4)
        give_back(a, b2)
        stats = a.stats(1)
        return b2.segment is seg, early, {k: stats[k] for k in (
            "allocated_bytes.all.current", "allocated_bytes.all.peak", "allocated_bytes.all.allocated",
            "allocated_bytes.all.freed", "requested_bytes.all.current", "requested_bytes.all.peak",
            "requested_bytes.small_pool.peak", "allocation.all.current", "allocation.all.peak",
            "allocation.all.freed", "reserved_bytes.all.current")}, a.stats(0)["allocation.all.freed"], \
            a.cached_bytes(1)

    freed = run(lambda a, b: a.free(b))
    released = run(lambda a, b: a.release(b))
    assert released == freed
    assert freed == (True, (400, 400), {"allocated_bytes.all.current": 0, "allocated_bytes.all.peak": 512 + 2048,
                            "allocated_bytes.all.allocated": 512 * 2 + 2048, "allocated_bytes.all.freed": 512 * 2 + 2048,
                            "requested_bytes.all.current": 0, "requested_bytes.all.peak": 2400,
                            "requested_bytes.small_pool.peak": 2400, "allocation.all.current": 0,
                            "allocation.all.peak": 2, "allocation.all.freed": 3,
                            "reserved_bytes.all.current": 512 + 2048}, 1, 512 + 2048)


def test_reused_blocks_keep_the_statistics_exact_across_threads():
    """``malloc`` hands a just-released block of the same bytes on without the lock (``reuse``); the totals of
    such blocks are added at the next locked reading. Threads allocating and releasing concurrently end with
    every current value back at zero and the totals of every allocation counted once."""
    import threading

    a = CachingAllocator(EmulatedDriver(devices=1, memory=1 << 24))
    n_threads, rounds, sizes = 4, 600, (100, 100, 700, 3000)

    def work(k):
        for i in range(rounds):
            b = a.malloc(0, sizes[(i + k) % len(sizes)])
            a.release(b)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    s = a.stats(0)
    expected_bytes = n_threads * rounds // len(sizes) * sum(round_size(n) for n in sizes)
    expected_req = n_threads * rounds // len(sizes) * sum(sizes)
    assert s["allocation.all.current"] == s["allocated_bytes.all.current"] == s["requested_bytes.all.current"] == 0
    assert s["allocation.all.allocated"] == s["allocation.all.freed"] == n_threads * rounds
    assert s["allocated_bytes.all.allocated"] == s["allocated_bytes.all.freed"] == expected_bytes
    assert s["requested_bytes.all.allocated"] == s["requested_bytes.all.freed"] == expected_req
    assert a.released == [] and a.reused == []
    # one thread repeating one request: the segment is handed on (no new segment, no cache traffic)
    before = a.stats(0)["num_device_alloc"]
    b = a.malloc(0, 100)
    seg = b.segment
    for _ in range(1000):            # more than the reused list holds before its totals are added
        a.release(b)
        b = a.malloc(0, 100)
        assert b.segment is seg
    assert len(a.reused) <= 256 + 1
    s = a.stats(0)
    assert s["num_device_alloc"] == before and s["allocation.all.current"] == 1
    assert s["requested_bytes.all.freed"] == expected_req + 1000 * 100


def test_repeated_device_ops_count_every_result_in_the_totals():
    """A small device op repeated on same-sized tensors hands each result's block on to the next (the structured
    kernel's buffer for its cached signature; those blocks count themselves): the statistics read as if every
    result had been allocated and freed, across a reset of the totals, and no new segment is made."""
    x = openreg.full((3, 5), -1.5, device=D1)
    y = openreg.full((3, 5), 2.0, device=D1)
    nbytes, size = 3 * 5 * 4, round_size(3 * 5 * 4)
    x.abs(), x * y              # cache the signatures
    gc.collect()

    def totals():
        s = pu.memory_stats(IDX)
        return {k: s[k] for k in ("allocation.all.allocated", "allocation.all.freed", "allocation.all.current",
                                  "allocated_bytes.all.allocated", "allocated_bytes.all.freed",
                                  "requested_bytes.small_pool.allocated", "requested_bytes.small_pool.freed",
                                  "requested_bytes.all.current", "num_device_alloc")}

    before = totals()
    for i in range(300):
        r = x.abs() if i % 3 else x * y
        assert r.cpu().tolist() == ([[1.5] * 5] * 3 if i % 3 else [[-3.0] * 5] * 3)
    del r
    after = totals()
    assert _delta(after, before) == {
        "allocation.all.allocated": 300, "allocation.all.freed": 300, "allocation.all.current": 0,
        "allocated_bytes.all.allocated": 300 * size, "allocated_bytes.all.freed": 300 * size,
        "requested_bytes.small_pool.allocated": 300 * nbytes, "requested_bytes.small_pool.freed": 300 * nbytes,
        "requested_bytes.all.current": 0, "num_device_alloc": 0}
    pu.reset_accumulated_memory_stats(IDX)
    assert totals()["allocation.all.freed"] == 0
    for _ in range(10):
        x.abs()
    s = totals()
    assert s["allocation.all.allocated"] == s["allocation.all.freed"] == 10


def test_oom_of_a_repeated_ufunc_call_propagates():
    """A signature cached for the direct-ufunc path (an add that can overflow runs in the quiet context) still
    reports the device's out-of-memory error: nothing falls back to computing elsewhere."""
    x = openreg.ones(64 * 1024, device=D1)           # 256 KiB float32: small enough for the direct path
    for _ in range(3):
        y = x + x                                    # the signature is cached, results come from the maker
    del y
    total = pu.mem_get_info(IDX)[1]
    pu.set_per_process_memory_fraction((pu.memory_allocated(IDX) + (512 << 10)) / total, IDX)
    try:
        with pytest.raises(OutOfMemoryError, match="out of memory"):
            held = [x + x for _ in range(4)]         # noqa: F841 - each result is 256 KiB
    finally:
        pu.set_per_process_memory_fraction(1.0, IDX)
    assert (x + x).device == D1
