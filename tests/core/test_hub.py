"""ember.hub against a local http.server on 127.0.0.1 (no internet): the checkpoint cache, the
SHA-256 prefix check, resuming a broken download with a Range request, the progress bar, a clear
error for a refused connection, and hub.load/list/help from a local hubconf.py."""
import hashlib
import http.server
import io
import os
import socket
import threading
from urllib.error import URLError

import numpy as np
import pytest

import ember
from ember import hub


class _Files(http.server.BaseHTTPRequestHandler):
    files = {}          # path -> bytes
    cut_once = set()    # paths whose first response stops halfway (Content-Length says the whole)
    log = []            # (path, Range header) per request

    def do_GET(self):
        _Files.log.append((self.path, self.headers.get("Range")))
        body = _Files.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        start = 0
        rng = self.headers.get("Range")
        if rng:
            start = int(rng.split("=")[1].split("-")[0])
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        if self.path in _Files.cut_once:
            _Files.cut_once.discard(self.path)
            self.wfile.write(body[start:start + (len(body) - start) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body[start:])

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    hub.set_dir(tmp_path / "hub")
    _Files.log.clear()
    return tmp_path / "hub"


def _checkpoint_bytes():
    state = {"weight": ember.arange(6.0).reshape(2, 3), "bias": ember.tensor([0.5, -1.0])}
    buf = io.BytesIO()
    ember.save(state, buf)
    return buf.getvalue()


def test_get_dir_follows_set_dir_and_ember_home(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setenv("EMBER_HOME", str(tmp_path / "home"))
    assert hub.get_dir() == str(tmp_path / "home" / "hub")
    monkeypatch.delenv("EMBER_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.get_dir() == str(tmp_path / "xdg" / "ember" / "hub")
    hub.set_dir(tmp_path / "mine")
    assert hub.get_dir() == str(tmp_path / "mine")


def test_load_state_dict_from_url_caches_and_checks_hash(server, hub_dir, capsys):
    data = _checkpoint_bytes()
    digest = hashlib.sha256(data).hexdigest()
    name = f"net-{digest[:8]}.pth"
    _Files.files["/w/" + name] = data
    state = hub.load_state_dict_from_url(f"{server}/w/{name}", check_hash=True, progress=True)
    np.testing.assert_array_equal(state["weight"].numpy(), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(state["bias"].numpy(), [0.5, -1.0])
    cached = hub_dir / "checkpoints" / name
    assert cached.read_bytes() == data and not os.path.exists(str(cached) + ".partial")
    out = capsys.readouterr()
    assert f'Downloading: "{server}/w/{name}" to {cached}' in out.out
    assert "100.0%|" in out.err and "#" * 30 in out.err  # the progress bar reached its end
    # Second call: served from the cache, no request.
    n_requests = len(_Files.log)
    again = hub.load_state_dict_from_url(f"{server}/w/{name}", check_hash=True, progress=False)
    np.testing.assert_array_equal(again["bias"].numpy(), [0.5, -1.0])
    assert len(_Files.log) == n_requests


def test_bad_checksum_raises_and_leaves_nothing(server, hub_dir):
    data = _checkpoint_bytes()
    digest = hashlib.sha256(data).hexdigest()
    wrong = "0" * 8 if not digest.startswith("0" * 8) else "f" * 8
    _Files.files[f"/w/net-{wrong}.pth"] = data
    with pytest.raises(RuntimeError, match=f'invalid hash value \\(expected "{wrong}", got "{digest}"\\)'):
        hub.load_state_dict_from_url(f"{server}/w/net-{wrong}.pth", check_hash=True, progress=False)
    assert os.listdir(hub_dir / "checkpoints") == []


def test_broken_download_resumes_with_a_range_request(server, hub_dir, tmp_path):
    data = bytes(range(256)) * 4000  # 1,024,000 bytes, several read chunks
    _Files.files["/big.bin"] = data
    _Files.cut_once.add("/big.bin")
    dst = tmp_path / "big.bin"
    with pytest.raises(URLError, match=r"download of .*/big.bin broke off after .*call again to resume"):
        hub.download_url_to_file(f"{server}/big.bin", str(dst), progress=False)
    partial = tmp_path / "big.bin.partial"
    assert partial.stat().st_size == len(data) // 2 and not dst.exists()
    hub.download_url_to_file(f"{server}/big.bin", str(dst), hash_prefix=hashlib.sha256(data).hexdigest()[:10],
                             progress=False)
    assert dst.read_bytes() == data and not partial.exists()
    assert _Files.log[-1] == ("/big.bin", f"bytes={len(data) // 2}-")


def test_refused_connection_names_the_url(hub_dir):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/weights-abc.pth"
    with pytest.raises(URLError, match=f"could not download {url}: .*refused"):
        hub.load_state_dict_from_url(url, progress=False)


def test_missing_file_raises_http_error(server, hub_dir):
    with pytest.raises(URLError, match="404"):
        hub.download_url_to_file(f"{server}/nothing.pth", str(hub_dir / "x"), progress=False)


HUBCONF = '''
"""A tiny hub."""
dependencies = ["numpy"]
import ember
from helper_module import scale


def tiny_linear(out_features=2, pretrained=False):
    """A Linear(3, out_features) whose weight is all `scale`."""
    m = ember.nn.Linear(3, out_features)
    with ember.no_grad():
        m.weight.fill_(scale)
    return m


def _private():
    return None
'''


def test_local_hubconf_load_list_help(tmp_path):
    (tmp_path / "hubconf.py").write_text(HUBCONF)
    (tmp_path / "helper_module.py").write_text("scale = 0.25\n")
    assert hub.list(str(tmp_path), source="local") == ["tiny_linear"]
    assert hub.help(str(tmp_path), "tiny_linear", source="local") == "A Linear(3, out_features) whose weight is all " \
                                                                      "`scale`."
    m = hub.load(str(tmp_path), "tiny_linear", out_features=4, source="local")
    assert isinstance(m, ember.nn.Linear) and m.out_features == 4
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.full((4, 3), 0.25, dtype=np.float32))
    assert str(tmp_path) not in __import__("sys").path  # the directory is on sys.path only while loading
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        hub.load(str(tmp_path), "nope", source="local")
    with pytest.raises(ValueError, match='Unknown source: "svn". Allowed values: "github" \\| "local".'):
        hub.load(str(tmp_path), "tiny_linear", source="svn")
    (tmp_path / "hubconf.py").write_text('dependencies = ["no_such_package_xyz"]\ndef f():\n    return 1\n')
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_package_xyz"):
        hub.load(str(tmp_path), "f", source="local")
