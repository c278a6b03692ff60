"""embertext.utils against a local HTTP server: downloads with hash checks and resume, Google Drive's
confirmation pages, offline errors; archive extraction of real tar/zip/gzip files."""

import gzip
import hashlib
import http.server
import io
import os
import tarfile
import threading
import zipfile

import pytest

from embertext import utils

PAYLOAD = bytes(range(256)) * 400


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, body, content_type="application/octet-stream", status=200, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/file.bin":
            start = 0
            rng = self.headers.get("Range")
            if rng:
                start = int(rng.split("=")[1].split("-")[0])
                return self._send(
                    PAYLOAD[start:],
                    status=206,
                    headers=[("Content-Range", f"bytes {start}-{len(PAYLOAD) - 1}/{len(PAYLOAD)}")],
                )
            return self._send(PAYLOAD)
        if self.path.startswith("/uc?id=form"):  # Drive's virus-scan page: a form to confirm
            page = (
                b'<html><form id="download-form" action="/download?x=1" method="get">'
                b'<input type="hidden" name="id" value="form"><input type="hidden" name="confirm" value="t">'
                b'<input type="submit"></form></html>'
            )
            return self._send(page, "text/html; charset=utf-8")
        if self.path.startswith("/uc?id=cookie"):
            if "confirm=TOKEN42" in self.path:
                return self._send(PAYLOAD)
            return self._send(
                b"<html>large file</html>", "text/html", headers=[("Set-Cookie", "download_warning_1=TOKEN42; Path=/")]
            )
        if self.path.startswith("/download?x=1&id=form&confirm=t"):
            return self._send(PAYLOAD)
        if self.path.startswith("/uc?id=quota"):
            return self._send(b"<html>Too many users have viewed or downloaded this file</html>", "text/html")
        self._send(b"missing", "text/plain", status=404)


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_download_checks_hash_and_keeps_good_files(server, tmp_path):
    md5 = hashlib.md5(PAYLOAD).hexdigest()
    path = utils.download_from_url(
        server + "/file.bin", root=str(tmp_path), hash_value=md5, hash_type="md5", progress=False
    )
    assert open(path, "rb").read() == PAYLOAD and path == str(tmp_path / "file.bin")
    assert utils.download_from_url(server + "/nothing-here", path=path, hash_value=md5, hash_type="md5") == path
    with pytest.raises(RuntimeError, match="does not match"):
        utils.download_from_url(server + "/file.bin", path=path, hash_value="0" * 64)


def test_download_resumes_a_partial_file(server, tmp_path):
    dst = tmp_path / "file.bin"
    (tmp_path / "file.bin.partial").write_bytes(PAYLOAD[:1000])
    utils.download_from_url(
        server + "/file.bin", path=str(dst), hash_value=hashlib.sha256(PAYLOAD).hexdigest(), progress=False
    )
    assert dst.read_bytes() == PAYLOAD


def test_google_drive_confirmation_pages(server, tmp_path, monkeypatch):
    monkeypatch.setattr(utils, "_is_google_drive", lambda url: True)
    for kind in ("form", "cookie"):
        path = utils.download_from_url(f"{server}/uc?id={kind}", path=str(tmp_path / kind), progress=False)
        assert open(path, "rb").read() == PAYLOAD
    with pytest.raises(RuntimeError, match="quota"):
        utils.download_from_url(f"{server}/uc?id=quota", path=str(tmp_path / "q"), progress=False)


def test_offline_error_names_url_and_path(tmp_path):
    with pytest.raises(RuntimeError, match=r"could not download http://127\.0\.0\.1:9/x.*put the file at"):
        utils.download_from_url("http://127.0.0.1:9/x", root=str(tmp_path), progress=False)


def test_extract_archive_formats(tmp_path):
    src = {"a/one.txt": b"one", "a/b/two.txt": b"two"}
    tar_path = tmp_path / "x.tar.gz"
    with tarfile.open(tar_path, "w:gz") as tar:
        for name, data in src.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    zip_path = tmp_path / "x.zip"
    with zipfile.ZipFile(zip_path, "w") as z:
        for name, data in src.items():
            z.writestr(name, data)
    for archive, out in ((tar_path, tmp_path / "t"), (zip_path, tmp_path / "z")):
        files = utils.extract_archive(str(archive), str(out))
        assert sorted(os.path.relpath(f, out) for f in files) == sorted(src)
        assert (out / "a" / "b" / "two.txt").read_bytes() == b"two"
    gz = tmp_path / "data.txt.gz"
    gz.write_bytes(gzip.compress(b"hello"))
    assert open(utils.extract_archive(str(gz))[0], "rb").read() == b"hello"
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("../escape.txt", b"x")
    with pytest.raises(RuntimeError, match="outside"):
        utils.extract_archive(str(evil), str(tmp_path / "e"))
    (tmp_path / "plain.txt").write_text("x")
    with pytest.raises(NotImplementedError):
        utils.extract_archive(str(tmp_path / "plain.txt"))
