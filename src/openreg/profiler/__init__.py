"""``openreg.profiler``: operator-level CPU profiling, as ``torch.profiler``.

Inside ``profile`` every operator call (``aten::...``, below autograd, so backward's operators too) and every
``record_function`` range becomes an event with its wall time (and, with ``record_shapes``, its inputs' shapes;
with ``profile_memory``, the bytes of the new tensors it returned; with ``with_stack``, the Python frames that
called it). ``key_averages()`` groups events by name (and shapes or stack) and ``table()`` prints them as
PyTorch does; ``export_chrome_trace`` writes the Chrome trace format. ``schedule``/``on_trace_ready``/``step``
profile chosen steps of a loop.

Device kernels are not timed separately: on the emulated driver they run on the host inside the operator
call, so their time is part of the operator's CPU time and the device columns stay zero (as PyTorch's
profiler reports when it cannot trace CUDA). Not implemented (``NotImplementedError``): ``with_flops``,
``with_modules``, ``experimental_config``, ``execution_trace_observer``.

>>> import openreg
>>> from openreg.profiler import profile, record_function, ProfilerActivity
>>> x = openreg.ones(4, 4)
>>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
...     with record_function("block"):
...         y = (x @ x).relu()
>>> sorted(e.key for e in prof.key_averages())
['aten::mm', 'aten::relu', 'block']
>>> [e.input_shapes for e in prof.key_averages(group_by_input_shape=True) if e.key == "aten::mm"]
[[[4, 4], [4, 4]]]
>>> "Self CPU time total" in prof.key_averages().table(sort_by="cpu_time_total")
True
"""
from __future__ import annotations

import enum
import functools
import gzip
import json
import os
import socket
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ..utils.dispatch_mode import DispatchMode

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """What to trace: ``CPU`` (operators and ranges); the device activities are accepted with a warning."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a ``schedule`` asks for at a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """The step -> action function of a profiling cycle: ``skip_first`` steps, then cycles of ``wait`` idle,
    ``warmup`` and ``active`` recorded steps (the last one saves), ``repeat`` times (0: forever).

    >>> s = schedule(wait=1, warmup=1, active=2)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError("profiler schedule: step must be non-negative")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait and step < wait:
            return ProfilerAction.NONE
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return fn


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


class _Event:
    """One operator call or range: name, start/end (ns), its children, shapes, bytes, stack."""

    __slots__ = ("children", "end", "input_shapes", "kind", "memory", "name", "stack", "start", "tid")

    def __init__(self, name: str, kind: str, start: int, tid: int):
        self.name, self.kind, self.start, self.end, self.tid = name, kind, start, start, tid
        self.children: list[_Event] = []
        self.input_shapes: list = []
        self.memory = 0
        self.stack: list[str] = []

    @property
    def cpu_time_total(self) -> float:
        return (self.end - self.start) / 1000.0

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.children)

    @property
    def cpu_memory_usage(self) -> int:
        return self.memory + sum(c.cpu_memory_usage for c in self.children)


