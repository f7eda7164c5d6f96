"""The caching allocator of the PrivateUse1 device: size classes, a cache of freed blocks per device,
exact statistics and a per-process memory limit (PyTorch's ``CUDACachingAllocator`` idea).

Requests are rounded to size classes (multiples of 512 bytes up to 1 MiB, "small pool"; above, four
classes per power of two, "large pool"). A freed block goes to its device's cache and serves the next
request of the same class without a driver call; ``empty_cache`` gives cached blocks back to the driver.
A block released by its owner's finalizer (``release``) is queued without a lock and accounted at the next
allocation or reading of the statistics, which see it freed.
When a new segment would exceed the limit (``set_per_process_memory_fraction``) or the device is full, the
cache is emptied and the allocation retried once; if that fails too an ``OutOfMemoryError`` (a
``RuntimeError``) says how many bytes were requested, are in use and are allowed.

>>> from openreg.backends.privateuseone.allocator import CachingAllocator, round_size
>>> from openreg.backends.privateuseone.emulated_driver import EmulatedDriver
>>> round_size(1), round_size(513), round_size(3 << 20)
(512, 1024, 3145728)
>>> a = CachingAllocator(EmulatedDriver(devices=1, memory=1 << 20))
>>> b = a.malloc(0, 100)
>>> a.stats(0)["allocated_bytes.all.current"], a.stats(0)["requested_bytes.all.current"]
(512, 100)
>>> a.free(b); a.stats(0)["allocated_bytes.all.current"], a.stats(0)["reserved_bytes.all.current"]
(0, 512)
>>> a.empty_cache(0); a.stats(0)["reserved_bytes.all.current"]
0
"""
from __future__ import annotations

import itertools
import threading
from collections import defaultdict

from .driver import Driver, DriverOutOfMemory, Segment

MIN_BLOCK = 512
SMALL_LIMIT = 1 << 20          # blocks up to 1 MiB belong to the small pool
POOLS = ("all", "small_pool", "large_pool")
BYTE_STATS = ("allocated_bytes", "reserved_bytes", "requested_bytes")
COUNT_STATS = ("allocation", "segment")
EVENT_COUNTERS = ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free")


_new = object.__new__
_REUSED_BATCH = 256      # reused blocks whose totals are added under the lock at the latest (bounds the list)
_REUSE_SCAN = 4          # how many of the last released blocks ``reuse`` looks at


class OutOfMemoryError(RuntimeError):
    """The device (or the per-process limit) cannot provide the requested bytes."""


