"""DataLoader with worker processes: same batches as in-process, errors, dead workers, timeouts,
worker info and seeding, persistent workers, iterable sharding, shared memory, and cleanup."""
import gc
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import ember
from ember.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="POSIX shared memory and fork")


def shm_leftovers(pid=None):
    prefix = f"ember_dl_{pid or os.getpid()}_"
    return [n for n in os.listdir("/dev/shm") if n.startswith(prefix)]


def shm_mappings():
    with open("/proc/self/maps") as f:
        return [line for line in f if "ember_dl_" in line]


def assert_clean():
    gc.collect()
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []
    assert shm_leftovers() == []


def pid_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return {"x": ember.tensor([float(i), float(i * i)]), "i": i, "name": f"s{i}"}

    def __len__(self):
        return self.n


class Failing(Squares):
    def __getitem__(self, i):
        if i == 5:
            raise ValueError("bad sample 5")
        return super().__getitem__(i)


class WithPid(Squares):
    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "pid": os.getpid(), "id": info.id, "seed": info.seed, "nw": info.num_workers,
                "tag": _init_tag, "rand": float(ember.rand(()).item())}


class Sleepy(Squares):
    def __getitem__(self, i):
        if i == 3:
            time.sleep(5)
        return i


class Suicidal(Squares):
    def __getitem__(self, i):
        if i == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Stream(IterableDataset):
    def __init__(self, n, shard):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = get_worker_info()
        if not self.shard or info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


_init_tag = None


def _init(worker_id):
    global _init_tag
    _init_tag = f"init{worker_id}"


def flat(batches):
    return [i for b in batches for i in b["i"].tolist()]


def test_two_workers_same_batches_as_none():
    x = ember.randn(300, 1, 8, 8)
    y = ember.randint(0, 10, (300,))
    for ds in (TensorDataset(x, y), Squares(101)):
        runs = []
        for nw in (0, 2):
            ember.manual_seed(1234)
            runs.append([b for b in DataLoader(ds, batch_size=16, shuffle=True, num_workers=nw)])
        (a, b) = runs
        assert len(a) == len(b)
        for ba, bb in zip(a, b):
            if isinstance(ba, dict):
                assert ba["i"].tolist() == bb["i"].tolist() and ba["name"] == bb["name"]
                np.testing.assert_array_equal(ba["x"].numpy(), bb["x"].numpy())
            else:
                for ta, tb in zip(ba, bb):
                    assert ta.dtype == tb.dtype
                    np.testing.assert_array_equal(ta.numpy(), tb.numpy())
        if isinstance(ds, Squares):
            assert sorted(flat(a)) == list(range(101)) and flat(a) != list(range(101))
        g0, g2 = ember.Generator(), ember.Generator()
        g0.manual_seed(9), g2.manual_seed(9)
        a = [b[1].tolist() if isinstance(b, list) else b["i"].tolist()
             for b in DataLoader(ds, batch_size=7, shuffle=True, generator=g0)]
        b = [b[1].tolist() if isinstance(b, list) else b["i"].tolist()
             for b in DataLoader(ds, batch_size=7, shuffle=True, generator=g2, num_workers=2)]
        assert a == b
    assert_clean()


def test_batches_arrive_in_order_through_shared_memory():
    ds = Squares(50)
    dl = DataLoader(ds, batch_size=4, num_workers=2, prefetch_factor=3)
    it = iter(dl)
    first = next(it)
    # The batch tensor lives in a shared-memory mapping (its name already unlinked).
    ptr = first["x"].data_ptr()
    maps = [line.split()[0] for line in shm_mappings()]
    assert any(int(r.split("-")[0], 16) <= ptr < int(r.split("-")[1], 16) for r in maps)
    rest = list(it)
    assert flat([first] + rest) == list(range(50))
    assert [b["name"] for b in rest][-1] == ["s48", "s49"]
    np.testing.assert_array_equal(rest[0]["x"].numpy(), np.array([[i, i * i] for i in range(4, 8)], np.float32))
    assert_clean()
    del first, rest, it
    gc.collect()
    assert shm_mappings() == []  # the mapping goes with the last tensor that views it


