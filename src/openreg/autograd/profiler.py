"""``openreg.autograd.profiler``: the older spelling of the profiler (``torch.autograd.profiler``):
``profile(enabled=True, use_cuda=False, record_shapes=False, profile_memory=False, with_stack=False)``,
``record_function``; results as ``openreg.profiler``'s (``key_averages().table()``, ``export_chrome_trace``).

>>> import openreg
>>> with openreg.autograd.profiler.profile() as prof:
...     _ = openreg.ones(3).exp()
>>> [e.key for e in prof.key_averages()]
['aten::ones', 'aten::exp']
"""
from __future__ import annotations

from typing import Any

from ..profiler import EventList, FunctionEventAvg, ProfilerActivity, record_function
from ..profiler import profile as _profile

__all__ = ["EventList", "FunctionEventAvg", "profile", "record_function"]


class profile(_profile):
    """``torch.autograd.profiler.profile``: ``enabled=False`` records nothing; ``use_cuda``/``use_device`` ask
    for device tracing (see ``openreg.profiler``)."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: str | None = None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config: Any = None, acc_events: bool = False,
                 custom_trace_id_callback: Any = None):
        acts = [ProfilerActivity.CPU] if use_cpu else []
        if use_device is not None:
            acts.append(ProfilerActivity.PrivateUse1)
        super().__init__(activities=acts, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config, acc_events=acc_events, use_cuda=use_cuda,
                         custom_trace_id_callback=custom_trace_id_callback)
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.start()
        return self

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    @property
    def self_cpu_time_total(self) -> float:
        return self.key_averages().self_cpu_time_total

    def total_average(self) -> FunctionEventAvg:
        return self.key_averages().total_average()
