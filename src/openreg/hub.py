"""``openreg.hub``: ``torch.hub``'s checkpoint downloads and local model repositories.

* ``load_state_dict_from_url`` downloads a checkpoint (through ``urllib``: ``http(s)://``, ``file://``, ...) into
  ``<get_dir()>/checkpoints`` unless it is there already, checks the SHA-256 prefix in its name when asked
  (``resnet18-f37072fd.pth``), and loads it with ``openreg.load`` (PyTorch's checkpoint format,
  ``map_location``, ``weights_only``).
* ``get_dir()`` is PyTorch's cache directory (``$TORCH_HOME/hub``, ``$TORCH_HOME`` defaulting to
  ``$XDG_CACHE_HOME/torch`` or ``~/.cache/torch``), so checkpoints PyTorch downloaded are reused; ``set_dir``
  changes it.
* ``load(dir, model, source="local")`` imports ``dir/hubconf.py``, checks its ``dependencies`` and calls the entry
  point ``model``; ``list``/``help`` accept such a local directory too. Repositories on GitHub (the default
  ``source="github"``) are not fetched: openreg raises a ``RuntimeError`` saying so (clone the repository and
  load it with ``source="local"``).

>>> import os, tempfile, openreg
>>> d = tempfile.mkdtemp()
>>> openreg.save({"w": openreg.ones(2)}, os.path.join(d, "m.pth"))
>>> openreg.hub.set_dir(os.path.join(d, "hub"))
>>> sd = openreg.hub.load_state_dict_from_url("file://" + os.path.join(d, "m.pth"), progress=False)
>>> sd["w"].tolist(), os.listdir(os.path.join(d, "hub", "checkpoints"))
([1.0, 1.0], ['m.pth'])
"""
from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from typing import Any

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

# names programs import from torch.hub (timm: ``from torch.hub import HASH_REGEX, download_url_to_file, urlparse``)
from urllib.error import HTTPError, URLError  # noqa: E402,F401
from urllib.parse import urlparse  # noqa: E402,F401
from urllib.request import Request, urlopen  # noqa: E402,F401

ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
READ_DATA_CHUNK = 128 * 1024
_hub_dir: str | None = None


def _get_torch_home() -> str:
    xdg = os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR)
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(xdg, "torch")))


def get_dir() -> str:
    """The hub cache directory: the one ``set_dir`` gave, else ``$TORCH_HOME/hub``."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d: str | os.PathLike) -> None:
    """Use ``d`` as the hub cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Download ``url`` to the file ``dst`` (written whole or not at all); with ``hash_prefix``, the SHA-256 of
    the content must start with it (``RuntimeError`` otherwise, and ``dst`` is left alone).

    >>> import os, tempfile
    >>> from openreg.hub import download_url_to_file
    >>> d = tempfile.mkdtemp(); src = os.path.join(d, "a.txt")
    >>> with open(src, "w") as f:
    ...     _ = f.write("hello")
    >>> download_url_to_file("file://" + src, os.path.join(d, "b.txt"), hash_prefix="2cf24d", progress=False)
    >>> open(os.path.join(d, "b.txt")).read()
    'hello'
    """
    req = urllib.request.Request(url, headers={"User-Agent": "openreg.hub"})
    dst = os.path.expanduser(dst)
    dst_dir = os.path.dirname(os.path.abspath(dst))
    sha256 = hashlib.sha256() if hash_prefix is not None else None
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(dst) + ".", suffix=".partial", dir=dst_dir)
    try:
        with urllib.request.urlopen(req) as u, os.fdopen(fd, "wb") as f:
            length = u.headers.get("Content-Length") if hasattr(u, "headers") else None
            total = int(length) if length else None
            done = 0
            while chunk := u.read(READ_DATA_CHUNK):
                f.write(chunk)
                if sha256 is not None:
                    sha256.update(chunk)
                done += len(chunk)
                if progress:
                    shown = f"{100 * done // total}%" if total else f"{done} bytes"
                    sys.stderr.write(f"\r{os.path.basename(dst)}: {shown}")
            if progress:
                sys.stderr.write("\n")
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[:len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _is_legacy_zip(filename: str) -> bool:
    """An old-style checkpoint: a zip holding one file (PyTorch's own zip format holds several entries)."""
    if not zipfile.is_zipfile(filename):
        return False
    infos = zipfile.ZipFile(filename).infolist()
    return len(infos) == 1 and not infos[0].is_dir()


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location: Any = None,
                             progress: bool = True, check_hash: bool = False, file_name: str | None = None,
                             weights_only: bool = False) -> dict[str, Any]:
    """The object saved at ``url`` (a state dict), downloaded into ``model_dir`` (default
    ``<get_dir()>/checkpoints``) as ``file_name`` (default: the URL's file name) unless already there, then
    ``openreg.load(file, map_location=map_location, weights_only=weights_only)``. ``check_hash``: the file name's
    ``-<sha256 prefix>.`` part must match the content."""
    from . import load as _load
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached_file, match.group(1) if match else None, progress=progress)
    if _is_legacy_zip(cached_file):
        with zipfile.ZipFile(cached_file) as zf:
            member = zf.infolist()[0].filename
            zf.extractall(model_dir)
        cached_file = os.path.join(model_dir, member)
    return _load(cached_file, map_location=map_location, weights_only=weights_only)