def test_worker_exception_is_reraised_with_traceback():
    dl = DataLoader(Failing(20), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as exc:
        list(dl)
    msg = str(exc.value)
    assert "Caught ValueError in DataLoader worker process 0." in msg
    assert "Original Traceback (most recent call last):" in msg
    assert 'raise ValueError("bad sample 5")' in msg and "bad sample 5" in msg
    assert_clean()


class TwoArgError(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


class RaisesTwoArg(Squares):
    def __getitem__(self, i):
        raise TwoArgError(1, 2)


def test_exception_type_without_message_constructor_becomes_runtime_error():
    with pytest.raises(RuntimeError, match="Caught TwoArgError in DataLoader worker process 0"):
        list(DataLoader(RaisesTwoArg(4), batch_size=2, num_workers=1))

    class Local(Exception):  # not importable in the main process: RuntimeError, original name kept
        pass

    class RaisesLocal(Squares):
        def __getitem__(self, i):
            raise Local("x")
    with pytest.raises(RuntimeError, match="Caught Local in DataLoader worker process 0"):
        list(DataLoader(RaisesLocal(4), batch_size=2, num_workers=1))
    with pytest.raises(KeyError, match="Caught KeyError"):
        list(DataLoader([{}], batch_size=None, num_workers=1, collate_fn=lambda d: d["missing"]))
    assert_clean()


def test_killed_worker_raises_not_hangs():
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(DataLoader(Suicidal(20), batch_size=1, num_workers=2))
    assert time.monotonic() - t0 < 10
    assert_clean()


def test_timeout():
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        list(DataLoader(Sleepy(8), batch_size=1, num_workers=1, timeout=0.5))
    assert time.monotonic() - t0 < 4  # the sleeping worker is terminated, not waited for
    assert_clean()


def test_worker_info_seed_and_init_fn():
    g = ember.Generator()
    g.manual_seed(77)
    dl = DataLoader(WithPid(12), batch_size=None, num_workers=2, worker_init_fn=_init, generator=g)
    samples = list(dl)
    ref = ember.Generator()
    ref.manual_seed(77)
    base_seed = int(ember.empty((), dtype=ember.int64).random_(generator=ref).item())
    assert {s["id"] for s in samples} == {0, 1} and {s["nw"] for s in samples} == {2}
    for s in samples:
        assert s["seed"] == base_seed + s["id"]
        assert s["tag"] == f"init{s['id']}"
    assert len({s["pid"] for s in samples}) == 2 and os.getpid() not in {s["pid"] for s in samples}
    # Worker w was seeded with base_seed + w: its first draw is the same as a fresh seed there.
    firsts = {}
    for s in samples:
        firsts.setdefault(s["id"], s["rand"])
    for wid, r in firsts.items():
        ember.manual_seed(base_seed + wid)
        assert r == float(ember.rand(()).item())
    assert get_worker_info() is None
    assert_clean()


def _failing_init(worker_id):
    raise OSError(f"cannot open shard {worker_id}")


def test_worker_init_fn_error_is_reraised():
    with pytest.raises(OSError, match=r"(?s)Caught OSError in DataLoader worker process \d.*cannot open shard"):
        list(DataLoader(Squares(8), batch_size=2, num_workers=2, worker_init_fn=_failing_init))
    assert_clean()


def test_worker_info_is_read_only():
    class Probe(Squares):
        def __getitem__(self, i):
            info = get_worker_info()
            try:
                info.id = 5
            except RuntimeError as e:
                return str(e)
            return "assigned"
    assert list(DataLoader(Probe(1), batch_size=None, num_workers=1)) == [
        "Cannot assign attributes to WorkerInfo objects"]
    assert_clean()


def test_persistent_workers_across_epochs():
    dl = DataLoader(WithPid(10), batch_size=3, num_workers=2, persistent_workers=True, worker_init_fn=_init)
    e1 = list(dl)
    pids = {p for b in e1 for p in b["pid"].tolist()}
    assert flat(e1) == list(range(10)) and len(pids) == 2
    assert len(multiprocessing.active_children()) == 2  # still there between epochs
    # An epoch left early, then a full one: stale batches must not leak into the next epoch.
    it = iter(dl)
    next(it)
    e3 = list(iter(dl))
    assert flat(e3) == list(range(10))
    assert {p for b in e3 for p in b["pid"].tolist()} == pids
    it = dl._iterator
    del dl, e1, e3
    it._shutdown_workers()
    assert_clean()


@pytest.mark.parametrize("shard", [True, False])
def test_iterable_dataset_with_workers(shard):
    out = [v for b in DataLoader(Stream(11, shard), batch_size=2, num_workers=2) for v in b.tolist()]
    if shard:
        assert sorted(out) == list(range(11))
    else:  # each worker iterates its own copy: every item twice
        assert sorted(out) == sorted(list(range(11)) * 2)
    assert_clean()


def test_iterable_dataset_uneven_shards_drop_last():
    # Worker 0 yields 0,2,4,6 (two full batches); worker 1 yields 1,3,5 (one full batch, one dropped).
    out = [b.tolist() for b in DataLoader(Stream(7, True), batch_size=2, num_workers=2, drop_last=True)]
    assert sorted(sum(out, [])) == [0, 1, 2, 3, 4, 6] and all(len(b) == 2 for b in out)
    assert_clean()


def test_early_break_and_gc_leave_nothing_behind():
    ds = TensorDataset(ember.randn(2000, 1, 28, 28), ember.arange(2000))
    for _ in range(2):
        for i, (xb, yb) in enumerate(DataLoader(ds, batch_size=64, shuffle=True, num_workers=2)):
            if i == 2:
                break
        kept = xb
        del xb, yb
        assert_clean()  # the abandoned iterator was collected: workers joined, blocks unlinked
    assert kept.shape == (64, 1, 28, 28) and float(kept.abs().sum()) > 0
    it = iter(DataLoader(ds, batch_size=64, num_workers=2))
    pids = [w.pid for w in it._workers]
    next(it)
    del it
    gc.collect()
    assert not any(pid_alive(p) for p in pids)
    assert_clean()


def test_spawn_context():
    ds = TensorDataset(ember.arange(20).reshape(10, 2), ember.arange(10))
    dl = DataLoader(ds, batch_size=4, num_workers=2, multiprocessing_context="spawn")
    out = list(dl)
    np.testing.assert_array_equal(np.concatenate([b[0].numpy() for b in out]), np.arange(20).reshape(10, 2))
    assert_clean()


def test_interpreter_exit_cleans_up(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent("""
        import os, ember
        from ember.utils.data import DataLoader, TensorDataset
        ds = TensorDataset(ember.arange(400.).reshape(100, 4))
        persistent = DataLoader(ds, batch_size=4, num_workers=2, persistent_workers=True)
        it1 = iter(persistent); next(it1)
        abandoned = iter(DataLoader(ds, batch_size=4, num_workers=2)); next(abandoned)
        pids = [w.pid for w in it1._workers + abandoned._workers]
        print(os.getpid(), *pids, flush=True)
    """))
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert "leaked" not in res.stderr and "Traceback" not in res.stderr, res.stderr
    main_pid, *pids = map(int, res.stdout.split())
    assert len(pids) == 4
    time.sleep(0.2)
    assert not any(pid_alive(p) for p in pids)
    assert shm_leftovers(main_pid) == []


def test_recycled_blocks_never_overwrite_live_batches():
    n, bs = 64 * 30, 64
    ref = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    ds = TensorDataset(ember.from_numpy(ref.copy()))
    kept, counts = [], []
    for i, (b,) in enumerate(DataLoader(ds, batch_size=bs, num_workers=2)):
        np.testing.assert_array_equal(b.numpy(), ref[i * bs:(i + 1) * bs])
        if i % 4 == 0:
            kept.append((i, b))
        counts.append(len(shm_leftovers()))
        del b
    for i, b in kept:  # still intact after the workers reused every freed block
        np.testing.assert_array_equal(b.numpy(), ref[i * bs:(i + 1) * bs])
    # Freed blocks are reused: the number alive tracks what is in flight plus what is kept,
    # not the number of batches.
    assert max(counts) <= 4 + len(kept) + 4, counts
    del kept
    assert_clean()
