"""The distributed tests' shared fixture: a redis-server of their own on a free port (for RedisStore and the
launcher's redis rendezvous), started once per session."""
from __future__ import annotations

import socket
import subprocess
import time

import pytest
from dist_launch import free_port


@pytest.fixture(scope="session")
def redis_port():
    port = free_port()
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:  # until it accepts connections
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield port
    finally:
        server.kill()
        server.wait()
