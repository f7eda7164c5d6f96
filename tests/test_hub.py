"""openreg.hub and openreg.utils.model_zoo with file:// URLs and a local hubconf.py (no network here)."""
import hashlib
import os
import zipfile

import pytest

import openreg
from openreg import hub
from openreg.utils import model_zoo

try:
    import torch
    import torch.hub
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")


@pytest.fixture
def hub_dir(tmp_path):
    old = hub._hub_dir
    hub.set_dir(tmp_path / "hub")
    yield tmp_path
    hub._hub_dir = old


def _checkpoint(path):
    openreg.save({"w": openreg.arange(3.0), "b": openreg.ones(1)}, str(path))
    return "file://" + str(path)


def test_get_dir_default(monkeypatch):
    old = hub._hub_dir
    hub._hub_dir = None
    try:
        monkeypatch.setenv("TORCH_HOME", "/some/torch_home")
        assert hub.get_dir() == "/some/torch_home/hub"
        monkeypatch.delenv("TORCH_HOME")
        monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
        assert hub.get_dir() == "/xdg/torch/hub"
    finally:
        hub._hub_dir = old


@needs_torch
def test_get_dir_matches_torch(monkeypatch):
    old = hub._hub_dir
    hub._hub_dir = None
    try:
        monkeypatch.setenv("TORCH_HOME", "/th")
        assert hub.get_dir() == torch.hub.get_dir()
    finally:
        hub._hub_dir = old


def test_load_state_dict_from_url_downloads_once(hub_dir, capsys):
    url = _checkpoint(hub_dir / "model.pth")
    sd = hub.load_state_dict_from_url(url, progress=False)
    assert sd["w"].tolist() == [0.0, 1.0, 2.0]
    cached = hub_dir / "hub" / "checkpoints" / "model.pth"
    assert cached.exists() and "Downloading" in capsys.readouterr().err
    os.remove(hub_dir / "model.pth")                   # the cached copy serves the next call
    assert hub.load_state_dict_from_url(url, progress=False)["b"].tolist() == [1.0]
    assert "Downloading" not in capsys.readouterr().err
    assert model_zoo.load_url(url, progress=False)["b"].tolist() == [1.0]


def test_model_dir_file_name_map_location(hub_dir, devices):
    url = _checkpoint(hub_dir / "model.pth")
    sd = hub.load_state_dict_from_url(url, model_dir=str(hub_dir / "md"), file_name="other.pth",
                                      map_location=devices, progress=False, weights_only=True)
    assert (hub_dir / "md" / "other.pth").exists()
    assert sd["w"].device.type == openreg.device(devices).type


def test_check_hash(hub_dir):
    src = hub_dir / "src.pth"
    _checkpoint(src)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    good = hub_dir / f"net-{digest[:8]}.pth"
    os.rename(src, good)
    assert hub.load_state_dict_from_url("file://" + str(good), check_hash=True, progress=False)["w"].shape == (3,)
    bad = hub_dir / "net-00000000.pth"
    _checkpoint(bad)
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.load_state_dict_from_url("file://" + str(bad), check_hash=True, progress=False)
    assert not (hub_dir / "hub" / "checkpoints" / "net-00000000.pth").exists()    # nothing left behind
    assert os.listdir(hub_dir / "hub" / "checkpoints") == [good.name]


def test_download_url_to_file_and_missing_url(tmp_path):
    src = tmp_path / "a.bin"
    src.write_bytes(b"abc" * 1000)
    hub.download_url_to_file("file://" + str(src), str(tmp_path / "b.bin"), progress=False)
    assert (tmp_path / "b.bin").read_bytes() == b"abc" * 1000
    with pytest.raises(OSError):
        hub.download_url_to_file("file://" + str(tmp_path / "nope"), str(tmp_path / "c.bin"), progress=False)
    assert not (tmp_path / "c.bin").exists()


def test_legacy_zip_checkpoint(hub_dir):
    inner = hub_dir / "inner.pth"
    _checkpoint(inner)
    with zipfile.ZipFile(hub_dir / "legacy.zip", "w") as zf:
        zf.write(inner, "inner.pth")
    sd = hub.load_state_dict_from_url("file://" + str(hub_dir / "legacy.zip"), progress=False)
    assert sd["w"].tolist() == [0.0, 1.0, 2.0]


@needs_torch
def test_torch_checkpoint_through_hub(hub_dir):
    torch.save({"w": torch.arange(4.0)}, str(hub_dir / "t.pth"))
    sd = hub.load_state_dict_from_url("file://" + str(hub_dir / "t.pth"), progress=False, weights_only=True)
    assert sd["w"].tolist() == [0.0, 1.0, 2.0, 3.0]


HUBCONF = '''
"""A local hub repository."""
dependencies = ["numpy"]
import openreg
from helper import scale


def tiny(width=2, pretrained=False):
    """A tiny linear model."""
    model = openreg.nn.Linear(width, 1)
    model.scale = scale
    return model


def _private():
    return None
'''


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "hubconf.py").write_text(HUBCONF)
    (tmp_path / "helper.py").write_text("scale = 3\n")
    return tmp_path


def test_local_hub_repo(repo):
    model = hub.load(str(repo), "tiny", width=4, source="local")
    assert isinstance(model, openreg.nn.Linear) and model.in_features == 4 and model.scale == 3
    assert hub.list(str(repo)) == ["tiny"]
    assert hub.help(str(repo), "tiny") == "A tiny linear model."
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        hub.load(str(repo), "nope", source="local")


def test_hub_errors(repo, tmp_path):
    (repo / "hubconf.py").write_text('dependencies = ["no_such_package_xyz"]\n')
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_package_xyz"):
        hub.load(str(repo), "tiny", source="local")
    with pytest.raises(ValueError, match='Unknown source: "web"'):
        hub.load(str(repo), "tiny", source="web")
    with pytest.raises(RuntimeError, match="does not download repositories from GitHub"):
        hub.load("pytorch/vision", "resnet18")
    with pytest.raises(FileNotFoundError, match="hubconf.py"):
        hub.load(str(tmp_path / "empty"), "tiny", source="local")


def test_module_level_names_programs_import_match_torch():
    # timm: from torch.hub import HASH_REGEX, download_url_to_file, urlparse
    torch = pytest.importorskip("torch")
    for name in ("ENV_GITHUB_TOKEN", "ENV_TORCH_HOME", "ENV_XDG_CACHE_HOME", "DEFAULT_CACHE_DIR"):
        assert getattr(openreg.hub, name) == getattr(torch.hub, name)
    assert openreg.hub.HASH_REGEX.pattern == torch.hub.HASH_REGEX.pattern
    for name in ("urlparse", "urlopen", "Request", "HTTPError", "URLError"):
        assert getattr(openreg.hub, name) is getattr(torch.hub, name)
    assert openreg.hub.HASH_REGEX.search("resnet18-f37072fd.pth").group(1) == "f37072fd"
