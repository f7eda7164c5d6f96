"""``openreg.utils.benchmark`` (PyTorch's ``torch.utils.benchmark``): ``Timer`` measures for real (a sleep takes
at least its length), ``Measurement`` has NumPy's quantiles, and ``Measurement.__repr__`` and ``Compare``'s
tables are PyTorch's, text for text, on the same times."""
import time

import numpy as np
import pytest

import openreg
from openreg.utils import benchmark

try:
    import torch
    import torch.utils.benchmark as torch_benchmark
except ImportError:  # pragma: no cover - CI has no torch: the NumPy and timing checks still run
    torch = torch_benchmark = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_measurement_statistics_are_numpys():
    rng = np.random.default_rng(0)
    raw = list(rng.uniform(1e-4, 3e-4, 9))
    m = benchmark.Measurement(100, raw, benchmark.TaskSpec("x", "pass", label="L", sub_label="s"))
    per_run = np.asarray(raw) / 100
    assert m.times == pytest.approx(list(per_run), rel=1e-15)
    assert m.median == pytest.approx(np.median(per_run), rel=1e-12)
    assert m.mean == pytest.approx(per_run.mean(), rel=1e-12)
    assert m.iqr == pytest.approx(np.quantile(per_run, 0.75) - np.quantile(per_run, 0.25), rel=1e-12)
    assert (m.title, m.label, m.num_threads, m.as_row_name, m.env) == ("L: s", "L", 1, "s", "Unspecified env")
    assert m.meets_confidence(1.0) and not m.meets_confidence(1e-6)


def test_timer_measures_real_time():
    # time.sleep sleeps at least its argument: a timer that does not run the statement, or runs it fewer times
    # than it reports, gives a smaller per-run time
    m = benchmark.Timer("time.sleep(0.002)", setup="import time").timeit(5)
    assert m.number_per_run == 5 and len(m.raw_times) == 1
    assert m.times[0] >= 0.002
    count = []
    m = benchmark.Timer("count.append(1)", globals={"count": count}).timeit(300)
    assert len(count) == 300 + 3                          # the warm-up runs max(300 // 100, 2) times first


def test_blocked_autorange_fills_min_run_time():
    calls = []
    t = benchmark.Timer("x + x", globals={"x": openreg.ones(8)}, label="add")
    m = t.blocked_autorange(callback=lambda number, block: calls.append((number, block)), min_run_time=0.02)
    assert sum(m.raw_times) >= 0.02 and len(m.raw_times) == len(calls)
    assert all(number == m.number_per_run for number, _ in calls)
    assert [b for _, b in calls] == m.raw_times


class _SimulatedClock:
    """A clock that only the timed statement moves: each run 'takes' the next of 1, 2, 3 ms, so block times are
    exact whatever the machine's load."""

    def __init__(self) -> None:
        self.now, self.runs = 0.0, 0

    def tick(self) -> None:
        self.runs += 1
        self.now += 1e-3 * (1 + (self.runs - 1) % 3)

    def __call__(self) -> float:
        return self.now


def test_adaptive_autorange_stops_at_max_run_time_or_when_steady():
    clock = _SimulatedClock()
    t = benchmark.Timer("clock.tick()", globals={"clock": clock}, timer=clock)
    m = t.adaptive_autorange(threshold=1e-9, max_run_time=0.05)
    # the block-size probe takes the first run (1 ms: one run per block); then an unreachable threshold: blocks of
    # 2, 3, 1, 2, ... ms until they pass max_run_time (0.05 s after 25 blocks)
    assert m.number_per_run == 1 and len(m.raw_times) == 25 and sum(m.raw_times) > 0.05
    clock = _SimulatedClock()
    m = benchmark.Timer("clock.tick()", globals={"clock": clock}, timer=clock).adaptive_autorange(threshold=10.0)
    # steady from the fourth block on, but min_run_time (0.01 s) needs a fifth: 2+3+1+2+3 ms
    assert len(m.raw_times) == 5 and abs(sum(m.raw_times) - 0.011) < 1e-12


def test_timer_sets_threads_and_namespace():
    before = openreg.get_num_threads()
    seen = []
    g = {"seen": seen}
    benchmark.Timer("seen.append((torch.get_num_threads(), torch))", globals=g, num_threads=3).timeit(2)
    assert seen[-1] == (3, openreg) and openreg.get_num_threads() == before
    assert set(g) == {"seen"}                             # the caller's dict is copied, never filled