class FunctionEventAvg:
    """Totals over the events of one key (name, and shapes or stack when grouped by them); times in us."""

    def __init__(self, key: str):
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes: list = []
        self.stack: list[str] = []
        self.is_user_annotation = False
        # no device kernel is traced (see the module docstring): the device columns are zero
        self.device_time_total = self.self_device_time_total = 0.0
        self.device_memory_usage = self.self_device_memory_usage = 0

    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)
    cuda_memory_usage = property(lambda self: self.device_memory_usage)
    self_cuda_memory_usage = property(lambda self: self.self_device_memory_usage)
    privateuse1_time_total = privateuseone_time_total = xpu_time_total = cuda_time_total
    self_privateuse1_time_total = self_privateuseone_time_total = self_xpu_time_total = self_cuda_time_total

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self) -> float:
        return 0.0

    cuda_time = device_time

    def add(self, e: _Event) -> None:
        self.count += 1
        self.cpu_time_total += e.cpu_time_total
        self.self_cpu_time_total += e.self_cpu_time_total
        self.cpu_memory_usage += e.cpu_memory_usage
        self.self_cpu_memory_usage += e.memory
        self.input_shapes = e.input_shapes
        self.stack = e.stack
        self.is_user_annotation = e.kind == "user_annotation"

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_fmt_time(self.self_cpu_time_total)} "
                f"cpu_time={_fmt_time(self.cpu_time)} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of ``FunctionEventAvg`` with PyTorch's ``table``."""

    def __init__(self, events: Iterable = (), *, profile_memory: bool = False, with_shapes: bool = False,
                 with_stack: bool = False):
        super().__init__(events)
        self._profile_memory, self._with_shapes, self._with_stack = profile_memory, with_shapes, with_stack

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for e in self:
            total.count += e.count
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
            total.cpu_memory_usage += e.cpu_memory_usage
            total.self_cpu_memory_usage += e.self_cpu_memory_usage
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        """The events as a text table (sorted by the attribute ``sort_by``, descending; at most ``row_limit``
        rows; negative: all), with PyTorch's columns and totals line."""
        rows = list(self)
        if sort_by is not None:
            if rows and not hasattr(rows[0], sort_by):
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        total_self = self.self_cpu_time_total
        name_w = min(max([len(e.key) for e in rows] + [4]) + 4, max_name_column_width)
        cols = [("Name", name_w), ("Self CPU %", 12), ("Self CPU", 12), ("CPU total %", 12), ("CPU total", 12),
                ("CPU time avg", 12)]
        if self._profile_memory:
            cols += [("CPU Mem", 12), ("Self CPU Mem", 12)]
        cols.append(("# of Calls", 12))
        if self._with_shapes:
            cols.append(("Input Shapes", min(max([len(str(e.input_shapes)) for e in rows] + [12]) + 2,
                                             max_shapes_column_width)))
        if self._with_stack:
            cols.append(("Source Location", max_src_column_width))
        sep = "".join("-" * w + "  " for _, w in cols)

        def line(cells):
            out = []
            for (title, w), c in zip(cols, cells):
                c = c if len(c) <= w else c[:w - 3] + "..."
                out.append(c.ljust(w) if title in ("Input Shapes", "Source Location") else c.rjust(w))
            return "  ".join(out) + "  "

        def pct(v):
            return f"{100.0 * v / total_self:.2f}%" if total_self > 0 else "0.00%"

        lines = [header] if header else []
        lines += [sep, line([t for t, _ in cols]), sep]
        for e in rows:
            cells = [e.key, pct(e.self_cpu_time_total), _fmt_time(e.self_cpu_time_total), pct(e.cpu_time_total),
                     _fmt_time(e.cpu_time_total), _fmt_time(e.cpu_time)]
            if self._profile_memory:
                cells += [_fmt_memory(e.cpu_memory_usage), _fmt_memory(e.self_cpu_memory_usage)]
            cells.append(str(e.count))
            if self._with_shapes:
                cells.append(str(e.input_shapes))
            if self._with_stack:
                cells.append(e.stack[0] if e.stack else "")
            lines.append(line(cells))
            if self._with_stack:
                for frame in e.stack[1:]:
                    lines.append(line([""] * (len(cols) - 1) + [frame]))
        lines += [sep, f"Self CPU time total: {_fmt_time(total_self)}", ""]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _fmt_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _fmt_memory(nbytes: int) -> str:
    for unit, size in (("Gb", 1024 ** 3), ("Mb", 1024 ** 2), ("Kb", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} b"


def _shapes(args: Iterable) -> list:
    out = []
    for a in args:
        if hasattr(a, "_ks") and hasattr(a, "shape"):
            out.append(list(a.shape))
        elif isinstance(a, (list, tuple)) and a and all(hasattr(t, "_ks") for t in a):
            out.append([list(t.shape) for t in a])
        else:
            out.append([])
    return out


def _storage_key(t: Any) -> Any:
    try:
        return t.untyped_storage().data_ptr(), t.device
    except Exception:  # noqa: BLE001 - a tensor without storage (meta) holds no memory
        return None


def _new_bytes(args: Iterable, out: Any) -> int:
    seen = {_storage_key(a) for a in args if hasattr(a, "_ks")}
    outs = out if isinstance(out, (list, tuple)) else (out,)
    total = 0
    for t in outs:
        if hasattr(t, "_ks") and getattr(t.device, "type", "cpu") == "cpu":
            key = _storage_key(t)
            if key is not None and key not in seen:
                seen.add(key)
                total += t.untyped_storage().nbytes()
    return total


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_NN_DIR = _PKG_DIR + "nn" + os.sep


def _user_stack() -> list[str]:
    frames = traceback.extract_stack()[:-1]
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(frames) if _shown(f.filename)]


