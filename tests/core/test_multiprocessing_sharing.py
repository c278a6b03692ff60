"""ember.multiprocessing: tensors, Parameters and storages sent through its queues and pipes share
memory with the sender (a write in the child is read in the parent), under both of PyTorch's sharing
strategies; what PyTorch refuses to send is refused with its message. Children are forked (fast);
test_multiprocessing_spawn.py covers the spawn start method."""
import multiprocessing
import os
from multiprocessing.reduction import ForkingPickler

import pytest

import ember
import ember.multiprocessing as mp

fork = mp.get_context("fork")


@pytest.fixture(params=["file_descriptor", "file_system"])
def strategy(request):
    old = mp.get_sharing_strategy()
    mp.set_sharing_strategy(request.param)
    yield request.param
    mp.set_sharing_strategy(old)


def _ember_shm_names():
    return {n for n in os.listdir("/dev/shm") if n.startswith(f"ember_{os.getpid()}_")}


def _add_ten(q, done):
    t = q.get()
    t += 10
    done.put((t.is_shared(), t.tolist()))


def test_queue_tensor_shares_memory_with_sender(strategy):
    q, done = fork.Queue(), fork.Queue()
    base = ember.arange(5.)
    child = fork.Process(target=_add_ten, args=(q, done))
    child.start()
    q.put(base[1:])  # a view: its storage (all of base) moves to shared memory in place
    shared_in_child, seen = done.get(timeout=30)
    child.join(30)
    assert child.exitcode == 0 and shared_in_child and seen == [11.0, 12.0, 13.0, 14.0]
    assert base.is_shared() and base.tolist() == [0.0, 11.0, 12.0, 13.0, 14.0]


def test_no_shared_memory_name_outlives_its_storage(strategy):
    before = _ember_shm_names()
    t = ember.ones(8)
    ForkingPickler.dumps(t)
    if strategy == "file_system":
        assert len(_ember_shm_names() - before) == 1  # named while t lives
    del t
    assert _ember_shm_names() == before


def _parameter_and_views(conn):
    param, (whole, part) = conn.recv()
    param.data.fill_(7.0)
    part[0] = -1.0
    conn.send((type(param).__name__, param.requires_grad, part.data_ptr() - whole.data_ptr()))


def test_pipe_parameter_keeps_class_and_requires_grad():
    parent_end, child_end = fork.Pipe()
    param = ember.nn.Parameter(ember.zeros(3))
    frozen = ember.nn.Parameter(ember.zeros(2), requires_grad=False)
    whole = ember.arange(6.)
    child = fork.Process(target=_parameter_and_views, args=(child_end,))
    child.start()
    parent_end.send((param, (whole, whole[2:])))
    name, requires_grad, offset = parent_end.recv()
    child.join(30)
    assert (name, requires_grad) == ("Parameter", True)
    assert offset == 8  # one message, one storage: the two tensors stay views of one memory
    assert param.tolist() == [7.0] * 3 and whole[2].item() == -1.0
    back = ForkingPickler.loads(ForkingPickler.dumps(frozen))
    assert type(back) is ember.nn.Parameter and not back.requires_grad


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_storages_travel_shared():
    u = ember.UntypedStorage([1, 2, 3])
    typed = ember.FloatStorage([1.5, 2.5])
    u2, typed2 = ForkingPickler.loads(ForkingPickler.dumps((u, typed)))
    assert u2 is u  # the sender's own handle comes back as its own storage
    assert typed2.dtype == ember.float32 and typed2.tolist() == [1.5, 2.5] and typed2.is_shared()
    empty = ForkingPickler.loads(ForkingPickler.dumps(ember.UntypedStorage(0)))
    assert empty.nbytes() == 0


def test_empty_meta_and_dtypes_round_trip():
    for t in (ember.zeros(0), ember.tensor([True, False]), ember.tensor([1, 2], dtype=ember.int64),
              ember.arange(6.).reshape(2, 3).t()):
        back = ForkingPickler.loads(ForkingPickler.dumps(t))
        assert back.dtype == t.dtype and back.shape == t.shape and back.stride() == t.stride()
        assert back.tolist() == t.tolist()
    meta = ForkingPickler.loads(ForkingPickler.dumps(ember.empty(2, 3, device="meta")))
    assert meta.device.type == "meta" and meta.shape == (2, 3)
    with pytest.raises(RuntimeError, match="^Cannot pickle meta storage; try pickling a meta tensor instead$"):
        ForkingPickler.dumps(ember.empty(2, device="meta").untyped_storage())


def test_non_leaf_requiring_grad_is_refused():
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                                           "since autograd does not support crossing process boundaries."):
        ForkingPickler.dumps(x * 2)
    back = ForkingPickler.loads(ForkingPickler.dumps(x))  # a leaf goes, with requires_grad
    assert back.requires_grad and back.is_leaf


def test_sharing_strategies():
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    assert mp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(AssertionError, match="^invalid sharing strategy 'shm', expected one of "):
        mp.set_sharing_strategy("shm")


def test_module_is_multiprocessing_with_its_api():
    assert mp.Process is multiprocessing.Process and mp.get_context is not None
    assert {"Queue", "Pipe", "Process", "get_context", "set_sharing_strategy"} <= set(mp.__all__)
    assert ember.multiprocessing is mp


def _train_step(i, model):
    with ember.no_grad():
        for p in model.parameters():
            p.add_(1.0)
        model.bn.running_mean.fill_(3.0)


class _Small(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = ember.nn.Linear(3, 2)
        self.bn = ember.nn.BatchNorm1d(2)


def test_module_share_memory_then_fork():
    model = _Small()
    params = list(model.parameters())
    before = [p.detach().clone() for p in params]
    assert model.share_memory() is model
    assert [id(p) for p in model.parameters()] == [id(p) for p in params]  # the same Parameters, moved
    assert all(p.is_shared() for p in params) and model.bn.running_mean.is_shared()
    mp.start_processes(_train_step, args=(model,), nprocs=1, start_method="fork")
    for p, b in zip(params, before):
        assert ember.allclose(p, b + 1.0)
    assert model.bn.running_mean.tolist() == [3.0, 3.0]