# -- local repositories (hubconf.py) --------------------------------------------------------------------------

def _repo_dir(repo_or_dir: str, source: str, local_dir: bool = False) -> str:
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "local" or (local_dir and os.path.isdir(repo_or_dir)):
        if not os.path.isfile(os.path.join(repo_or_dir, MODULE_HUBCONF)):
            raise FileNotFoundError(f"Cannot find {MODULE_HUBCONF} in {repo_or_dir}")
        return os.path.abspath(repo_or_dir)
    raise RuntimeError(f"openreg.hub does not download repositories from GitHub ({repo_or_dir!r}); clone it and "
                       f"call openreg.hub.load(<its directory>, model, source='local')")


@contextlib.contextmanager
def _hubconf(repo_dir: str):
    sys.path.insert(0, repo_dir)
    try:
        spec = importlib.util.spec_from_file_location("hubconf", os.path.join(repo_dir, MODULE_HUBCONF))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        deps = getattr(module, VAR_DEPENDENCY, None)
        if deps is not None:
            missing = [d for d in deps if importlib.util.find_spec(d) is None]
            if missing:
                raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
        yield module
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(repo_dir)


def _entry(module: Any, model: str) -> Callable:
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")  # noqa: TRY004 (PyTorch's)
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def list(github: str, force_reload: bool = False, skip_validation: bool = False, trust_repo: Any = "check",
         verbose: bool = True) -> builtins.list[str]:
    """The entry points (public callables) of a repository's ``hubconf.py``; openreg reads local directories."""
    with _hubconf(_repo_dir(github, "github", local_dir=True)) as module:
        return [name for name in dir(module) if callable(getattr(module, name)) and not name.startswith("_")]


def help(github: str, model: str, force_reload: bool = False, skip_validation: bool = False,
         trust_repo: Any = "check") -> str | None:
    """The docstring of entry point ``model`` of a repository's ``hubconf.py`` (local directories)."""
    with _hubconf(_repo_dir(github, "github", local_dir=True)) as module:
        return _entry(module, model).__doc__


def load(repo_or_dir: str, model: str, *args: Any, source: str = "github", trust_repo: Any = "check",
         force_reload: bool = False, verbose: bool = True, skip_validation: bool = False, **kwargs: Any) -> Any:
    """``model(*args, **kwargs)`` from the repository's ``hubconf.py`` (``source="local"``: a directory)."""
    with _hubconf(_repo_dir(repo_or_dir, source)) as module:
        return _entry(module, model)(*args, **kwargs)
