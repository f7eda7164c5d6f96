"""openreg.utils.tensorboard.SummaryWriter: event files read back with tensorboard's EventAccumulator."""
import os
import subprocess
import sys

import numpy as np
import pytest

import openreg

tensorboard = pytest.importorskip("tensorboard", reason="the optional 'tensorboard' package is not installed")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from openreg.utils.tensorboard import SummaryWriter

try:
    import torch
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
except ImportError:  # pragma: no cover - CI has no torch
    torch = TorchWriter = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")


def _read(path):
    acc = EventAccumulator(str(path), size_guidance={"images": 0, "histograms": 0, "tensors": 0, "scalars": 0})
    acc.Reload()
    return acc


def test_import_error_without_tensorboard():
    code = ("import sys; sys.modules['tensorboard'] = None\n"
            "try:\n    import openreg.utils.tensorboard\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "TensorBoard logging requires TensorBoard version 1.15 or above"


def test_scalars_text_and_close(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        for step in range(3):
            w.add_scalar("loss", openreg.tensor(1.0 / (step + 1)), step)
        w.add_scalar("acc", 0.5, 7, new_style=True)
        w.add_text("note", "hello **world**", 1)
        assert w.get_logdir() == str(tmp_path)
    acc = _read(tmp_path)
    assert [(e.step, round(e.value, 6)) for e in acc.Scalars("loss")] == [(0, 1.0), (1, 0.5), (2, 0.333333)]
    assert acc.Tensors("acc")[0].tensor_proto.float_val == [0.5]
    text = acc.Tensors("note/text_summary")[0]
    assert text.step == 1 and text.tensor_proto.string_val == [b"hello **world**"]
    with pytest.raises(AssertionError, match="one element"):
        SummaryWriter(str(tmp_path / "x")).add_scalar("bad", openreg.ones(2), 0)


def test_add_scalars_writes_one_run_per_tag(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalars("run/loss", {"train": 1.0, "val": 2.0}, 0)
        w.add_scalars("run/loss", {"train": 0.5, "val": 1.5}, 1)
    for tag, values in (("train", [1.0, 0.5]), ("val", [2.0, 1.5])):
        acc = _read(tmp_path / f"run_loss_{tag}")
        assert [e.value for e in acc.Scalars("run/loss")] == values


def test_histogram(tmp_path):
    values = openreg.tensor(np.random.default_rng(0).normal(size=1000).astype(np.float32))
    with SummaryWriter(str(tmp_path)) as w:
        w.add_histogram("w", values, 3)
        w.add_histogram("u", np.arange(10.0), 4, bins=5)
    h = _read(tmp_path).Histograms("w")[0]
    arr = values.numpy().astype(np.float64)
    assert h.step == 3 and h.histogram_value.num == 1000
    assert h.histogram_value.min == pytest.approx(arr.min()) and h.histogram_value.max == pytest.approx(arr.max())
    assert h.histogram_value.sum == pytest.approx(arr.sum(), rel=1e-6)
    assert h.histogram_value.sum_squares == pytest.approx(arr.dot(arr), rel=1e-6)
    assert sum(h.histogram_value.bucket) == 1000
    u = _read(tmp_path).Histograms("u")[0].histogram_value
    assert sum(u.bucket) == 10 and u.bucket_limit[-1] == 9.0


@pytest.mark.parametrize(("shape", "fmt"), [((3, 4, 5), "CHW"), ((4, 5, 3), "HWC"), ((4, 5), "HW"), ((1, 4, 5), "CHW")])
def test_image(tmp_path, shape, fmt):
    img = openreg.rand(*shape)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_image("img", img, 2, dataformats=fmt)
    ev = _read(tmp_path).Images("img")[0]
    assert (ev.step, ev.height, ev.width) == (2, 4, 5)
    assert ev.encoded_image_string.startswith(b"\x89PNG")
    import zlib
    data = ev.encoded_image_string
    idat = data[data.index(b"IDAT") + 4:data.index(b"IEND") - 8]
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(4, 1 + 5 * 3)[:, 1:].reshape(4, 5, 3)
    a = img.numpy()
    hwc = {"CHW": lambda: a.transpose(1, 2, 0), "HWC": lambda: a, "HW": lambda: a[:, :, None]}[fmt]()
    want = np.clip(np.broadcast_to(hwc, (4, 5, 3)) * 255, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(raw, want)


@pytest.mark.parametrize(("n", "fmt"), [(3, "NCHW"), (10, "NCHW"), (2, "NHWC")])
def test_add_images_grid(tmp_path, n, fmt):
    batch = openreg.rand(n, 3, 4, 5) if fmt == "NCHW" else openreg.rand(n, 4, 5, 1)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_images("imgs", batch, 1, dataformats=fmt)
    ev = _read(tmp_path).Images("imgs")[0]
    cols = min(n, 8)
    assert (ev.height, ev.width) == (4 * -(-n // cols), 5 * cols)
    if TorchWriter is not None:
        with TorchWriter(str(tmp_path / "t")) as tw:
            tw.add_images("imgs", torch.from_numpy(batch.numpy()), 1, dataformats=fmt)
        tev = _read(tmp_path / "t").Images("imgs")[0]
        assert (tev.height, tev.width) == (ev.height, ev.width)


def test_hparams(tmp_path):
    from tensorboard.plugins.hparams import metadata
    with SummaryWriter(str(tmp_path)) as w:
        w.add_hparams({"lr": 0.1, "bs": 16, "opt": "sgd", "nesterov": True}, {"hparam/acc": 0.9}, run_name="r1")
    acc = _read(tmp_path / "r1")
    content = acc.PluginTagToContent("hparams")
    start = metadata.parse_session_start_info_plugin_data(content[metadata.SESSION_START_INFO_TAG])
    assert start.hparams["lr"].number_value == 0.1 and start.hparams["opt"].string_value == "sgd"
    assert start.hparams["nesterov"].bool_value is True
    exp = metadata.parse_experiment_plugin_data(content[metadata.EXPERIMENT_TAG])
    assert [m.name.tag for m in exp.metric_infos] == ["hparam/acc"]
    assert acc.Scalars("hparam/acc")[0].value == pytest.approx(0.9)
    with pytest.raises(TypeError, match="should be dictionary"):
        w.add_hparams([("lr", 1)], {})


def test_default_log_dir_and_purge_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_exp")
    w.close()
    (run,) = os.listdir(tmp_path / "runs")
    assert run.endswith("_exp") and w.get_logdir() == os.path.join("runs", run)
    w2 = SummaryWriter(str(tmp_path / "p"), purge_step=5)
    w2.add_scalar("x", 1.0, 5)
    w2.flush()
    w2.close()
    assert _read(tmp_path / "p").Scalars("x")[0].step == 5
    with pytest.raises(NotImplementedError, match="add_graph"):
        w2.add_graph(None)


@needs_torch
def test_same_events_as_torch(tmp_path):
    rng = np.random.default_rng(1)
    vals = rng.normal(size=200).astype(np.float32)
    img = rng.random((3, 4, 5)).astype(np.float32)
    for lib, writer in (("o", SummaryWriter), ("t", TorchWriter)):
        with writer(str(tmp_path / lib)) as w:
            w.add_scalar("s", 0.25, 1)
            w.add_histogram("h", vals, 2)
            w.add_image("i", img, 3)
            w.add_text("t", "txt", 4)
    o, t = _read(tmp_path / "o"), _read(tmp_path / "t")
    assert o.Tags()["scalars"] == t.Tags()["scalars"] and o.Tags()["tensors"] == t.Tags()["tensors"]
    assert [e.value for e in o.Scalars("s")] == [e.value for e in t.Scalars("s")]
    ho, ht = o.Histograms("h")[0].histogram_value, t.Histograms("h")[0].histogram_value
    assert (ho.num, ho.min, ho.max) == (ht.num, ht.min, ht.max)
    assert ho.sum == pytest.approx(ht.sum) and sum(ho.bucket) == sum(ht.bucket)
    io, it = o.Images("i")[0], t.Images("i")[0]
    assert (io.height, io.width) == (it.height, it.width)
    assert o.Tensors("t/text_summary")[0].tensor_proto.string_val == t.Tensors("t/text_summary")[0].tensor_proto.string_val
