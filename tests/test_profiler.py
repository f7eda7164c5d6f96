"""``openreg.profiler`` (PyTorch's profiler recipe stopped at ``No module named openreg.profiler``): operator
events with their counts and shapes, ``record_function`` nesting (self time = total minus children), memory of
returned tensors, schedules and ``on_trace_ready``, the Chrome trace and the table; the same operator names and
counts as PyTorch where both run one ``aten`` operator per call."""
import json
import time

import numpy as np
import pytest

import openreg
from openreg.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

try:
    import torch
    import torch.profiler
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_operators_ranges_shapes_and_counts():
    x = openreg.ones(4, 3)
    w = openreg.ones(3, 2)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof, record_function("outer"):
        for _ in range(3):
            y = (x @ w).relu()
        with record_function("inner"):
            time.sleep(0.02)
            z = y.exp()
    avg = {e.key: e for e in prof.key_averages()}
    assert set(avg) == {"outer", "inner", "aten::mm", "aten::relu", "aten::exp"}
    assert (avg["aten::mm"].count, avg["aten::relu"].count, avg["aten::exp"].count) == (3, 3, 1)
    assert avg["aten::mm"].input_shapes == [[4, 3], [3, 2]]
    # self time excludes the children; the sleep belongs to "inner" itself
    assert avg["inner"].self_cpu_time_total >= 20000
    assert avg["inner"].cpu_time_total >= avg["inner"].self_cpu_time_total + avg["aten::exp"].cpu_time_total - 1e-3
    children = avg["aten::mm"].cpu_time_total + avg["aten::relu"].cpu_time_total + avg["inner"].cpu_time_total
    assert avg["outer"].self_cpu_time_total == pytest.approx(avg["outer"].cpu_time_total - children, abs=1e-3)
    assert np.allclose(z.numpy(), np.exp(np.full((4, 2), 3.0)))
    grouped = prof.key_averages(group_by_input_shape=True)
    assert any(e.key == "aten::mm" and e.input_shapes == [[4, 3], [3, 2]] for e in grouped)
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=2)
    lines = table.splitlines()
    assert "Self CPU %" in lines[1] and "# of Calls" in lines[1] and lines[-1].startswith("Self CPU time total:")
    assert lines[3].split()[0] == "inner" and len(lines) == 7  # sorted, two rows
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        prof.key_averages().table(sort_by="nonsense")


def test_backward_operators_and_memory():
    x = openreg.ones(8, 16, requires_grad=True)
    with profile(profile_memory=True) as prof:
        (x * 2).sum().backward()
    avg = {e.key: e for e in prof.key_averages()}
    mul = avg["aten::mul.Scalar"]
    assert mul.count == 2 and "aten::sum" in avg  # forward and backward
    assert mul.self_cpu_memory_usage == 2 * 8 * 16 * 4  # two new (8, 16) float32 tensors
    assert avg["aten::expand"].self_cpu_memory_usage == 0  # a view allocates nothing
    assert "CPU Mem" in prof.key_averages().table()
    assert not prof._recording


def test_outside_profile_nothing_is_recorded_and_errors():
    with record_function("alone"):
        openreg.ones(2).exp()
    with pytest.raises(NotImplementedError, match="with_flops"):
        profile(with_flops=True)
    with pytest.warns(UserWarning, match="not traced separately"):
        profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])


def test_schedule_actions_and_on_trace_ready(tmp_path):
    s = schedule(skip_first=1, wait=1, warmup=1, active=2, repeat=2)
    acts = [s(i) for i in range(10)]
    assert acts == [ProfilerAction.NONE, ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD,
                    ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE, ProfilerAction.WARMUP,
                    ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE]
    saved = []

    def ready(p):
        names = [e.name for e in p.events()]
        saved.append((p.step_num, sorted(n for n in names if n.startswith("ProfilerStep")), names.count("aten::exp")))
        p.export_chrome_trace(str(tmp_path / f"t{p.step_num}.json"))

    x = openreg.ones(2)
    with profile(schedule=s, on_trace_ready=ready) as p:
        for _ in range(10):
            x.exp()
            p.step()
    assert saved == [(5, ["ProfilerStep#3", "ProfilerStep#4"], 2), (9, ["ProfilerStep#7", "ProfilerStep#8"], 2)]
    trace = json.loads((tmp_path / "t5.json").read_text())
    names = [e["name"] for e in trace["traceEvents"]]
    assert names.count("aten::exp") == 2 and all(e["ph"] == "X" and e["dur"] >= 0 for e in trace["traceEvents"])


def test_with_stack_shows_the_caller():
    def caller():
        return openreg.ones(2).exp()

    with profile(with_stack=True) as prof:
        caller()
    (e,) = [e for e in prof.key_averages(group_by_stack_n=2) if e.key == "aten::exp"]
    assert e.stack[0].endswith(": caller") and __file__ in e.stack[0]


@needs_torch
def test_operator_names_and_counts_match_torch():
    counts = []
    for lib, P in ((openreg, openreg.profiler), (torch, torch.profiler)):
        a = lib.ones(3, 4)
        with P.profile(activities=[P.ProfilerActivity.CPU], record_shapes=True) as prof, P.record_function("block"):
            a.exp()
            a.exp()
            a.neg()
        counts.append(sorted((e.key, e.count) for e in prof.key_averages(group_by_input_shape=True)))
    assert counts[0] == counts[1]
