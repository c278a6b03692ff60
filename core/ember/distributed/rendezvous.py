"""init_method URLs -> (store, rank, world_size), as torch.distributed.rendezvous: env:// (MASTER_ADDR,
MASTER_PORT, RANK, WORLD_SIZE), tcp://host:port (rank 0 hosts the TCPStore), file://path (a FileStore)."""
from __future__ import annotations

import os
import urllib.parse
from datetime import timedelta

from ember._distributed_C import FileStore, Store, TCPStore

__all__ = ["rendezvous"]


def _error(kind: str, what: str) -> ValueError:
    return ValueError(f"Error initializing torch.distributed using {kind} rendezvous: {what}")


def _query_int(query: dict, name: str, given: int, kind: str) -> int:
    if given != -1:
        return given
    if name not in query:
        raise _error(kind, f"{name.replace('world_size', 'size')} parameter missing")
    return int(query[name][0])


def _env_int(name: str, given: int) -> int:
    if given != -1:
        return given
    value = os.environ.get(name)
    if value is None:
        raise _error("env://", f"environment variable {name} expected, but not set")
    return int(value)


def rendezvous(url: str, rank: int, world_size: int, timeout: timedelta) -> tuple[Store, int, int]:
    parsed = urllib.parse.urlparse(url)
    query = urllib.parse.parse_qs(parsed.query)
    if parsed.scheme == "env":
        rank, world_size = _env_int("RANK", rank), _env_int("WORLD_SIZE", world_size)
        host = os.environ.get("MASTER_ADDR")
        if host is None:
            raise _error("env://", "environment variable MASTER_ADDR expected, but not set")
        port = _env_int("MASTER_PORT", -1)
        return TCPStore(host, port, world_size, rank == 0, timeout), rank, world_size
    if parsed.scheme == "tcp":
        rank = _query_int(query, "rank", rank, "tcp://")
        world_size = _query_int(query, "world_size", world_size, "tcp://")
        if not parsed.hostname or parsed.port is None:
            raise _error("tcp://", f"the URL must be tcp://host:port, got {url!r}")
        return TCPStore(parsed.hostname, parsed.port, world_size, rank == 0, timeout), rank, world_size
    if parsed.scheme == "file":
        rank = _query_int(query, "rank", rank, "file://")
        world_size = _query_int(query, "world_size", world_size, "file://")
        path = urllib.parse.unquote(parsed.netloc + parsed.path)
        if not path:
            raise _error("file://", f"the URL must name a file, got {url!r}")
        store = FileStore(path, world_size)
        store.set_timeout(timeout)
        return store, rank, world_size
    raise RuntimeError(f"No rendezvous handler for {parsed.scheme}://")
