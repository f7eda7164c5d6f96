"""``openreg.distributed``: importable so that programs written for ``torch.distributed`` load, but openreg has no
distributed training yet. ``is_available()`` and ``is_initialized()`` are False; ``init_process_group`` (and
``new_group``) raise a ``RuntimeError`` saying so; what needs a process group raises PyTorch's errors for a
program that never initialised one (``get_rank()``: ``ValueError``).

>>> import openreg.distributed as dist
>>> dist.is_available(), dist.is_initialized()
(False, False)
>>> dist.init_process_group("gloo")
Traceback (most recent call last):
    ...
RuntimeError: openreg.distributed.init_process_group: distributed training is not available yet in openreg ...
"""
from __future__ import annotations

import enum
import os
from datetime import timedelta
from typing import Any, NoReturn

__all__ = [
    "Backend", "GroupMember", "ReduceOp", "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce",
    "all_to_all", "barrier", "broadcast", "broadcast_object_list", "default_pg_timeout", "destroy_process_group",
    "gather", "get_backend", "get_rank", "get_world_size", "init_process_group", "irecv", "is_available",
    "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available", "is_torchelastic_launched",
    "isend", "new_group", "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "send",
]

default_pg_timeout = timedelta(minutes=30)
_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


def _unavailable(what: str) -> NoReturn:
    raise RuntimeError(f"openreg.distributed.{what}: distributed training is not available yet in openreg (no "
                       f"process groups, no collective communication backend); run the program in a single process")


class ReduceOp(enum.Enum):
    """The reduction of a collective (``ReduceOp.SUM`` ...)."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"
    PREMUL_SUM = "premul_sum"


class Backend(str):
    """Backend names as in PyTorch (``Backend.GLOO``, ``Backend.NCCL``); none is available in openreg."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name: str) -> Backend:  # noqa: PYI034
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")  # noqa: TRY004
        return super().__new__(cls, name.lower())


class GroupMember:
    """``GroupMember.WORLD`` is the default group: None until a process group exists (never, in openreg)."""

    WORLD = None
    NON_GROUP_MEMBER = -100


def is_available() -> bool:
    """False: openreg has no distributed package yet."""
    return False


def is_initialized() -> bool:
    """False: no default process group can exist."""
    return False


def is_nccl_available() -> bool:
    return False


def is_gloo_available() -> bool:
    return False


def is_mpi_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    """Whether the process was started by torchelastic (``torchrun``), read from the environment as PyTorch does."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def init_process_group(backend: str | None = None, init_method: str | None = None, timeout: timedelta | None = None,
                       world_size: int = -1, rank: int = -1, store: Any = None, group_name: str = "",
                       pg_options: Any = None, device_id: Any = None) -> NoReturn:
    """Raises ``RuntimeError``: distributed training is not available yet in openreg."""
    _unavailable("init_process_group")


def new_group(ranks: Any = None, timeout: timedelta | None = None, backend: str | None = None,
              pg_options: Any = None, **kwargs: Any) -> NoReturn:
    """Raises ``RuntimeError``: distributed training is not available yet in openreg."""
    _unavailable("new_group")


def _needs_group(*args: Any, **kwargs: Any) -> NoReturn:
    raise ValueError(_NOT_INITIALIZED)


def get_rank(group: Any = None) -> int:
    """Raises ``ValueError`` as PyTorch does without an initialised default process group."""
    _needs_group()


def get_world_size(group: Any = None) -> int:
    """Raises ``ValueError`` as PyTorch does without an initialised default process group."""
    _needs_group()


def get_backend(group: Any = None) -> str:
    """Raises ``ValueError`` as PyTorch does without an initialised default process group."""
    _needs_group()


def destroy_process_group(group: Any = None) -> None:
    """Raises ``AssertionError`` as PyTorch does when there is no process group to destroy."""
    raise AssertionError("Process group cannot be None")


# The collectives need the default process group, which never exists here.
barrier = all_reduce = all_gather = all_gather_into_tensor = all_gather_object = broadcast = _needs_group
broadcast_object_list = reduce = reduce_scatter = reduce_scatter_tensor = scatter = gather = _needs_group
all_to_all = send = recv = isend = irecv = _needs_group