def test_timer_errors_are_pytorchs():
    with pytest.raises(ValueError, match="only a `str` stmt"):
        benchmark.Timer(lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        benchmark.Timer("pass", global_setup="int x;")
    with pytest.raises(ValueError, match="Invalid language"):
        benchmark.Timer("pass", language="rust")
    with pytest.raises(NotImplementedError, match="c\\+\\+"):
        benchmark.Timer("pass", language="c++")
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        benchmark.Timer("pass").repeat()
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        benchmark.Compare([1.0])


def test_compare_merges_replicates_and_lays_out_tables():
    spec = benchmark.TaskSpec("x", "pass", label="ops", sub_label="[8]", description="add")
    ms = [benchmark.Measurement(10, [2e-5], spec), benchmark.Measurement(10, [4e-5], spec),
          benchmark.Measurement(1, [5e-6], benchmark.TaskSpec("y", "pass", label="ops", sub_label="[8]",
                                                              description="mul", num_threads=2)),
          benchmark.Measurement(1, [1e-3], benchmark.TaskSpec("z", "pass", label="other", description="d"))]
    assert str(benchmark.Compare(ms)) == (      # PyTorch's text for these measurements
        "[--------- ops ---------]\n"
        "           |  add  |  mul\n"
        "1 threads: --------------\n"
        "      [8]  |  3.0  |     \n"
        "2 threads: --------------\n"
        "      [8]  |       |  5.0\n"
        "\n"
        "Times are in microseconds (us).\n"
        "\n"
        "[--- other ---]\n"
        "         |   d \n"
        "1 threads: ----\n"
        "      z  |  1.0\n"
        "\n"
        "Times are in milliseconds (ms).\n")


def _random_specs(rng, make_spec, n):
    specs = []
    for _ in range(n):
        specs.append(make_spec(
            stmt=str(rng.choice(["x + y", "x * y", "f(x)\ng(x)"])), setup=str(rng.choice(["pass", "a = 1"])),
            label=str(rng.choice(["A", "B"])), sub_label=str(rng.choice(["[1]", "[100]", "big"])),
            description=str(rng.choice(["add", "mul", "c"])), env=str(rng.choice(["e1", "e2"])),
            num_threads=int(rng.choice([1, 2]))))
    return specs


@needs_torch
@pytest.mark.parametrize("seed", range(20))
def test_repr_and_compare_equal_pytorchs(seed):
    rng = np.random.default_rng(seed)
    ours, theirs = [], []
    for kw in _random_specs(rng, dict, int(rng.integers(1, 10))):
        if seed % 2:
            kw["env"] = None
        raw = list(rng.uniform(1, 1 + rng.uniform(0, 0.8), int(rng.integers(1, 8)))
                   * 10.0 ** rng.integers(-8, -2) * 10)
        ours.append(benchmark.Measurement(10, raw, benchmark.TaskSpec(**kw)))
        theirs.append(torch_benchmark.Measurement(10, raw, torch_benchmark.TaskSpec(**kw)))
        assert repr(ours[-1]).split("\n", 1)[1] == repr(theirs[-1]).split("\n", 1)[1]
        assert ours[-1].significant_figures == theirs[-1].significant_figures
    a, b = benchmark.Compare(ours), torch_benchmark.Compare(theirs)
    for enable in [(), ("trim_significant_figures",), ("highlight_warnings", "colorize"),
                   ("trim_significant_figures", "highlight_warnings")]:
        for name in enable:
            getattr(a, name)()
            getattr(b, name)()
        assert str(a) == str(b)
    a, b = benchmark.Compare(ours), torch_benchmark.Compare(theirs)
    a.colorize(rowwise=True)
    b.colorize(rowwise=True)
    assert str(a) == str(b)


def test_timer_runs_on_the_device(devices):
    x = openreg.ones(64, device=devices)
    m = benchmark.Timer("x * 2", globals={"x": x}).timeit(10)
    assert m.times[0] > 0 and m.number_per_run == 10


def test_sleep_time_is_not_lost_to_the_clock():
    start = time.perf_counter()
    m = benchmark.Timer("time.sleep(0.001)", setup="import time").blocked_autorange(min_run_time=0.01)
    assert m.median >= 0.001 and time.perf_counter() - start >= sum(m.raw_times)
