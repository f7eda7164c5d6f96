"""``openreg.multiprocessing``: Python's ``multiprocessing`` (everything it exports), with CPU tensors shared
between processes through shared memory (``Tensor.share_memory_()``, ``Module.share_memory()``; see
``openreg.multiprocessing.reductions``), and PyTorch's ``spawn``/``start_processes``.

>>> import openreg.multiprocessing as mp
>>> mp.get_sharing_strategy() in mp.get_all_sharing_strategies(), callable(mp.Process)
(True, True)
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback
from multiprocessing import *  # PyTorch's torch.multiprocessing re-exports them too

from . import reductions

reductions.register()

# Both of PyTorch's Linux strategies are served by named POSIX shared memory blocks, unlinked by their owner.
_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = "file_descriptor"


def get_all_sharing_strategies() -> set:
    """The sharing strategies ``set_sharing_strategy`` accepts."""
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    """The current sharing strategy's name."""
    return _strategy


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose the sharing strategy (both share CPU tensors through named shared-memory blocks)."""
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"sharing strategy must be one of {sorted(_STRATEGIES)}, got {new_strategy!r}")
    _strategy = new_strategy


class ProcessException(Exception):
    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a nonzero code or a signal."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i: int, args: tuple, error_queue) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:  # noqa: BLE001  (whatever the function raised is reported to the parent)
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes started by ``start_processes``; ``join()`` until all are done."""

    def __init__(self, processes: list, error_queues: list):
        self.processes, self.error_queues = processes, error_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> list:
        return [p.pid for p in self.processes]

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the processes; True once all ended well. The first failure terminates the others and raises
        ``ProcessRaisedException`` (with the child's traceback) or ``ProcessExitedException``."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            i = self.sentinels.pop(sentinel)
            p = self.processes[i]
            p.join()
            if p.exitcode != 0 and failed is None:
                failed = i
        if failed is None:
            return not self.sentinels
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        p = self.processes[failed]
        if self.error_queues[failed].empty():
            code = p.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(f"process {failed} terminated with signal {name}", failed, p.pid,
                                             code, name)
            raise ProcessExitedException(f"process {failed} terminated with exit code {code}", failed, p.pid, code)
        original = self.error_queues[failed].get()
        raise ProcessRaisedException(f"\n\n-- Process {failed} terminated with the following error:\n{original}",
                                     failed, p.pid)


def start_processes(fn, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
                    start_method: str = "spawn"):
    """Run ``fn(i, *args)`` in ``nprocs`` new processes (``i`` = 0 .. nprocs-1); with ``join`` wait for them,
    else return their ``ProcessContext``."""
    ctx = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        q = ctx.SimpleQueue()
        p = ctx.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(q)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
          start_method: str = "spawn"):
    """``start_processes`` with the spawn start method (PyTorch's ``torch.multiprocessing.spawn``)."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)


__all__ = ["ProcessContext", "ProcessExitedException", "ProcessRaisedException", "get_all_sharing_strategies",
           "get_sharing_strategy", "set_sharing_strategy", "spawn", "start_processes"]
__all__ += multiprocessing.__all__
