"""``SummaryWriter``: scalars, histograms, images, text and hyperparameters as TensorBoard events.

>>> import tempfile
>>> try:
...     from openreg.utils.tensorboard import SummaryWriter
... except ImportError:                      # the optional 'tensorboard' package is not installed
...     SummaryWriter = None
>>> if SummaryWriter is not None:
...     writer = SummaryWriter(tempfile.mkdtemp())
...     writer.add_text("note", "hello", 0)
...     writer.close()
"""
from __future__ import annotations

import os
import socket
import struct
import time
import zlib
from datetime import datetime
from typing import Any

import numpy as np
from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2
from tensorboard.plugins.hparams import metadata as hp_metadata
from tensorboard.plugins.text import plugin_data_pb2 as text_plugin_data_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

__all__ = ["FileWriter", "SummaryWriter"]


def _as_array(x: Any) -> np.ndarray:
    """A NumPy array of a tensor (any device), an array, a number or a list."""
    from ...tensor import Tensor
    if isinstance(x, Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _scalar(value: Any) -> float:
    arr = _as_array(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} and "
                             f"{arr.ndim} dimensions.")
    return float(arr)


# -- summaries ---------------------------------------------------------------------------------------------------

def _plugin_metadata(name: str, content: bytes = b"") -> summary_pb2.SummaryMetadata:
    return summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=name,
                                                                                          content=content))


def scalar(name: str, value: Any, new_style: bool = False, double_precision: bool = False) -> summary_pb2.Summary:
    v = _scalar(value)
    if not new_style:
        return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=name, simple_value=v)])
    if double_precision:
        tensor = tensor_pb2.TensorProto(double_val=[v], dtype="DT_DOUBLE")
    else:
        tensor = tensor_pb2.TensorProto(float_val=[v], dtype="DT_FLOAT")
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=name, tensor=tensor,
                                                                metadata=_plugin_metadata("scalars"))])


def _tensorflow_bins() -> np.ndarray:
    """TensorFlow's default histogram edges: +-1e-12 growing by 10% up to 1e20, and 0."""
    pos = [1e-12]
    while pos[-1] < 1e20:
        pos.append(pos[-1] * 1.1)
    pos_arr = np.array(pos)
    return np.concatenate([-pos_arr[::-1], [0.0], pos_arr])


def histogram(name: str, values: Any, bins: Any = "tensorflow", max_bins: int | None = None) -> summary_pb2.Summary:
    vals = _as_array(values).astype(np.float64).reshape(-1)
    if vals.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    edges = _tensorflow_bins() if isinstance(bins, str) and bins == "tensorflow" else bins
    counts, limits = np.histogram(vals, bins=edges)
    if max_bins is not None and counts.size > max_bins:          # merge neighbouring bins
        group = -(-counts.size // max_bins)
        pad = (-counts.size) % group
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(axis=1)
        limits = np.concatenate([limits[:-1][::group], limits[-1:]])
    nonzero = np.flatnonzero(counts)
    first, last = int(nonzero[0]), int(nonzero[-1])
    # the bucket before the first filled one (empty, or a zero one) bounds the range from below
    lo = max(first - 1, 0)
    bucket = counts[lo:last + 1]
    bucket_limit = limits[lo + 1:last + 2]
    if first == 0:
        bucket = np.concatenate([[0], bucket])
        bucket_limit = np.concatenate([limits[:1], bucket_limit])
    proto = summary_pb2.HistogramProto(min=float(vals.min()), max=float(vals.max()), num=int(vals.size),
                                       sum=float(vals.sum()), sum_squares=float(vals.dot(vals)),
                                       bucket_limit=bucket_limit.tolist(), bucket=bucket.tolist())
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=name, histo=proto)])


def _to_hwc(img: np.ndarray, dataformats: str) -> np.ndarray:
    dataformats = dataformats.upper()
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(f"You can not use the same dimension shordhand twice. input_format: {dataformats}")
    if img.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different. tensor shape: {img.shape}, "
                             f"input_format: {dataformats}")
    if dataformats not in ("CHW", "HWC", "HW"):
        raise ValueError(f"add_image: dataformats must be 'CHW', 'HWC' or 'HW', got '{dataformats}'")
    if dataformats == "HW":
        img = img[:, :, None]
    elif dataformats == "CHW":
        img = img.transpose(1, 2, 0)
    if img.shape[2] == 1:
        img = np.repeat(img, 3, axis=2)
    return img