def _shown(filename: str) -> bool:
    """User frames and openreg.nn's (PyTorch's stacks show torch/nn/modules); not the dispatcher's internals."""
    if filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    return not path.startswith(_PKG_DIR) or path.startswith(_NN_DIR)


class _Recorder(DispatchMode):
    """The dispatch mode that turns operator calls into events of the active profile."""

    def __init__(self, prof: profile):
        self.prof = prof

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        prof = self.prof
        if not prof._recording or threading.get_ident() != prof._tid:
            return func(*args, **kwargs)
        e = prof._open(func.name(), "cpu_op")
        if prof.record_shapes:
            e.input_shapes = _shapes(args)
        try:
            out = func(*args, **kwargs)
        finally:
            prof._close(e)
        if prof.profile_memory:
            e.memory = _new_bytes(args, out)
        return out


_active: list[profile] = []


class profile:
    """Profile the operators run inside (``with profile(...) as prof:``, or ``start()``/``stop()``).

    Arguments as ``torch.profiler.profile``: ``activities`` (``ProfilerActivity.CPU`` is what is traced),
    ``schedule`` (step -> ``ProfilerAction``; default: record every step), ``on_trace_ready`` (called with the
    profiler when a recorded cycle ends), ``record_shapes``, ``profile_memory``, ``with_stack``.
    """

    def __init__(self, *, activities: Iterable[ProfilerActivity] | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[[profile], Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None,
                 execution_trace_observer: Any = None, acc_events: bool = False, use_cuda: bool | None = None,
                 custom_trace_id_callback: Callable[[], str] | None = None):
        for flag, name in ((with_flops, "with_flops"), (with_modules, "with_modules"),
                           (experimental_config is not None, "experimental_config"),
                           (execution_trace_observer is not None, "execution_trace_observer")):
            if flag:
                raise NotImplementedError(f"openreg.profiler.profile: {name} is not supported (operators are timed "
                                          "on the CPU; no FLOP counts, module hierarchy or execution traces)")
        acts = set(activities) if activities is not None else {ProfilerActivity.CPU}
        if use_cuda:
            warnings.warn("The use_cuda parameter is deprecated; use activities=[ProfilerActivity.CUDA]",
                          FutureWarning, stacklevel=2)
            acts.add(ProfilerActivity.CUDA)
        device_acts = acts - {ProfilerActivity.CPU}
        if device_acts:
            warnings.warn(f"openreg.profiler: {', '.join(sorted(a.name for a in device_acts))} kernels are not "
                          "traced separately; device operators are recorded as CPU operator events", stacklevel=2)
        self.activities = acts
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self._recording = False
        self._events: list[_Event] = []
        self._stack: list[_Event] = []
        self._mode: _Recorder | None = None
        self._tid = threading.get_ident()
        self._step_range: _Event | None = None
        self._t0 = 0
        self._trace_id_cb = custom_trace_id_callback

    # --- event bookkeeping -------------------------------------------------------------------------
    def _open(self, name: str, kind: str) -> _Event:
        e = _Event(name, kind, time.perf_counter_ns(), threading.get_ident())
        if self.with_stack:
            e.stack = _user_stack()
        (self._stack[-1].children if self._stack else self._events).append(e)
        self._stack.append(e)
        return e

    def _close(self, e: _Event) -> None:
        e.end = time.perf_counter_ns()
        while self._stack:
            top = self._stack.pop()
            if top is e:
                break
            top.end = e.end

    # --- control -----------------------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self.stop()
        return False

    def start(self) -> None:
        """Begin profiling at step 0 of the schedule."""
        self._mode = _Recorder(self)
        self._mode.__enter__()
        _active.append(self)
        self._t0 = time.perf_counter_ns()
        self.current_action = self.schedule(self.step_num)
        self._begin_step()

    def stop(self) -> None:
        """End profiling; a cycle being recorded is handed to ``on_trace_ready``."""
        if self._mode is None:
            return
        self._end_step()
        recording = self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        self._recording = False
        self._mode.__exit__(None, None, None)
        self._mode = None
        if self in _active:
            _active.remove(self)
        if recording and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def step(self) -> None:
        """Mark the end of a step: advance the schedule (saving a finished cycle through ``on_trace_ready``)."""
        prev = self.current_action
        self._end_step()
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if prev == ProfilerAction.RECORD_AND_SAVE and self.on_trace_ready is not None:
            self._recording = False
            self.on_trace_ready(self)
        if prev in (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE, ProfilerAction.WARMUP) and \
                self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE) and \
                not self.acc_events:
            self._events, self._stack = [], []
        self._begin_step()

    def _begin_step(self) -> None:
        self._recording = self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if self._recording and self.schedule is not _always_record:
            self._step_range = self._open(f"ProfilerStep#{self.step_num}", "user_annotation")

    def _end_step(self) -> None:
        if self._step_range is not None:
            self._close(self._step_range)
            self._step_range = None

    # --- results -----------------------------------------------------------------------------------
    def _all(self) -> list[_Event]:
        out, todo = [], list(self._events)
        while todo:
            e = todo.pop(0)
            out.append(e)
            todo[:0] = e.children
        return out

    def events(self) -> list[_Event]:
        """Every recorded event (ranges and operators), in start order."""
        return sorted(self._all(), key=lambda e: e.start)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """Events averaged per name (and per input shapes / the first ``group_by_stack_n`` frames)."""
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError("key_averages(group_by_input_shape=True) needs profile(record_shapes=True)")
        groups: dict = {}
        for e in self.events():
            key = (e.name,)
            if group_by_input_shape:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            avg = groups.get(key)
            if avg is None:
                avg = groups[key] = FunctionEventAvg(e.name)
            avg.add(e)
            if group_by_stack_n > 0:
                avg.stack = e.stack[:group_by_stack_n]
        return EventList(groups.values(), profile_memory=self.profile_memory, with_shapes=group_by_input_shape,
                         with_stack=group_by_stack_n > 0)

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto); ``.gz`` paths are gzipped."""
        pid = os.getpid()
        trace = []
        for e in self.events():
            ev = {"ph": "X", "cat": e.kind, "name": e.name, "pid": pid, "tid": e.tid,
                  "ts": (e.start - self._t0) / 1000.0, "dur": e.cpu_time_total, "args": {}}
            if self.record_shapes and e.kind == "cpu_op":
                ev["args"]["Input Dims"] = e.input_shapes
            if self.with_stack and e.stack:
                ev["args"]["Call stack"] = ";".join(e.stack)
            trace.append(ev)
        doc = {"schemaVersion": 1, "traceEvents": trace, "displayTimeUnit": "ms"}
        if self._trace_id_cb is not None:
            doc["trace_id"] = self._trace_id_cb()
        data = json.dumps(doc)
        if str(path).endswith(".gz"):
            with gzip.open(path, "wt") as f:
                f.write(data)
        else:
            with open(path, "w") as f:
                f.write(data)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write ``frame;frame;...;op value`` lines (flame-graph input) for the recorded stacks."""
        if not self.with_stack:
            raise RuntimeError("export_stacks needs profile(with_stack=True)")
        with open(path, "w") as f:
            for e in self.events():
                if e.stack:
                    value = int(getattr(e, metric) if metric != "self_cpu_time_total" else e.self_cpu_time_total)
                    f.write(";".join(reversed(e.stack)) + f";{e.name} {value}\n")


class record_function:
    """A named range (context manager or decorator) that groups the operators run inside it in the profile."""

    def __init__(self, name: str, args: str | None = None):
        self.name, self.args = name, args
        self._event: _Event | None = None
        self._prof: profile | None = None

    def __enter__(self):
        prof = _active[-1] if _active else None
        if prof is not None and prof._recording and threading.get_ident() == prof._tid:
            self._prof, self._event = prof, prof._open(self.name, "user_annotation")
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if self._event is not None:
            self._prof._close(self._event)
            self._event = self._prof = None
        return False

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*a, **k):
            with record_function(self.name, self.args):
                return fn(*a, **k)
        return wrapper


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False) -> Callable[[profile], None]:
    """An ``on_trace_ready`` that writes each cycle's Chrome trace as
    ``<dir_name>/<worker>.<ms>.pt.trace.json[.gz]`` (TensorBoard's profiler plugin layout)."""

    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler
