"""Downloads and archives for embertext's datasets and vectors (torchtext.utils): resumable downloads
with a progress bar through ember.hub (Google Drive's confirmation pages handled), hash checks, and
archive extraction. Offline, a download fails with an error naming the URL and where to put the file."""

import gzip
import hashlib
import html
import os
import re
import shutil
import tarfile
import urllib.parse
import urllib.request
import zipfile
from http.cookiejar import CookieJar
from typing import List, Optional
from urllib.error import URLError

from ember.hub import download_url_to_file

__all__ = ["download_from_url", "extract_archive", "validate_file"]

_CHUNK = 1 << 20


def validate_file(file_obj, hash_value: str, hash_type: str = "sha256") -> bool:
    """Whether the binary file object's digest (`hash_type`: 'sha256' or 'md5') equals `hash_value`."""
    if hash_type not in ("sha256", "md5"):
        raise ValueError(f"validate_file: hash_type must be 'sha256' or 'md5', got '{hash_type}'")
    digest = hashlib.new(hash_type)
    for chunk in iter(lambda: file_obj.read(_CHUNK), b""):
        digest.update(chunk)
    return digest.hexdigest() == hash_value.lower()


def _is_google_drive(url: str) -> bool:
    host = urllib.parse.urlparse(url).netloc
    return host in ("drive.google.com", "docs.google.com", "drive.usercontent.google.com")


def _google_drive_file_url(url: str) -> str:
    """The URL that serves a Drive file itself. Drive answers large files with an HTML page asking to
    confirm the download (a virus-scan form, or a confirm token in the page or a cookie); this follows it."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(url, timeout=60) as response:
        if "text/html" not in response.headers.get("Content-Type", ""):
            return response.geturl()
        page = response.read(1 << 20).decode("utf-8", errors="replace")
        page_url = response.geturl()
    form = re.search(r'<form[^>]*id="download-form"[^>]*action="([^"]+)"(.*?)</form>', page, re.S)
    if form:
        action = urllib.parse.urljoin(page_url, html.unescape(form.group(1)))
        fields = dict(re.findall(r'<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"', form.group(2)))
        return action + ("&" if "?" in action else "?") + urllib.parse.urlencode(fields)
    token = next((c.value for c in jar if c.name.startswith("download_warning")), None)
    if token is None:
        found = re.search(r"confirm=([0-9A-Za-z_-]+)", page)
        token = found.group(1) if found else None
    if token is None:
        if "quota" in page.lower() or "too many users" in page.lower():
            raise RuntimeError(f"Google Drive refuses {url} for now (its download quota is exceeded); try again later")
        raise RuntimeError(
            f"Google Drive answered {url} with a page that is neither the file nor a download confirmation"
        )
    return url + ("&" if "?" in url else "?") + "confirm=" + token


def download_from_url(
    url: str,
    path: Optional[str] = None,
    root: str = ".data",
    overwrite: bool = False,
    hash_value: Optional[str] = None,
    hash_type: str = "sha256",
    progress: bool = True,
) -> str:
    """Downloads `url` to `path` (default: root/<the URL's file name>) and returns the path. An existing
    file is kept unless `overwrite`, after checking its hash when one is given; an interrupted download
    resumes on the next call."""
    if path is None:
        path = os.path.join(root, os.path.basename(urllib.parse.urlparse(url).path) or "download")
    path = os.path.expanduser(os.fspath(path))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if os.path.exists(path) and not overwrite:
        if hash_value is None:
            return path
        with open(path, "rb") as f:
            if validate_file(f, hash_value, hash_type):
                return path
        raise RuntimeError(
            f"The hash of {path} does not match the expected {hash_type} {hash_value}. "
            "Delete the file manually and retry."
        )
    try:
        source = _google_drive_file_url(url) if _is_google_drive(url) else url
        download_url_to_file(source, path, progress=progress)
    except (URLError, OSError) as error:
        if isinstance(error, FileNotFoundError):
            raise
        raise RuntimeError(
            f"could not download {url} ({error}); without a network, put the file at {path} and call again"
        ) from error
    if hash_value is not None:
        with open(path, "rb") as f:
            if not validate_file(f, hash_value, hash_type):
                raise RuntimeError(
                    f"The hash of {path} does not match the expected {hash_type} {hash_value}. "
                    "Delete the file manually and retry."
                )
    return path


def extract_archive(from_path: str, to_path: Optional[str] = None, overwrite: bool = False) -> List[str]:
    """Extracts a .tar(.gz/.bz2/.xz), .tgz, .zip or single-file .gz archive into `to_path` (default: its
    folder) and returns the paths of the files it holds. Existing files are kept unless `overwrite`;
    members that would land outside `to_path` are refused."""
    if to_path is None:
        to_path = os.path.dirname(from_path)
    to_path = os.path.abspath(to_path)
    if not os.path.isfile(from_path):
        raise FileNotFoundError(f"extract_archive: no such file: '{from_path}'")

    def target(name: str) -> str:
        dest = os.path.abspath(os.path.join(to_path, name))
        if os.path.commonpath([dest, to_path]) != to_path:
            raise RuntimeError(f"extract_archive: {from_path} holds '{name}', which points outside {to_path}")
        return dest

    files = []
    if zipfile.is_zipfile(from_path):
        with zipfile.ZipFile(from_path) as archive:
            for info in archive.infolist():
                dest = target(info.filename)
                if info.is_dir():
                    continue
                files.append(dest)
                if overwrite or not os.path.exists(dest):
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    with archive.open(info) as src, open(dest, "wb") as out:
                        shutil.copyfileobj(src, out)
        return files
    if tarfile.is_tarfile(from_path):
        with tarfile.open(from_path) as archive:
            for member in archive.getmembers():
                dest = target(member.name)
                if not member.isfile():
                    continue
                files.append(dest)
                if overwrite or not os.path.exists(dest):
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    with archive.extractfile(member) as src, open(dest, "wb") as out:
                        shutil.copyfileobj(src, out)
        return files
    if from_path.endswith(".gz"):
        dest = target(os.path.basename(from_path)[:-3])
        if overwrite or not os.path.exists(dest):
            with gzip.open(from_path, "rb") as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
        return [dest]
    raise NotImplementedError(f"extract_archive: {from_path} is not a tar, zip or gzip archive")