def _grid(batch: np.ndarray, dataformats: str, ncols: int = 8) -> np.ndarray:
    """N images (``"NCHW"`` or ``"NHWC"``, 1 or 3 channels) tiled row by row, up to ``ncols`` per row, as CHW."""
    dataformats = dataformats.upper()
    if dataformats not in ("NCHW", "NHWC") or batch.ndim != 4:
        raise AssertionError(f"add_images: dataformats must be 'NCHW' or 'NHWC' for a 4-D batch, got "
                             f"'{dataformats}' and shape {batch.shape}")
    if dataformats == "NHWC":
        batch = batch.transpose(0, 3, 1, 2)
    if batch.shape[1] == 1:
        batch = np.repeat(batch, 3, axis=1)
    if batch.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, c, h, w = batch.shape
    cols = min(n, ncols)
    rows = -(-n // cols)
    padded = np.zeros((rows * cols, c, h, w), dtype=batch.dtype)
    padded[:n] = batch
    return padded.reshape(rows, cols, c, h, w).transpose(2, 0, 3, 1, 4).reshape(c, rows * h, cols * w)


def _png(img: np.ndarray) -> bytes:
    """PNG bytes of an HWC uint8 image with 3 (RGB) or 4 (RGBA) channels."""
    h, w, c = img.shape
    raw = b"".join(b"\x00" + img[row].tobytes() for row in range(h))    # filter type 0 per row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", w, h, 8, 2 if c == 3 else 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def image(tag: str, tensor: Any, rescale: float = 1, dataformats: str = "CHW") -> summary_pb2.Summary:
    arr = _as_array(tensor)
    scale = 1 if arr.dtype == np.uint8 else 255
    hwc = _to_hwc(arr, dataformats)
    if hwc.shape[2] not in (3, 4):
        raise ValueError(f"add_image: an image has 1, 3 or 4 channels, got {hwc.shape[2]}")
    pixels = np.clip(hwc.astype(np.float32) * scale, 0, 255).astype(np.uint8)
    h, w, c = pixels.shape
    img = summary_pb2.Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=_png(pixels))
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, image=img)])


def text(tag: str, text: str) -> summary_pb2.Summary:
    content = text_plugin_data_pb2.TextPluginData(version=0).SerializeToString()
    tensor = tensor_pb2.TensorProto(dtype="DT_STRING", string_val=[text.encode("utf_8")],
                                    tensor_shape=tensor_shape_pb2.TensorShapeProto(
                                        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=1)]))
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag + "/text_summary", tensor=tensor,
                                                                metadata=_plugin_metadata("text", content))])


def _hparams_summary(tag: str, **data: Any) -> summary_pb2.Summary:
    content = plugin_data_pb2.HParamsPluginData(version=0, **data).SerializeToString()
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag,
                                                               metadata=_plugin_metadata("hparams", content))])


def hparams(hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None) -> tuple:
    """The experiment, session-start and session-end summaries of one run (TensorBoard's hparams plugin)."""
    from ...tensor import Tensor
    if type(hparam_dict) is not dict or type(metric_dict) is not dict:
        raise TypeError("parameter: hparam_dict and metric_dict should be dictionary.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary.")
    for k, values in domains.items():
        if k not in hparam_dict or not isinstance(values, list) or \
                not all(isinstance(v, type(hparam_dict[k])) for v in values):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    start = plugin_data_pb2.SessionStartInfo()
    infos = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, Tensor):
            v = _as_array(v).item()
        if isinstance(v, bool):
            start.hparams[k].bool_value = v
            kind = api_pb2.DATA_TYPE_BOOL
        elif isinstance(v, (int, float)):
            start.hparams[k].number_value = v
            kind = api_pb2.DATA_TYPE_FLOAT64
        elif isinstance(v, str):
            start.hparams[k].string_value = v
            kind = api_pb2.DATA_TYPE_STRING
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")  # noqa: TRY004
        info = api_pb2.HParamInfo(name=k, type=kind)
        if k in domains:
            for d in domains[k]:
                entry = info.domain_discrete.values.add()
                if isinstance(d, bool):
                    entry.bool_value = d
                elif isinstance(d, (int, float)):
                    entry.number_value = d
                else:
                    entry.string_value = str(d)
        infos.append(info)
    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    exp = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.STATUS_SUCCESS)
    return (_hparams_summary(hp_metadata.EXPERIMENT_TAG, experiment=exp),
            _hparams_summary(hp_metadata.SESSION_START_INFO_TAG, session_start_info=start),
            _hparams_summary(hp_metadata.SESSION_END_INFO_TAG, session_end_info=end))


# -- writers -----------------------------------------------------------------------------------------------------

