"""RedisStore against a redis-server this module starts on a free port (skipped when Debian's redis-server
is not installed): the Store operations and their errors, prefixes keeping jobs apart, and two gloo processes
meeting through it."""
from __future__ import annotations

import shutil
from datetime import timedelta

import numpy as np
import pytest
from dist_launch import free_port, launch

import ember.distributed as dist

pytestmark = [pytest.mark.skipif(not hasattr(dist, "RedisStore"), reason="built without hiredis (libhiredis-dev)"),
              pytest.mark.skipif(shutil.which("redis-server") is None,
                                 reason="redis-server is not installed (apt-get install redis-server)")]


def _store(port, prefix, seconds=2.0):
    return dist.RedisStore("127.0.0.1", port, prefix=prefix, timeout=timedelta(seconds=seconds))


def test_store_operations(redis_port):
    s = _store(redis_port, "ops/")
    s.set("a", "x")
    s.set("bin", b"\x00\xff")
    assert (s.get("a"), s.get("bin")) == (b"x", b"\x00\xff")
    assert (s.add("n", 5), s.add("n", -2)) == (5, 3)
    assert s.get("n") == b"3"  # counters are decimal text, as every store's
    # compare_set: set on a match (or a missing key with expected ""), else the current value is returned
    assert s.compare_set("a", "x", "y") == b"y"
    assert s.compare_set("a", "x", "z") == b"y"
    assert s.compare_set("fresh", "", "v") == b"v"
    assert s.compare_set("missing", "e", "v") == b"e" and not s.check(["missing"])
    assert s.num_keys() == 4
    assert s.delete_key("a") is True and s.delete_key("a") is False
    assert s.num_keys() == 3
    assert s.check(["n", "bin"]) and not s.check(["n", "a"])
    s.wait(["n"])
    assert (s.host, s.port, s.prefix) == ("127.0.0.1", redis_port, "ops/")


def test_prefixes_keep_stores_apart(redis_port):
    a, b = _store(redis_port, "job1/"), _store(redis_port, "job2/")
    a.set("k", "1")
    assert not b.check(["k"]) and b.num_keys() == 0
    b.set("k", "2")
    assert (a.get("k"), b.get("k")) == (b"1", b"2")
    p = dist.PrefixStore("inner", a)
    p.set("z", "3")
    assert a.get("inner/z") == b"3"


def test_errors(redis_port):
    s = _store(redis_port, "err/", seconds=0.3)
    with pytest.raises(dist.DistStoreError, match="Wait timeout after 300ms, keys: nothing"):
        s.get("nothing")
    with pytest.raises(dist.DistStoreError, match="Wait timeout after 200ms, keys: x, y"):
        s.wait(["x", "y"], timedelta(milliseconds=200))
    s.set("text", "abc")
    with pytest.raises(dist.DistStoreError, match="INCRBY of key text failed: ERR value is not an integer"):
        s.add("text", 1)
    with pytest.raises(dist.DistNetworkError, match="could not connect to the Redis server at 127.0.0.1:"):
        dist.RedisStore("127.0.0.1", free_port(), timeout=timedelta(seconds=1))


_GROUP = """
import json, os
from datetime import timedelta
import ember, ember.distributed as dist
rank = int(os.environ["RANK"])
store = dist.RedisStore("127.0.0.1", int(os.environ["REDIS_PORT"]), prefix=os.environ["JOB"],
                        timeout=timedelta(seconds=60))
dist.init_process_group("gloo", store=store, rank=rank, world_size=2, timeout=timedelta(seconds=60))
t = ember.arange(6.0) * (rank + 1)
dist.all_reduce(t)
dist.destroy_process_group()
print(json.dumps(t.tolist()))
"""


def test_process_group_meets_through_redis(redis_port):
    results = launch(_GROUP, 2, {"REDIS_PORT": str(redis_port), "JOB": f"group-{free_port()}/"}, timeout=120)
    for got in results:
        np.testing.assert_array_equal(got, np.arange(6.0) * 3)