def round_size(nbytes: int) -> int:
    """The size class of a request: 512-byte steps up to 1 MiB, then 4 classes per power of two."""
    if nbytes <= SMALL_LIMIT:
        return max(MIN_BLOCK, -(-nbytes // MIN_BLOCK) * MIN_BLOCK)
    step = (1 << (nbytes - 1).bit_length()) // 8
    return -(-nbytes // step) * step


def format_size(nbytes: int) -> str:
    """Human-readable bytes as PyTorch prints them in OOM messages (``2.00 MiB``)."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(nbytes) >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} bytes"


class Stat:
    """A statistic: current and peak values, and the totals added and removed."""

    __slots__ = ("allocated", "current", "freed", "peak")

    def __init__(self):
        self.current = self.peak = self.allocated = self.freed = 0

    def add(self, amount: int) -> None:
        self.current += amount
        self.allocated += amount
        self.peak = max(self.peak, self.current)

    def sub(self, amount: int) -> None:
        self.current -= amount
        self.freed += amount


class Block:
    """An allocated block: a segment of ``size`` bytes (the size class) serving ``requested`` bytes."""

    __slots__ = ("device", "requested", "segment", "size")

    def __init__(self, segment: Segment, size: int, requested: int, device: int):
        self.segment = segment
        self.size = size
        self.requested = requested
        self.device = device

    @property
    def pool(self) -> str:
        return "small_pool" if self.size <= SMALL_LIMIT else "large_pool"

    @property
    def ptr(self) -> int:
        return self.segment.ptr


class _PoolCounters:
    """The statistics of one pool of one device as plain integers (updated on every malloc/free).

    ``<stat>`` is the current value, ``<stat>_peak`` the peak, ``<stat>_out`` the total removed. The total added
    is not counted on every malloc: it is ``current + out - base``, ``base`` being the current value when the
    totals were last reset. The "all" pool is the sum of the two pools, except its peaks (kept by
    ``_DeviceState``).
    """

    __slots__ = ("alloc", "alloc_base", "alloc_out", "alloc_peak", "count", "count_base", "count_out", "count_peak",
                 "req", "req_base", "req_out", "req_peak", "res", "res_base", "res_out", "res_peak", "seg",
                 "seg_base", "seg_out", "seg_peak")

    def __init__(self):
        for name in self.__slots__:
            setattr(self, name, 0)

    def stat(self, key: str) -> Stat:
        out = Stat()
        out.current, out.peak = getattr(self, key), getattr(self, key + "_peak")
        out.freed = getattr(self, key + "_out")
        out.allocated = out.current + out.freed - getattr(self, key + "_base")
        return out


# statistic name -> field prefix of _PoolCounters
_FIELDS = {"allocated_bytes": "alloc", "reserved_bytes": "res", "requested_bytes": "req", "allocation": "count",
           "segment": "seg"}


class _DeviceState:
    __slots__ = ("all_peaks", "cache", "counters", "fraction", "large", "small")

    def __init__(self):
        self.cache: dict[int, list[Segment]] = defaultdict(list)
        self.small = _PoolCounters()
        self.large = _PoolCounters()
        self.all_peaks = dict.fromkeys(_FIELDS.values(), 0)   # peaks of the "all" pool
        self.counters = dict.fromkeys(EVENT_COUNTERS, 0)
        self.fraction: float | None = None

    def pool(self, size: int) -> _PoolCounters:
        return self.small if size <= SMALL_LIMIT else self.large

    def stat(self, name: str, pool: str) -> Stat:
        key = _FIELDS[name]
        if pool == "small_pool":
            return self.small.stat(key)
        if pool == "large_pool":
            return self.large.stat(key)
        a, b = self.small.stat(key), self.large.stat(key)
        out = Stat()
        out.current, out.peak = a.current + b.current, self.all_peaks[key]
        out.allocated, out.freed = a.allocated + b.allocated, a.freed + b.freed
        return out

    def reserved(self) -> int:
        return self.small.res + self.large.res

    def allocated(self) -> int:
        return self.small.alloc + self.large.alloc

    def reset_peaks(self) -> None:
        for key in _FIELDS.values():
            self.all_peaks[key] = getattr(self.small, key) + getattr(self.large, key)
            for p in (self.small, self.large):
                setattr(p, key + "_peak", getattr(p, key))

    def reset_totals(self) -> None:
        for key in _FIELDS.values():
            for p in (self.small, self.large):
                setattr(p, key + "_base", getattr(p, key))    # allocated = current + out - base = 0
                setattr(p, key + "_out", 0)


def take_released(released: list, index: int, nbytes: int):
    """Take the most recently released block of exactly ``nbytes`` on device ``index`` among the last
    ``_REUSE_SCAN`` out of ``released`` (with one atomic ``pop``: no other thread gets it too), or None.

    The caller hands its segment on to a new block of the same bytes and accounts it (``reused``, or a
    ``reuse_counter``): its free and that malloc change no current value.

    >>> from openreg.backends.privateuseone.allocator import Block
    >>> blocks = [Block(None, 512, 100, 0), Block(None, 512, 4, 0)]
    >>> released = list(blocks)
    >>> take_released(released, 0, 100) is blocks[0], released == blocks[1:], take_released(released, 1, 4)
    (True, True, None)
    """
    n = len(released)
    for i in range(n - 1, max(n - 1 - _REUSE_SCAN, -1), -1):
        try:
            b = released[i]
        except IndexError:          # another thread took blocks meanwhile
            return None
        if b.requested == nbytes and b.device == index:
            try:
                taken = released.pop(i)
            except IndexError:
                return None
            if taken is b:
                return b
            released.append(taken)  # another thread changed the list meanwhile: give it back
            return None
    return None


class CachingAllocator:
    """Caching allocator over a driver's raw memory, for every device of the driver."""

    def __init__(self, driver: Driver):
        self.driver = driver
        self._lock = threading.RLock()
        self._devices = [_DeviceState() for _ in range(driver.device_count())]
        # Blocks given back by their owners' finalizers (``release``), not yet accounted: the next allocation or
        # reading of the statistics takes them under the lock. Appending needs no lock (one atomic list
        # operation), so a finalizer never waits, nor deadlocks when the garbage collector runs it inside a
        # locked section of this thread; and a device op's free costs no lock of its own.
        self.released: list[Block] = []
        # Released blocks whose segment ``malloc`` gave straight to a request of the same bytes on the same
        # device, without the lock (``reuse``): their free + malloc changes no current value (so no peak), only
        # the allocated/freed totals, which are added when the statistics are read (``_take_reused``).
        self.reused: list[Block] = []
        # (device, bytes) -> [itertools.count, the value its last reading returned]: the blocks of exactly that many
        # bytes that a ``reuse_counter``'s owner handed on from ``released`` (as ``reuse`` does) count themselves
        # with one ``next`` (atomic, no list to empty); the statistics add them when they are read.
        self._reuse_counts: dict[tuple[int, int], list] = {}
        # (block, events): blocks freed while streams that ``record_stream`` marked them used by still had work
        # queued; each goes to the cache once its events have completed (PyTorch's deferred stream frees).
        self.pending: list[tuple[Block, list]] = []
        # every segment held from the driver, per device (ptr -> segment): for memory_snapshot
        self._segments: list[dict[int, Segment]] = [{} for _ in self._devices]

    def _state(self, index: int) -> _DeviceState:
        return self._devices[index]

    # -- allocation ------------------------------------------------------------------------------------
    def malloc(self, index: int, nbytes: int, block: Block | None = None, *, reuse: bool = True) -> Block:
        """A block of at least ``nbytes`` on device ``index`` (from the cache when possible); ``block``, an
        instance of ``Block`` or of a subclass, is filled in instead of a new one (one object less per
        allocation for the storage backend, whose allocations are their own blocks). ``reuse=False``: the caller
        has just looked for a released block of exactly these bytes (``reuse`` / ``take_released``) and found none."""
        segment = self.reuse(index, nbytes) if reuse else None
        if segment is not None:
            if block is None:
                block = _new(Block)
            block.segment, block.size, block.requested, block.device = segment, segment.nbytes, nbytes, index
            return block
        size = round_size(nbytes) if nbytes > MIN_BLOCK else MIN_BLOCK
        with self._lock:
            released = self.released
            if released:
                freed = released.pop()
                if released:
                    self._take_released()
                if freed.size == size and freed.device == index:
                    # A device op frees the previous result of its size: its segment serves this request.
                    # free + malloc of one size class leave the allocated bytes and the count as they were
                    # (so no peak moves but the requested bytes'); only the totals change.
                    st = self._devices[index]
                    p = st.small if size <= SMALL_LIMIT else st.large
                    p.alloc_out += size
                    p.count_out += 1
                    requested = freed.requested
                    p.req_out += requested
                    p.req = req = p.req + (nbytes - requested)
                    if nbytes > requested:
                        if req > p.req_peak:  # noqa: PLR1730 - no call
                            p.req_peak = req
                        peaks = st.all_peaks
                        total = st.small.req + st.large.req
                        if total > peaks["req"]:  # noqa: PLR1730 - no call
                            peaks["req"] = total
                    if block is None:
                        block = _new(Block)
                    block.segment, block.size, block.requested, block.device = freed.segment, size, nbytes, index
                    return block
                self._free(freed)
            st = self._devices[index]
            cached = st.cache.get(size)
            if cached:
                segment = cached.pop()
            else:
                segment = self._new_segment(index, size, nbytes)
            if block is None:
                block = _new(Block)     # Block(segment, size, nbytes, index) without a Python call
            block.segment, block.size, block.requested, block.device = segment, size, nbytes, index
            # statistics: integer adds on the pool's counters, then the peaks of the pool and of "all" (plain
            # comparisons: this runs on every device allocation)
            small, large = st.small, st.large
            p = small if size <= SMALL_LIMIT else large
            p.alloc = alloc = p.alloc + size
            p.req = req = p.req + nbytes
            p.count = count = p.count + 1
            if alloc > p.alloc_peak:  # noqa: PLR1730 - no call
                p.alloc_peak = alloc
            if req > p.req_peak:  # noqa: PLR1730 - no call
                p.req_peak = req
            if count > p.count_peak:  # noqa: PLR1730 - no call
                p.count_peak = count
            peaks = st.all_peaks
            total = small.alloc + large.alloc
            if total > peaks["alloc"]:  # noqa: PLR1730 - no call
                peaks["alloc"] = total
            total = small.req + large.req
            if total > peaks["req"]:  # noqa: PLR1730 - no call
                peaks["req"] = total
            total = small.count + large.count
            if total > peaks["count"]:  # noqa: PLR1730 - no call
                peaks["count"] = total
            return block

    def reuse(self, index: int, nbytes: int) -> Segment | None:
        """The segment of a just released block (one of the last few) that served exactly ``nbytes`` on device
        ``index`` (it now serves the caller's block, of its size class ``segment.nbytes``), else None; no lock
        is taken.

        This is a device op repeated on same-sized tensors: each result frees the previous one. The block is
        taken from ``released`` with one atomic ``pop`` (so no other thread can take it too); its free and the
        new malloc leave every current value as it was (allocated and requested bytes, count), so no shared
        counter is written here -- the block goes to ``reused`` (an atomic append), whose totals the next
        locked reading of the statistics adds.
        """
        released = self.released
        if not released:
            return None
        freed = take_released(released, index, nbytes)
        if freed is None:
            return None
        reused = self.reused
        reused.append(freed)
        if len(reused) > _REUSED_BATCH:
            self.take_reused()
        return freed.segment

    def reuse_counter(self, index: int, nbytes: int):
        """The counter a caller advances (``next``) for each block of ``nbytes`` on device ``index`` it took from
        ``released`` and handed on to a new block of the same bytes, as ``reuse`` does: such a block's free and
        malloc change no current value, only the totals, which the next reading of the statistics adds."""
        key = (index, nbytes)
        entry = self._reuse_counts.get(key)
        if entry is None:
            with self._lock:
                entry = self._reuse_counts.setdefault(key, [itertools.count(), -1])
        return entry[0]

    def _take_counted(self) -> None:
        """Add the totals of the blocks counted by ``reuse_counter``'s counters (under the lock): each one freed
        and allocated again."""
        for (index, nbytes), entry in self._reuse_counts.items():
            value = next(entry[0])                  # this reading takes a value too: not a block
            n = value - entry[1] - 1
            entry[1] = value
            if n:
                size = round_size(nbytes) if nbytes > MIN_BLOCK else MIN_BLOCK
                st = self._devices[index]
                p = st.small if size <= SMALL_LIMIT else st.large
                p.alloc_out += n * size
                p.req_out += n * nbytes
                p.count_out += n

    def take_reused(self) -> None:
        """Add the totals of the reused blocks now (``reuse`` does when ``reused`` grows long)."""
        with self._lock:
            self._take_reused()

    def _take_reused(self) -> None:
        """Add the totals of the blocks ``reuse`` handed on (under the lock): each one freed and allocated
        again."""
        reused = self.reused
        while reused:
            block = reused.pop()
            st = self._devices[block.device]
            size, requested = block.size, block.requested
            p = st.small if size <= SMALL_LIMIT else st.large
            p.alloc_out += size
            p.req_out += requested
            p.count_out += 1

    def free(self, block: Block) -> None:
        """Return a block to its device's cache (the memory stays reserved until ``empty_cache``)."""
        with self._lock:
            self._take_released()
            self._free(block)

    def release(self, block: Block) -> None:
        """``free(block)`` from a finalizer: the block is accounted and cached at the next allocation or reading
        of the statistics (all of which see it freed), without taking the lock now."""
        self.released.append(block)

    def free_after(self, block: Block, events: list) -> None:
        """Free ``block`` once every event of ``events`` has completed (at once if they all have)."""
        if all(e.query() for e in events):
            self.released.append(block)
        else:
            self.pending.append((block, events))

    def _take_pending(self, wait: bool = False) -> None:
        """Free the pending blocks whose events have completed (under the lock); ``wait``: wait for all."""
        still = []
        for block, events in self.pending:
            if wait:
                for e in events:
                    e.synchronize()
            if wait or all(e.query() for e in events):
                self._free(block)
            else:
                still.append((block, events))
        self.pending[:] = still

    def _take_released(self) -> None:
        """Free the released blocks and add the reused blocks' totals (under the lock)."""
        if self.pending:
            self._take_pending()
        if self.reused:
            self._take_reused()
        released = self.released
        devices = self._devices
        while released:                     # _free(block), written out: a backward releases many at once
            block = released.pop()
            st = devices[block.device]
            size, requested = block.size, block.requested
            p = st.small if size <= SMALL_LIMIT else st.large
            p.alloc -= size
            p.alloc_out += size
            p.req -= requested
            p.req_out += requested
            p.count -= 1
            p.count_out += 1
            st.cache[size].append(block.segment)

    def _free(self, block: Block) -> None:
        st = self._devices[block.device]
        size, requested = block.size, block.requested
        p = st.small if size <= SMALL_LIMIT else st.large
        p.alloc -= size
        p.alloc_out += size
        p.req -= requested
        p.req_out += requested
        p.count -= 1
        p.count_out += 1
        st.cache[size].append(block.segment)

    def limit(self, index: int) -> int | None:
        """The per-process limit of device ``index`` in bytes, or None when unlimited."""
        fraction = self._state(index).fraction
        if fraction is None:
            return None
        return int(fraction * self.driver.total_memory(index))

    def _new_segment(self, index: int, size: int, requested: int) -> Segment:
        st = self._state(index)
        limit = self.limit(index)
        if self.pending:
            self._take_pending()
        try:
            segment = self._try_alloc(index, size, limit)
        except DriverOutOfMemory:
            if self.pending:
                self._take_pending(wait=True)
            self._release_cache(index)
            st.counters["num_alloc_retries"] += 1
            try:
                segment = self._try_alloc(index, size, limit)
            except DriverOutOfMemory as exc:
                st.counters["num_ooms"] += 1
                raise OutOfMemoryError(self._oom_message(index, requested, size, limit, str(exc))) from None
        self._segments[index][segment.ptr] = segment
        p = st.pool(size)
        p.res += size
        p.seg += 1
        p.res_peak = max(p.res_peak, p.res)
        p.seg_peak = max(p.seg_peak, p.seg)
        peaks = st.all_peaks
        peaks["res"] = max(peaks["res"], st.reserved())
        peaks["seg"] = max(peaks["seg"], st.small.seg + st.large.seg)
        st.counters["num_device_alloc"] += 1
        return segment

    def _try_alloc(self, index: int, size: int, limit: int | None) -> Segment:
        reserved = self._state(index).reserved()
        if limit is not None and reserved + size > limit:
            raise DriverOutOfMemory(f"the per-process limit of {limit} bytes would be exceeded")
        return self.driver.raw_alloc(index, size)

    def _oom_message(self, index: int, requested: int, size: int, limit: int | None, why: str) -> str:
        st = self._state(index)
        allocated, reserved = st.allocated(), st.reserved()
        free, total = self.driver.mem_get_info(index)
        allowed = total if limit is None else limit
        from openreg.devices import privateuse1_name
        text = (f"{privateuse1_name()} out of memory. Tried to allocate {format_size(requested)} ({requested} "
                f"bytes, {size} bytes with rounding). Device {index} has a total capacity of "
                f"{format_size(total)} of which {format_size(free)} is free. {format_size(allocated)} "
                f"({allocated} bytes) is in use (allocated by openreg) and {format_size(reserved - allocated)} "
                f"is reserved by openreg but unallocated. ")
        if limit is not None:
            text += (f"The per-process limit is {format_size(allowed)} ({allowed} bytes), set by "
                     f"set_per_process_memory_fraction({st.fraction}). ")
        else:
            text += f"The limit is the device's total capacity, {allowed} bytes. "
        return text + f"({why})"

    # -- cache and limits ------------------------------------------------------------------------------
    def _release_cache(self, index: int) -> None:
        st = self._state(index)
        for size, segments in st.cache.items():
            p = st.pool(size)
            while segments:
                segment = segments.pop()
                segment.view = None
                self._segments[index].pop(segment.ptr, None)
                self.driver.raw_free(segment)
                p.res -= size
                p.res_out += size
                p.seg -= 1
                p.seg_out += 1
                st.counters["num_device_free"] += 1
        st.cache.clear()
        self.driver.release_cached(index)

    def empty_cache(self, index: int | None = None) -> None:
        """Give every cached (unused) block of one device, or all devices, back to the driver."""
        with self._lock:
            self._take_released()
            for i in (range(len(self._devices)) if index is None else (index,)):
                self._release_cache(i)

    def set_memory_fraction(self, fraction: float, index: int) -> None:
        with self._lock:
            self._state(index).fraction = float(fraction)

    def cached_bytes(self, index: int) -> int:
        with self._lock:
            self._take_released()
            return sum(size * len(segs) for size, segs in self._state(index).cache.items())

    # -- statistics ------------------------------------------------------------------------------------
    def snapshot(self) -> list:
        """One PyTorch-style snapshot dict per segment held from the driver (each holds one block)."""
        out = []
        with self._lock:
            self._take_released()
            for index, segments in enumerate(self._segments):
                cached = {id(seg) for segs in self._devices[index].cache.values() for seg in segs}
                for ptr in sorted(segments):
                    seg = segments[ptr]
                    active = id(seg) not in cached
                    size = seg.nbytes
                    out.append({"device": index, "address": ptr, "total_size": size,
                                "allocated_size": size if active else 0, "active_size": size if active else 0,
                                "stream": 0,
                                "segment_type": "small" if size <= SMALL_LIMIT else "large",
                                "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
                                "blocks": [{"address": ptr, "size": size,
                                            "state": "active_allocated" if active else "inactive",
                                            "frames": []}]})
        return out

    def stats(self, index: int) -> dict:
        """PyTorch-style flat statistics: ``"allocated_bytes.all.current"``, ``"num_ooms"`` ..."""
        with self._lock:
            self._take_released()
            self._take_counted()
            st = self._state(index)
            out: dict = {}
            for name in BYTE_STATS + COUNT_STATS:
                for pool in POOLS:
                    stat = st.stat(name, pool)
                    for field in ("current", "peak", "allocated", "freed"):
                        out[f"{name}.{pool}.{field}"] = getattr(stat, field)
            out.update(st.counters)
            return dict(sorted(out.items()))

    def reset_peak(self, index: int) -> None:
        with self._lock:
            self._take_released()
            self._state(index).reset_peaks()

    def reset_accumulated(self, index: int) -> None:
        with self._lock:
            self._take_released()
            self._take_counted()
            st = self._state(index)
            st.reset_totals()
            for key in st.counters:
                st.counters[key] = 0


class _StreamUses:
    """Takes the place of an allocation's allocator once ``record_stream`` marked it used by other streams: the
    allocation's finalizer (``allocator.released.append(allocation)``) then records an event on each of those
    streams, and the block goes back to the cache only when they have all completed."""

    __slots__ = ("allocator", "streams")

    def __init__(self, allocator: CachingAllocator, streams: list) -> None:
        self.allocator, self.streams = allocator, streams

    @property
    def released(self) -> _StreamUses:
        return self

    def append(self, block: Block) -> None:
        self.allocator.free_after(block, [s.record_event() for s in self.streams])


def record_stream(allocation, stream) -> None:
    """Mark ``allocation`` (a storage's ``DeviceAllocation``) as used by ``stream`` until it is freed."""
    owner = allocation.allocator
    if owner is None:       # memory owned elsewhere, or no bytes: nothing returns to the cache
        return
    if isinstance(owner, _StreamUses):
        if stream not in owner.streams:
            owner.streams.append(stream)
    else:
        allocation.allocator = _StreamUses(owner, [stream])


_allocator: CachingAllocator | None = None
_alloc_lock = threading.Lock()


def get_allocator() -> CachingAllocator:
    """The process's caching allocator over the selected driver."""
    global _allocator
    alloc = _allocator
    if alloc is None:
        from .driver_select import get_driver
        drv = get_driver()
        with _alloc_lock:
            if _allocator is None:
                _allocator = CachingAllocator(drv)
            alloc = _allocator
    return alloc


__all__ = ["Block", "CachingAllocator", "OutOfMemoryError", "format_size", "get_allocator", "record_stream",
           "round_size"]