class FileWriter:
    """Events and summaries into one event file of ``log_dir`` (TensorBoard's ``EventFileWriter``)."""

    def __init__(self, log_dir: str, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event: event_pb2.Event, step: int | None = None, walltime: float | None = None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary: summary_pb2.Summary, global_step: int | None = None,
                    walltime: float | None = None) -> None:
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()


class SummaryWriter:
    """Write TensorBoard summaries to event files in ``log_dir`` (default ``runs/<Mon DD_HH-MM-SS>_<host><comment>``).

    ``purge_step``: TensorBoard discards the events of an earlier run at and after this step (a restart after a
    crash). Events are queued (``max_queue``) and written at least every ``flush_secs`` seconds, on ``flush()``
    and on ``close()``; use the writer as a context manager to close it.
    """

    def __init__(self, log_dir: str | None = None, comment: str = "", purge_step: int | None = None,
                 max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        if not log_dir:
            current_time = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", current_time + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] | None = None
        self._get_file_writer()

    def _get_file_writer(self) -> FileWriter:
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step, self.purge_step = self.purge_step, None
                self.file_writer.add_event(event_pb2.Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(event_pb2.Event(
                    step=step, session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START)))
        return self.file_writer

    def get_logdir(self) -> str:
        """The directory the event files are written to."""
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value: Any, global_step: int | None = None,
                   walltime: float | None = None, new_style: bool = False, double_precision: bool = False) -> None:
        """One value (a number or a one-element tensor) of the curve ``tag`` at ``global_step``."""
        self._get_file_writer().add_summary(scalar(tag, scalar_value, new_style, double_precision),
                                            global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict[str, Any], global_step: int | None = None,
                    walltime: float | None = None) -> None:
        """Several curves in one chart: each ``tag`` goes to the run ``<log_dir>/<main_tag>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = base + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(path)
            if writer is None:
                writer = FileWriter(path, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[path] = writer
            writer.add_summary(scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag: str, values: Any, global_step: int | None = None, bins: Any = "tensorflow",
                      walltime: float | None = None, max_bins: int | None = None) -> None:
        """The distribution of ``values``; ``bins`` as ``numpy.histogram``'s, or ``"tensorflow"`` (exponential)."""
        self._get_file_writer().add_summary(histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_image(self, tag: str, img_tensor: Any, global_step: int | None = None, walltime: float | None = None,
                  dataformats: str = "CHW") -> None:
        """An image (``dataformats`` ``"CHW"``, ``"HWC"`` or ``"HW"``; 1, 3 or 4 channels): floats in [0, 1] or
        uint8 in [0, 255], PNG-encoded."""
        self._get_file_writer().add_summary(image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step: int | None = None,
                 walltime: float | None = None) -> None:
        """A text (Markdown) entry, shown under ``<tag>/text_summary``."""
        self._get_file_writer().add_summary(text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None,
                    run_name: str | None = None, global_step: int | None = None) -> None:
        """A run of hyperparameters and its metrics, in the run ``<log_dir>/<run_name>`` (default: the time)."""
        exp, start, end = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as w:
            for summary in (exp, start, end):
                w.file_writer.add_summary(summary)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    def _missing(self, name: str) -> NotImplementedError:
        return NotImplementedError(f"openreg's SummaryWriter.{name} is not implemented (it writes scalars, "
                                   f"histograms, images, text and hparams)")

    def add_images(self, tag: str, img_tensor: Any, global_step: int | None = None, walltime: float | None = None,
                   dataformats: str = "NCHW") -> None:
        """A batch of images (``"NCHW"`` or ``"NHWC"``, 1 or 3 channels) as one image, 8 to a row."""
        grid = _grid(_as_array(img_tensor), dataformats)
        self._get_file_writer().add_summary(image(tag, grid, dataformats="CHW"), global_step, walltime)

    def add_figure(self, *args: Any, **kwargs: Any) -> None:
        raise self._missing("add_figure")

    def add_graph(self, *args: Any, **kwargs: Any) -> None:
        raise self._missing("add_graph")

    def add_embedding(self, *args: Any, **kwargs: Any) -> None:
        raise self._missing("add_embedding")

    def add_audio(self, *args: Any, **kwargs: Any) -> None:
        raise self._missing("add_audio")

    def add_video(self, *args: Any, **kwargs: Any) -> None:
        raise self._missing("add_video")

    def add_pr_curve(self, *args: Any, **kwargs: Any) -> None:
        raise self._missing("add_pr_curve")

    def flush(self) -> None:
        """Write every queued event to disk."""
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every event file; a later ``add_*`` opens a new one."""
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> SummaryWriter:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
