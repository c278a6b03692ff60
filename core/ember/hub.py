"""ember.hub: PyTorch's torch.hub for ember. Pretrained weights from a URL into a cache
(load_state_dict_from_url, download_url_to_file) and entry points from a directory's hubconf.py
(load, list, help). The cache lives under get_dir(): $EMBER_HOME/hub, by default
~/.cache/ember/hub ($XDG_CACHE_HOME/ember/hub when that is set)."""
import contextlib
import importlib.util
import os
import re
import sys
from urllib.parse import urlparse

from ._hub_download import download_url_to_file

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

# matches bfd8deac from resnet18-bfd8deac.pth
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
ENV_EMBER_HOME = "EMBER_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"

_hub_dir = None


def _get_ember_home():
    return os.path.expanduser(os.getenv(ENV_EMBER_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR),
                                                                      "ember")))


def get_dir():
    """The hub's cache directory: set_dir's, else $EMBER_HOME/hub."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_ember_home(), "hub")


def set_dir(d):
    """Sets the hub's cache directory (checkpoints go to <d>/checkpoints)."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False, file_name=None,
                             weights_only=False):
    """Downloads url into model_dir (default get_dir()/checkpoints) unless a file of that name is
    already there, then loads it with ember.load. check_hash: the file name's `-<hex>.` part must
    be the start of the file's SHA-256 digest (PyTorch's naming: resnet18-bfd8deac.pth)."""
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    from .serialization import load as _load
    return _load(cached_file, map_location=map_location, weights_only=weights_only)


# --- hubconf.py entry points ----------------------------------------------------------------------

@contextlib.contextmanager
def _add_to_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise AssertionError(f"failed to load spec from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_attr_from_module(module, func_name):
    if func_name not in dir(module):
        return None
    return getattr(module, func_name)


def _check_dependencies(m):
    dependencies = _load_attr_from_module(m, VAR_DEPENDENCY)
    if dependencies is not None:
        missing = [pkg for pkg in dependencies if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def _load_entry_from_hubconf(m, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    _check_dependencies(m)
    func = _load_attr_from_module(m, model)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _repo_dir(repo_or_dir, source):
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise NotImplementedError(
            f"ember.hub: source='github' ({repo_or_dir!r}) would fetch the repository from GitHub, which ember.hub "
            f"does not do; clone it and pass its directory with source='local'")
    hubconf = os.path.join(repo_or_dir, MODULE_HUBCONF)
    if not os.path.isfile(hubconf):
        raise FileNotFoundError(f"ember.hub: {repo_or_dir!r} has no {MODULE_HUBCONF}")
    return os.fspath(repo_or_dir)


def _hub_module(repo_dir):
    with _add_to_sys_path(repo_dir):
        return _import_module(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True, *, source="github"):
    """The entry points (public callables) of a hubconf.py; source='local' takes a directory."""
    hub_module = _hub_module(_repo_dir(github, source))
    return [f for f in dir(hub_module) if callable(getattr(hub_module, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None, *, source="github"):
    """The docstring of the entry point `model`."""
    return _load_entry_from_hubconf(_hub_module(_repo_dir(github, source)), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Calls the entry point `model` of repo_or_dir's hubconf.py with *args, **kwargs (source='local')."""
    repo_dir = _repo_dir(repo_or_dir, source)
    with _add_to_sys_path(repo_dir):
        hub_module = _import_module(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))
        entry = _load_entry_from_hubconf(hub_module, model)
        return entry(*args, **kwargs)

