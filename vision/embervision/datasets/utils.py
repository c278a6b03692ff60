"""Download and archive helpers of the datasets, as torchvision.datasets.utils. Downloading goes through
ember.hub's downloader (resumable through `<file>.partial`, a progress bar on stderr, a clear URLError
when offline); integrity checks take an MD5 or a SHA-256 hex digest (told apart by length)."""
import bz2
import gzip
import lzma
import os
import re
import shutil
import tarfile
import zipfile
from typing import Iterable, List, Optional, TypeVar
from urllib.parse import urlparse

from ember.hub import download_url_to_file

from ._google_drive import download_file_from_google_drive
from ._integrity import calculate_md5, calculate_sha256, check_integrity, check_md5

__all__ = ["calculate_md5", "calculate_sha256", "check_md5", "check_integrity", "download_url",
           "download_file_from_google_drive",
           "download_and_extract_archive", "extract_archive", "list_dir", "list_files", "verify_str_arg"]

T = TypeVar("T", str, bytes)


def download_url(url: str, root: str, filename: Optional[str] = None, md5: Optional[str] = None,
                 progress: bool = True) -> None:
    """Downloads url into root/filename (default: the URL's base name) unless a file with the expected
    digest is already there; an interrupted download resumes on the next call. A Google Drive file URL
    (drive.google.com/file/d/<id>/...) goes through download_file_from_google_drive."""
    root = os.path.expanduser(root)
    if not filename:
        filename = os.path.basename(url)
    drive_id = _google_drive_file_id(url)
    if drive_id is not None:
        download_file_from_google_drive(drive_id, root, filename, md5)
        return
    fpath = os.path.join(root, filename)
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        print("Using downloaded and verified file: " + fpath)
        return
    print("Downloading " + url + " to " + fpath)
    download_url_to_file(url, fpath, progress=progress)
    if not check_integrity(fpath, md5):
        raise RuntimeError(f"File not found or corrupted: {fpath} (its digest does not match {md5})")


def _google_drive_file_id(url: str) -> Optional[str]:
    parts = urlparse(url)
    if re.match(r"(drive|docs)[.]google[.]com$", parts.netloc) is None:
        return None
    match = re.match(r"/file/d/(?P<id>[^/]*)", parts.path)
    return match.group("id") if match else None


def list_dir(root: str, prefix: bool = False) -> List[str]:
    """The directories in root, with the root prepended when prefix is True."""
    root = os.path.expanduser(root)
    directories = sorted(p for p in os.listdir(root) if os.path.isdir(os.path.join(root, p)))
    return [os.path.join(root, d) for d in directories] if prefix else directories


def list_files(root: str, suffix: str, prefix: bool = False) -> List[str]:
    """The files in root ending with suffix, with the root prepended when prefix is True."""
    root = os.path.expanduser(root)
    files = sorted(p for p in os.listdir(root) if os.path.isfile(os.path.join(root, p)) and p.endswith(suffix))
    return [os.path.join(root, d) for d in files] if prefix else files


_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tbz2", ".tar.xz", ".txz")
_COMPRESSED = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def extract_archive(from_path: str, to_path: Optional[str] = None, remove_finished: bool = False) -> str:
    """Extracts a tar (plain, gz, bz2, xz), zip, or single gz/bz2/xz file into to_path (default: the
    archive's folder); returns to_path."""
    if to_path is None:
        to_path = os.path.dirname(from_path)
    if from_path.endswith(_TAR_SUFFIXES):
        with tarfile.open(from_path, "r:*") as tar:
            tar.extractall(path=to_path, filter="data")
    elif from_path.endswith(".zip"):
        with zipfile.ZipFile(from_path, "r") as z:
            z.extractall(to_path)
    elif os.path.splitext(from_path)[1] in _COMPRESSED:
        base, suffix = os.path.splitext(os.path.basename(from_path))
        with _COMPRESSED[suffix](from_path, "rb") as src, open(os.path.join(to_path, base), "wb") as dst:
            shutil.copyfileobj(src, dst)
    else:
        raise ValueError(f"Extraction of {from_path} not supported (known: {', '.join(_TAR_SUFFIXES)}, .zip, "
                         f"{', '.join(_COMPRESSED)})")
    if remove_finished:
        os.remove(from_path)
    return to_path


def download_and_extract_archive(url: str, download_root: str, extract_root: Optional[str] = None,
                                 filename: Optional[str] = None, md5: Optional[str] = None,
                                 remove_finished: bool = False) -> None:
    download_root = os.path.expanduser(download_root)
    if extract_root is None:
        extract_root = download_root
    if not filename:
        filename = os.path.basename(url)
    download_url(url, download_root, filename, md5)
    archive = os.path.join(download_root, filename)
    print(f"Extracting {archive} to {extract_root}")
    extract_archive(archive, extract_root, remove_finished)


def iterable_to_str(iterable: Iterable) -> str:
    return "'" + "', '".join([str(item) for item in iterable]) + "'"


def verify_str_arg(value: T, arg: Optional[str] = None, valid_values: Optional[Iterable[T]] = None,
                   custom_msg: Optional[str] = None) -> T:
    """value, when it is a str among valid_values; ValueError otherwise (torchvision's messages)."""
    if not isinstance(value, str):
        msg = "Expected type str, but got type {type}." if arg is None else \
            "Expected type str for argument {arg}, but got type {type}."
        raise ValueError(msg.format(type=type(value), arg=arg))
    if valid_values is None:
        return value
    if value not in valid_values:
        if custom_msg is not None:
            msg = custom_msg
        else:
            msg = "Unknown value '{value}' for argument {arg}. Valid values are {{{valid_values}}}."
            msg = msg.format(value=value, arg=arg, valid_values=iterable_to_str(valid_values))
        raise ValueError(msg)
    return value
