"""ember.hub's downloader: one URL to one file, through `<dst>.partial` (kept when the connection
drops, and resumed with an HTTP Range request next time), with an optional SHA-256 prefix check and a
progress bar on stderr."""
import hashlib
import http.client
import os
import shutil
import sys
import time
from urllib.error import HTTPError, URLError
from urllib.request import Request, urlopen

READ_DATA_CHUNK = 128 * 1024


class _Progress:
    """A one-line progress bar on stderr: percent, bar, bytes done / total (or bytes alone)."""

    def __init__(self, total, initial=0, disable=False, stream=None):
        self.total, self.n, self.disable = total, initial, disable
        self.stream = stream or sys.stderr
        self._last = 0.0

    def update(self, n):
        self.n += n
        now = time.monotonic()
        if not self.disable and (now - self._last > 0.1 or (self.total and self.n >= self.total)):
            self._last = now
            self._draw()

    def _draw(self):
        if self.total:
            frac = min(1.0, self.n / self.total)
            bar = "#" * int(frac * 30)
            self.stream.write(f"\r{100 * frac:5.1f}%|{bar:<30}| {_size(self.n)}/{_size(self.total)}")
        else:
            self.stream.write(f"\r{_size(self.n)}")
        self.stream.flush()

    def close(self):
        if not self.disable:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()


def _size(n):
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f}{unit}" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024


def _open(url, offset):
    headers = {"User-Agent": "ember.hub"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    try:
        return urlopen(Request(url, headers=headers), timeout=60)
    except HTTPError as e:
        if e.code == 416 and offset:  # the partial file is not a prefix we can extend: start over
            return None
        raise
    except URLError as e:
        raise URLError(f"ember.hub: could not download {url}: {e.reason} (is the network or the server "
                       f"down?)") from e


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads url to the file dst. hash_prefix: the expected start of the file's SHA-256 hex
    digest (RuntimeError and no dst if it differs). An interrupted download leaves `dst.partial`,
    which the next call resumes where the server allows byte ranges."""
    dst = os.path.expanduser(os.fspath(dst))
    partial = dst + ".partial"
    offset = os.path.getsize(partial) if os.path.exists(partial) else 0
    response = _open(url, offset)
    if response is None:
        offset = 0
        response = _open(url, 0)
    with response as u:
        if offset and u.status != 206:  # the server sent the whole file: start over
            offset = 0
        length = u.headers.get("Content-Length")
        total = offset + int(length) if length is not None else None
        sha256 = hashlib.sha256() if hash_prefix is not None else None
        with open(partial, "ab" if offset else "wb") as f:
            if offset and sha256 is not None:
                with open(partial, "rb") as done:
                    for chunk in iter(lambda: done.read(READ_DATA_CHUNK), b""):
                        sha256.update(chunk)
            bar = _Progress(total, offset, disable=not progress)
            try:
                while True:
                    try:
                        buffer = u.read(READ_DATA_CHUNK)
                    except (http.client.IncompleteRead, ConnectionError, TimeoutError) as e:
                        f.flush()
                        raise URLError(f"ember.hub: the download of {url} broke off after {bar.n} bytes "
                                       f"({type(e).__name__}); call again to resume it from {partial}") from e
                    if not buffer:
                        break
                    f.write(buffer)
                    if sha256 is not None:
                        sha256.update(buffer)
                    bar.update(len(buffer))
            finally:
                bar.close()
        got = os.path.getsize(partial)
        if total is not None and got < total:
            raise URLError(f"ember.hub: the download of {url} broke off after {got} of {total} bytes; call again "
                           f"to resume it from {partial}")
    if sha256 is not None:
        digest = sha256.hexdigest()
        if digest[:len(hash_prefix)] != hash_prefix:
            os.remove(partial)
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
    shutil.move(partial, dst)
