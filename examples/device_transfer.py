"""Device-transfer demo: moves data CPU -> device:0 -> device:1 -> CPU, makes a pinned non-blocking copy
on a stream, runs ``abs`` and ``inductor._mm_plus_mm`` on the device and checks everything against the CPU
and NumPy, printing memory statistics before and after and which driver ran. Exits 1 on any mismatch.

    python examples/device_transfer.py        # (ci/demo runs it)

On a machine with a usable GPU (CuPy installed) the cuda driver is used automatically; elsewhere the
emulated driver. ``OPENREG_DRIVER=cuda|emulated`` forces one. On a machine with one device (the common
GPU machine, or ``OPENREG_EMULATED_DEVICES=1``) the device -> device step is a copy between two streams of
device 0, and the output says so.
"""
from __future__ import annotations

import gc
import sys
import time

import numpy as np

import openreg

pu = openreg.privateuseone
results: list[tuple[str, bool, str]] = []
TWO = pu.is_available() and pu.device_count() >= 2
SECOND = "privateuseone:1" if TWO else "privateuseone:0"     # the other device, or device 0 again
S = "dev:1" if TWO else "dev:0"
DEVICES = range(2 if TWO else 1)


def check(name: str, ok: bool, detail: str = "") -> None:
    results.append((name, bool(ok), detail))


def host(t) -> np.ndarray:
    return np.array(t.cpu().tolist())


def memory_rows(label: str) -> list[tuple]:
    rows = []
    for i in DEVICES:
        s = pu.memory_stats(i)
        rows.append((label, f"{pu.get_device_name(i)}", s["allocated_bytes.all.current"],
                     s["reserved_bytes.all.current"], s["allocated_bytes.all.peak"], s["allocation.all.current"]))
    return rows


def round_trips(rng) -> None:
    a = rng.standard_normal((256, 128)).astype(np.float32)
    x = openreg.tensor(a)
    d0 = x.to("privateuseone:0")
    if TWO:
        d1, hop = d0.to(SECOND), "dev:0 -> dev:1"
    else:  # one device: the device -> device copy runs between two streams of device 0
        side = pu.Stream(0)
        side.wait_stream(pu.current_stream(0))
        with pu.stream(side):
            d1 = openreg.empty_like(d0).copy_(d0)
        pu.current_stream(0).wait_stream(side)
        hop = "dev:0 -> dev:0 on a second stream (one device)"
    back = d1.cpu()
    check(f"CPU -> {hop} -> CPU (float32 256x128)", np.array_equal(np.asarray(back), a),
          f"devices {d0.device}, {d1.device}")
    t = d1.t()
    check(f"strided (transposed) {S} -> dev:0 -> CPU", np.array_equal(host(t.to("privateuseone:0")), a.T),
          f"stride {t.stride()}")
    conv = openreg.tensor(a.astype(np.float64)).to(device=SECOND, dtype=openreg.float16)
    check(f"float64 CPU -> float16 {S} -> CPU", np.array_equal(host(conv), a.astype(np.float16)),
          "dtype conversion on transfer")


def pinned_copy(rng) -> None:
    a = rng.standard_normal(1 << 16).astype(np.float32)
    src = openreg.tensor(a).pin_memory()
    s = pu.Stream(openreg.device(SECOND).index)
    start, end = pu.Event(enable_timing=True), pu.Event(enable_timing=True)
    with pu.stream(s):
        dst = openreg.empty(a.shape[0], device=SECOND)
        start.record()
        dst.copy_(src, non_blocking=True)
        end.record()
        back = openreg.empty(a.shape[0]).pin_memory()
        back.copy_(dst, non_blocking=True)
    s.synchronize()
    ok = src.is_pinned() and back.is_pinned() and np.array_equal(np.asarray(back), a)
    check("pinned non-blocking copy on a stream (256 KiB)", ok, f"{start.elapsed_time(end):.3f} ms host->{S}")


def device_ops(rng) -> list[tuple]:
    for dtype in (openreg.float32, openreg.int64):
        a = (rng.standard_normal((64, 33)) * 100).astype(dtype.numpy)
        d = openreg.tensor(a, device=SECOND).abs()
        cpu = openreg.tensor(a).abs()
        check(f"abs on {S} ({dtype.name})", np.array_equal(host(d), np.asarray(cpu)) and
              np.array_equal(np.asarray(cpu), np.abs(a)), "vs CPU and NumPy")
    m, k1, k2, n = 96, 64, 48, 80
    a, b, c, dd = (rng.standard_normal(s).astype(np.float32) for s in ((m, k1), (k1, n), (m, k2), (k2, n)))
    dev = [openreg.tensor(v, device="privateuseone:0") for v in (a, b, c, dd)]
    out = openreg.empty(m, n, device="privateuseone:0")
    openreg.ops.inductor._mm_plus_mm(*dev, out)
    cpu_out = openreg.empty(m, n)
    openreg.ops.inductor._mm_plus_mm(*[openreg.tensor(v) for v in (a, b, c, dd)], cpu_out)
    err = float(np.max(np.abs(host(out) - np.asarray(cpu_out))))
    ref = float(np.max(np.abs(np.asarray(cpu_out) - (a @ b + c @ dd))))
    check(f"_mm_plus_mm on dev:0 ({m}x{k1}@{k1}x{n} + {m}x{k2}@{k2}x{n})", err < 1e-3 and ref < 1e-3,
          f"max |dev - CPU| = {err:.2e}")
    return memory_rows("during (live tensors)")


def print_table(title: str, header: tuple, rows: list[tuple]) -> None:
    cells = [tuple(str(c) for c in header)] + [tuple(str(c) for c in r) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    line = "+-" + "-+-".join("-" * w for w in widths) + "-+"
    print(f"\n{title}\n{line}")
    for j, r in enumerate(cells):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
        if j == 0:
            print(line)
    print(line)


def main() -> int:
    if not pu.is_available():
        print(f"no usable device on the {pu.driver()} driver", file=sys.stderr)
        return 1
    gc.collect()
    pu.empty_cache()
    before = memory_rows("before")
    baseline = [pu.memory_allocated(i) for i in DEVICES]
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    round_trips(rng)
    pinned_copy(rng)
    during = device_ops(rng)
    elapsed = time.perf_counter() - t0
    during += memory_rows("after run")
    gc.collect()
    pu.empty_cache()
    after = memory_rows("after free")
    check("memory back to baseline after frees", [pu.memory_allocated(i) for i in DEVICES] == baseline and
          all(pu.memory_reserved(i) == pu.memory_allocated(i) for i in DEVICES),
          f"allocated {baseline} -> {[pu.memory_allocated(i) for i in DEVICES]}")

    print(f"openreg device-transfer demo -- driver: {pu.driver()}, devices: {pu.device_count()}, "
          f"total memory per device: {pu.mem_get_info(0)[1] / 2**30:.2f} GiB")
    print_table("Checks", ("check", "result", "detail"),
                [(n, "ok" if ok else "MISMATCH", d) for n, ok, d in results])
    print_table("Memory statistics (bytes)", ("when", "device", "allocated", "reserved", "peak allocated",
                                              "live blocks"), before + during + after)
    failed = [n for n, ok, _ in results if not ok]
    print(f"\n{len(results) - len(failed)}/{len(results)} checks passed on the {pu.driver()} driver in "
          f"{elapsed * 1000:.1f} ms")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
