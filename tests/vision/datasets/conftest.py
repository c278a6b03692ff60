"""A local HTTP server for the download tests (this machine has no internet): `local_server` yields its base URL
and a dict of routes, path -> bytes (served as is) or a function(request, query) -> (status, headers, body)."""
import http.server
import threading
from urllib.parse import parse_qs, urlsplit

import pytest


class _Routes(http.server.BaseHTTPRequestHandler):
    routes: dict = {}

    def do_GET(self):  # noqa: N802 (http.server's name)
        parts = urlsplit(self.path)
        route = self.routes.get(parts.path)
        if route is None:
            self.send_error(404)
            return
        if callable(route):
            status, headers, body = route(self, {k: v[0] for k, v in parse_qs(parts.query).items()})
        else:
            status, headers, body = 200, {}, route
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def local_server():
    _Routes.routes = {}
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Routes)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", _Routes.routes
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def closed_port_url():
    """The URL of a port on which nothing listens (an offline server)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"
