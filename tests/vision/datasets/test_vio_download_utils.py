"""embervision.datasets.utils on a local HTTP server (this machine has no internet): downloads with MD5
and SHA-256 checks, resuming a partial file with a Range request, extraction of every archive kind,
and the errors on a bad digest or an unreachable server."""
import bz2
import gzip
import hashlib
import http.server
import io
import lzma
import os
import socket
import tarfile
import threading
import zipfile
from urllib.error import URLError

import pytest

from embervision.datasets.utils import (check_integrity, download_and_extract_archive, download_url,
                                        extract_archive, verify_str_arg)

PAYLOAD = bytes(range(256)) * 40


class _Files(http.server.BaseHTTPRequestHandler):
    """Serves the dict `files` (path -> bytes), honouring "Range: bytes=N-"; records the ranges asked for."""
    files: dict = {}
    ranges: list = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        start = 0
        header = self.headers.get("Range")
        self.ranges.append(header)
        if header and header.startswith("bytes="):
            start = int(header[len("bytes="):].rstrip("-"))
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        self.wfile.write(body[start:])

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Files.files, _Files.ranges = {}, []
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Files)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", _Files
    httpd.shutdown()
    httpd.server_close()


def test_check_integrity_md5_and_sha256(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(PAYLOAD)
    md5, sha = hashlib.md5(PAYLOAD).hexdigest(), hashlib.sha256(PAYLOAD).hexdigest()
    assert check_integrity(str(path)) and check_integrity(str(path), md5) and check_integrity(str(path), sha)
    assert check_integrity(str(path), sha.upper())
    assert not check_integrity(str(path), "0" * 32) and not check_integrity(str(path), "0" * 64)
    assert not check_integrity(str(tmp_path / "missing"), md5)
    with pytest.raises(ValueError, match="MD5 \\(32 hex digits\\) or SHA-256"):
        check_integrity(str(path), "abc")


def test_download_url_checks_and_reuses(server, tmp_path, capsys):
    url, files = server
    files.files["/data/f.bin"] = PAYLOAD
    download_url(f"{url}/data/f.bin", str(tmp_path), md5=hashlib.sha256(PAYLOAD).hexdigest())
    assert (tmp_path / "f.bin").read_bytes() == PAYLOAD
    download_url(f"{url}/data/f.bin", str(tmp_path), md5=hashlib.md5(PAYLOAD).hexdigest())
    assert "Using downloaded and verified file" in capsys.readouterr().out
    assert len(files.ranges) == 1  # the second call did not fetch again


def test_download_resumes_a_partial_file(server, tmp_path):
    url, files = server
    files.files["/f.bin"] = PAYLOAD
    (tmp_path / "f.bin.partial").write_bytes(PAYLOAD[:1000])  # what an interrupted download left
    download_url(f"{url}/f.bin", str(tmp_path), md5=hashlib.md5(PAYLOAD).hexdigest(), progress=False)
    assert files.ranges == ["bytes=1000-"]
    assert (tmp_path / "f.bin").read_bytes() == PAYLOAD
    assert not (tmp_path / "f.bin.partial").exists()


def test_bad_digest_and_offline_errors(server, tmp_path):
    url, files = server
    files.files["/f.bin"] = PAYLOAD
    with pytest.raises(RuntimeError, match="File not found or corrupted"):
        download_url(f"{url}/f.bin", str(tmp_path), md5="0" * 32, progress=False)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    offline = r"could not download .*Connection refused \(is the network or the server down\?\)"
    with pytest.raises(URLError, match=offline):
        download_url(f"http://127.0.0.1:{port}/f.bin", str(tmp_path / "off"), progress=False)


def _archives(tmp_path):
    members = {"a.txt": b"alpha", "sub/b.txt": b"beta"}
    made = {}
    for suffix, mode in ((".tar", "w"), (".tar.gz", "w:gz"), (".tgz", "w:gz"), (".tar.bz2", "w:bz2"),
                         (".tar.xz", "w:xz")):
        path = tmp_path / f"arch{suffix}"
        with tarfile.open(path, mode) as tar:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        made[suffix] = path
    with zipfile.ZipFile(tmp_path / "arch.zip", "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    made[".zip"] = tmp_path / "arch.zip"
    return members, made


def test_extract_archive_every_kind(tmp_path):
    members, made = _archives(tmp_path)
    for suffix, path in made.items():
        out = tmp_path / ("out" + suffix.replace(".", "_"))
        out.mkdir()
        assert extract_archive(str(path), str(out)) == str(out)
        for name, data in members.items():
            assert (out / name).read_bytes() == data, suffix
    for suffix, opener in ((".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)):
        path = tmp_path / f"single.bin{suffix}"
        with opener(path, "wb") as f:
            f.write(PAYLOAD)
        extract_archive(str(path), remove_finished=True)
        assert (tmp_path / "single.bin").read_bytes() == PAYLOAD and not path.exists()
        os.remove(tmp_path / "single.bin")
    (tmp_path / "x.rar").write_bytes(b"x")
    with pytest.raises(ValueError, match="Extraction of .*x.rar not supported"):
        extract_archive(str(tmp_path / "x.rar"))


def test_download_and_extract_archive(server, tmp_path):
    url, files = server
    members, made = _archives(tmp_path)
    data = made[".tar.gz"].read_bytes()
    files.files["/arch.tar.gz"] = data
    root = tmp_path / "root"
    download_and_extract_archive(f"{url}/arch.tar.gz", str(root), extract_root=str(root / "x"),
                                 md5=hashlib.md5(data).hexdigest())
    assert (root / "x" / "sub" / "b.txt").read_bytes() == b"beta"


def test_verify_str_arg():
    assert verify_str_arg("a", "split", ("a", "b")) == "a"
    with pytest.raises(ValueError, match="Unknown value 'c' for argument split. Valid values are {'a', 'b'}."):
        verify_str_arg("c", "split", ("a", "b"))
    with pytest.raises(ValueError, match="Expected type str for argument split"):
        verify_str_arg(3, "split", ("a", "b"))
