"""Time to parse 300 distinct operator schemas without the parser's cache (startup cost of registration).

Run with ``ci/bench`` (or ``python benchmarks/bench_schema.py``). Wave one's target: under 50 ms for 300.
The best of several rounds is reported, so load on a shared machine shows less.
"""
from __future__ import annotations

import time

from openreg._dispatch.schema import parse_schema


def schema_texts(n: int = 300) -> list[str]:
    texts = [f"bench{i}::op_{i}.overload(Tensor self, Tensor other, *, Scalar alpha=1, int[] dims=[0, 1], "
             f"Tensor(a!) out) -> Tensor(a!)" for i in range(n)]
    return texts


def main() -> None:
    texts = schema_texts()
    uncached = parse_schema.__wrapped__
    best = float("inf")
    for _ in range(7):
        start = time.perf_counter()
        for t in texts:
            uncached(t)
        best = min(best, time.perf_counter() - start)
    print(f"schema parsing: 300 schemas in {best * 1e3:.1f} ms (best of 7; target < 50 ms)")


if __name__ == "__main__":
    main()
