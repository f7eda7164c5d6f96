"""``openreg.utils.tensorboard``: ``torch.utils.tensorboard``'s ``SummaryWriter``, writing TensorBoard event files
through the ``tensorboard`` package's own event writer and protocol buffers.

As in PyTorch, importing this module needs ``tensorboard`` (1.15 or later) and raises ``ImportError`` without it.

>>> import tempfile
>>> try:
...     from openreg.utils.tensorboard import SummaryWriter
... except ImportError:                      # the optional 'tensorboard' package is not installed
...     SummaryWriter = None
>>> if SummaryWriter is not None:
...     with SummaryWriter(tempfile.mkdtemp()) as writer:
...         writer.add_scalar("loss", 0.25, global_step=0)
"""
from __future__ import annotations

try:
    import tensorboard
    from tensorboard.summary.writer.event_file_writer import EventFileWriter  # noqa: F401
except ImportError as exc:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from exc


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


if _version_tuple(getattr(tensorboard, "__version__", "0")) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
