"""Downloading and unpacking the datasets' archives: ember.hub's resumable downloader (a `.partial` file kept
across broken connections, a progress bar), then the published checksum (MD5 or SHA-256 by its length), then
extraction that refuses members escaping the target folder."""
import hashlib
import os
import tarfile
import zipfile
from urllib.error import URLError

from ember.hub import download_url_to_file

__all__ = ["download_url", "extract_archive", "check_integrity", "prepare"]


def _digest(path, kind):
    h = hashlib.new(kind)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_integrity(path, checksum=None):
    """True if `path` exists and (when given) its MD5 (32 hex digits) or SHA-256 (64) equals `checksum`."""
    if not os.path.isfile(path):
        return False
    if checksum is None:
        return True
    kind = {32: "md5", 64: "sha256"}.get(len(checksum))
    if kind is None:
        raise ValueError(f"checksum must be an MD5 or SHA-256 hex digest, got {checksum!r}")
    return _digest(path, kind) == checksum.lower()


def download_url(url, path, checksum=None, progress=True, dataset="dataset"):
    """Downloads `url` to the file `path` (resuming an interrupted `path.partial`) and verifies `checksum`."""
    if check_integrity(path, checksum):
        return path
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    try:
        download_url_to_file(url, path, progress=progress)
    except (URLError, OSError) as e:
        raise RuntimeError(f"{dataset}: could not download {url} ({e}). Without network access, put the archive "
                           f"at {path} or its extracted files under {os.path.dirname(os.path.abspath(path))}") from e
    if not check_integrity(path, checksum):
        os.remove(path)
        raise RuntimeError(f"{dataset}: the download of {url} does not match its checksum {checksum}; removed it")
    return path


def _inside(base, target):
    base, target = os.path.realpath(base), os.path.realpath(target)
    return os.path.commonpath([base, target]) == base


def extract_archive(from_path, to_path=None):
    """Unpacks a .tar, .tar.gz/.tgz, .tar.bz2, .tar.xz or .zip archive into `to_path` (default: its folder);
    returns the extracted file names."""
    to_path = to_path or os.path.dirname(os.path.abspath(from_path))
    if zipfile.is_zipfile(from_path):
        with zipfile.ZipFile(from_path) as z:
            for name in z.namelist():
                if not _inside(to_path, os.path.join(to_path, name)):
                    raise RuntimeError(f"{from_path}: member {name!r} would extract outside {to_path}")
            z.extractall(to_path)
            return z.namelist()
    try:
        with tarfile.open(from_path) as t:
            members = t.getmembers()
            for m in members:
                if not _inside(to_path, os.path.join(to_path, m.name)) or m.issym() or m.islnk():
                    raise RuntimeError(f"{from_path}: member {m.name!r} would extract outside {to_path}")
            t.extractall(to_path)
            return [m.name for m in members]
    except tarfile.ReadError as e:
        raise RuntimeError(f"{from_path} is not an archive emberaudio can unpack ({e})") from e


def prepare(path, url, archive, checksum, download, dataset, extract_to=None):
    """Makes sure the dataset folder `path` exists: download + extract when asked, else a clear error."""
    if os.path.isdir(path):
        return
    if not download:
        raise RuntimeError(f"{dataset}: the path {path} doesn't exist. Please check the ``root`` path or set "
                           f"`download=True` to download it")
    download_url(url, archive, checksum, dataset=dataset)
    if extract_to is not None:
        os.makedirs(extract_to, exist_ok=True)
    extract_archive(archive, extract_to)
    if not os.path.isdir(path):
        raise RuntimeError(f"{dataset}: {archive} did not contain the expected folder {path}")
