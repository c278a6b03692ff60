"""ember.distributed's stores: every store against the same plain expectations (PyTorch's documented
semantics, written out), TCPStore and FileStore shared by 2 and 4 processes, and their timeout errors."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from dist_launch import free_port, launch

import ember.distributed as dist


def _tcp_store():
    return dist.TCPStore("127.0.0.1", 0, 1, True, timeout=timedelta(seconds=30))


def _make(kind, tmp_path):
    if kind == "hash":
        return dist.HashStore(), 0
    if kind == "file":
        return dist.FileStore(str(tmp_path / "store"), 1), 0
    if kind == "tcp":
        return _tcp_store(), 1  # the TCPStore counts its "init/" key, as PyTorch's does
    return dist.PrefixStore("pre", dist.HashStore()), 0


KINDS = ["hash", "file", "tcp", "prefix"]


@pytest.mark.parametrize("kind", KINDS)
def test_store_operations(kind, tmp_path):
    store, extra = _make(kind, tmp_path)
    store.set("a", "text")
    store.set("b", b"\x00\xffbytes")
    assert store.get("a") == b"text"
    assert store.get("b") == b"\x00\xffbytes"
    assert store.add("n", 3) == 3
    assert store.add("n", -5) == -2
    assert store.get("n") == b"-2"
    assert store.num_keys() == 3 + extra
    assert store.check(["a", "n"]) and not store.check(["a", "zz"])
    store.wait(["a", "b"])
    assert store.delete_key("n") is True
    assert store.delete_key("n") is False
    assert store.num_keys() == 2 + extra


@pytest.mark.parametrize("kind", KINDS)
def test_compare_set(kind, tmp_path):
    store, _ = _make(kind, tmp_path)
    # PyTorch: a missing key is set only when expected is empty; a mismatch returns the current value.
    assert store.compare_set("k", "", "v") == b"v"
    assert store.compare_set("x", "e", "v") == b"e"
    assert not store.check(["x"])
    assert store.compare_set("k", "v", "w") == b"w"
    assert store.compare_set("k", "zz", "q") == b"w"
    assert store.get("k") == b"w"


@pytest.mark.parametrize("kind", KINDS)
def test_timeouts_name_the_keys(kind, tmp_path):
    store, _ = _make(kind, tmp_path)
    store.set_timeout(timedelta(milliseconds=200))
    assert store.timeout == timedelta(milliseconds=200)
    with pytest.raises(dist.DistStoreError, match="missing_key"):
        store.get("missing_key")
    with pytest.raises(dist.DistStoreError, match="k1, (pre/)?k2"):
        store.wait(["k1", "k2"], timedelta(milliseconds=100))
    assert issubclass(dist.DistStoreError, dist.DistError) and issubclass(dist.DistError, RuntimeError)
    store.set("after", "1")  # a TCPStore reconnects after a timed-out wait
    assert store.get("after") == b"1"


@pytest.mark.parametrize("kind", KINDS)
def test_bad_values(kind, tmp_path):
    store, _ = _make(kind, tmp_path)
    with pytest.raises(TypeError, match="value must be str or bytes"):
        store.set("a", 5)
    store.set("word", "abc")
    with pytest.raises(dist.DistStoreError, match="'(pre/)?word' is not an integer"):
        store.add("word", 1)


@pytest.mark.parametrize("kind", ["hash", "tcp", "file"])
def test_get_blocks_until_another_thread_sets(kind, tmp_path):
    store, _ = _make(kind, tmp_path)
    got = []
    reader = threading.Thread(target=lambda: got.append(store.get("late")))
    reader.start()
    time.sleep(0.2)  # (ordering only) lets the reader block first: the store must still serve this thread
    store.set("other", "x")
    assert store.get("other") == b"x"
    store.set("late", "here")
    reader.join(timeout=30)
    assert got == [b"here"]


def test_prefix_store_keys_live_under_the_prefix():
    base = dist.HashStore()
    p = dist.PrefixStore("job", base)
    p.set("x", "1")
    assert base.get("job/x") == b"1"
    assert p.underlying_store is base
    with pytest.raises(ValueError, match="must not be None"):
        dist.PrefixStore("p", None)


def test_tcp_client_connect_timeout():
    port = free_port()
    with pytest.raises(dist.DistNetworkError, match=rf"\(127.0.0.1, {port}\)"):
        dist.TCPStore("127.0.0.1", port, 2, False, timeout=timedelta(milliseconds=300))


def test_tcp_master_waits_for_workers_then_times_out():
    with pytest.raises(dist.DistStoreError, match="1/3 clients joined"):
        dist.TCPStore("127.0.0.1", 0, 3, True, timeout=timedelta(milliseconds=300))


def test_tcp_bad_arguments():
    with pytest.raises(ValueError, match="port must be in"):
        dist.TCPStore("127.0.0.1", 70000, 1, True)
    with pytest.raises(ValueError, match="needs the server's port"):
        dist.TCPStore("127.0.0.1", 0, 1, False)


_STORE_WORKER = """
import json, os
from datetime import timedelta
import ember.distributed as dist
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
if os.environ["KIND"] == "tcp":
    store = dist.TCPStore("127.0.0.1", int(os.environ["PORT"]), world + 1, False, timeout=timedelta(seconds=60))
else:
    store = dist.FileStore(os.environ["PATH_"], world)
    store.set_timeout(timedelta(seconds=60))
store.set(f"key{rank}", f"value{rank}")
total = store.add("counter", rank + 1)
store.compare_set("first", "", f"rank{rank}")
store.add("done", 1)
store.wait([f"key{r}" for r in range(world)])
while int(store.get("done")) < world:
    store.wait(["done"])
print(json.dumps({"values": [store.get(f"key{r}").decode() for r in range(world)],
                  "counter": int(store.get("counter")), "first": store.get("first").decode(), "total": total}))
"""


@pytest.mark.parametrize("world", [2, 4])
@pytest.mark.parametrize("kind", ["tcp", "file"])
def test_store_shared_by_processes(kind, world, tmp_path):
    port = free_port()
    env = {"KIND": kind, "PORT": str(port), "PATH_": str(tmp_path / "shared")}
    master = None
    if kind == "tcp":
        # The clients retry until the master listens; the master waits for all of them (world + itself).
        result = []
        starter = threading.Thread(target=lambda: result.extend(launch(_STORE_WORKER, world, env, timeout=120)))
        starter.start()
        master = dist.TCPStore("127.0.0.1", port, world + 1, True, timeout=timedelta(seconds=60))
        starter.join(timeout=150)
        results = result
    else:
        results = launch(_STORE_WORKER, world, env, timeout=120)
    assert len(results) == world
    expected_values = [f"value{r}" for r in range(world)]
    expected_counter = sum(range(1, world + 1))
    firsts = {r["first"] for r in results}
    assert len(firsts) == 1 and firsts.pop() in {f"rank{r}" for r in range(world)}  # one winner, seen by all
    assert sorted(r["total"] for r in results)[-1] == expected_counter  # the last adder saw the full sum
    for r in results:
        assert r["values"] == expected_values
        assert r["counter"] == expected_counter
    if master is not None:
        assert master.get("counter") == str(expected_counter).encode()
