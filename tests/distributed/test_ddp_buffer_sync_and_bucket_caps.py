"""DistributedDataParallel's PyTorch 2.13 arguments: broadcast_buffers (deprecated, with PyTorch's FutureWarnings)
and its replacement forward_sync_buffers (buffers then always synced at initialization), bucket_cap_mb_list (the
k-th bucket's own size limit), batched_grad_copy (accepted: no change to any result). One rank in this process,
and two gloo processes for the buffer syncs."""
from __future__ import annotations

import warnings

import pytest
from dist_launch import free_port, launch

import ember
import ember.distributed as dist
import ember.nn as nn
from ember.nn.parallel import DistributedDataParallel as DDP

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without libgloo-dev")

DEPRECATED = ("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. IMPORTANT: unlike "
              "`broadcast_buffers=False`, `forward_sync_buffers=False` still syncs buffers at init. If you rely on "
              "buffers NOT being synced at init (e.g. rank-local buffers), keep using `broadcast_buffers=False` until "
              "`init_sync_buffers` is available.")
BOTH = ("Both `broadcast_buffers` and `forward_sync_buffers` were specified. `broadcast_buffers` is deprecated and its "
        "value is ignored when `forward_sync_buffers` is provided.")


@pytest.fixture
def world_of_one():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def _warnings(**kw) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ddp = DDP(nn.Linear(3, 2), **kw)
    return ddp, [(w.category, str(w.message)) for w in caught]


def test_buffer_sync_flags_and_their_warnings(world_of_one):
    ddp, caught = _warnings()
    assert caught == [] and ddp.forward_sync_buffers is True and ddp.broadcast_buffers is True
    ddp, caught = _warnings(broadcast_buffers=False)
    assert caught == [(FutureWarning, DEPRECATED)]
    assert ddp.forward_sync_buffers is False and ddp.broadcast_buffers is False
    ddp, caught = _warnings(broadcast_buffers=False, forward_sync_buffers=True)
    assert caught == [(FutureWarning, BOTH)] and ddp.forward_sync_buffers is True
    ddp, caught = _warnings(forward_sync_buffers=False)
    assert caught == [] and ddp.broadcast_buffers is False
    ddp.broadcast_buffers = True  # the old name sets the new flag
    assert ddp.forward_sync_buffers is True


def test_bucket_cap_mb_list_limits_each_bucket(world_of_one):
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 8), nn.Linear(8, 2))
    # Parameters 5..0 (buckets fill from the last registered) hold 8, 64, 32, 256, 32, 128 bytes. Limits 52 and
    # 314 bytes: 8 + 64 reaches 52 -> [5, 4]; 32 + 256 + 32 reaches 314 -> [3, 2, 1]; the rest, under 314 -> [0].
    ddp = DDP(model, bucket_cap_mb_list=[52 / 2**20, 314 / 2**20])
    assert [list(b) for b in ddp.reducer.bucket_indices] == [[5, 4], [3, 2, 1], [0]]
    assert ddp.bucket_bytes_cap == 314


def test_batched_grad_copy_leaves_gradients_as_plain_backward(world_of_one):
    ember.manual_seed(0)
    plain = nn.Linear(5, 3)
    ember.manual_seed(0)
    ddp = DDP(nn.Linear(5, 3), batched_grad_copy=True)
    assert ddp.batched_grad_copy is True
    x = ember.randn(4, 5)
    plain(x).pow(2).sum().backward()
    ddp(x).pow(2).sum().backward()
    for a, b in zip(plain.parameters(), ddp.parameters()):
        assert bool((a.grad == b.grad).all())


def test_skip_all_reduce_unused_params_is_refused_by_name(world_of_one):
    with pytest.raises(ValueError, match="skip_all_reduce_unused_params is not supported"):
        DDP(nn.Linear(2, 2), skip_all_reduce_unused_params=True)


_BUFFERS = '''
import json, os, warnings
import ember, ember.distributed as dist, ember.nn as nn
from ember.nn.parallel import DistributedDataParallel as DDP
warnings.simplefilter("ignore", FutureWarning)
rank = int(os.environ["RANK"])
dist.init_process_group("gloo", rank=rank, world_size=2)
out = {}
for name, kw in [("broadcast_buffers=False", {"broadcast_buffers": False}),
                 ("forward_sync_buffers=False", {"forward_sync_buffers": False}),
                 ("default", {})]:
    model = nn.BatchNorm1d(2)
    model.running_mean.fill_(float(rank + 1))  # rank-local before DDP
    ddp = DDP(model, **kw)
    at_init = model.running_mean.tolist()
    # train-mode statistics differ by rank; the next forward broadcasts rank 0's buffers, when it syncs them
    ddp(ember.full((4, 2), float(10 * rank)) + ember.arange(4.0).view(4, 1)).sum().backward()
    with ember.no_grad():
        ddp(ember.zeros(4, 2))
    out[name] = {"init": at_init, "after": model.running_mean.tolist()}
print(json.dumps(out))
'''


def test_buffer_syncs_at_init_and_in_forward():
    outs = launch(_BUFFERS, 2, env={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port())}, timeout=120)
    for rank, out in enumerate(outs):
        # broadcast_buffers=False: rank-local buffers stay so at init, and forward never syncs them
        assert out["broadcast_buffers=False"]["init"] == [float(rank + 1)] * 2
        # forward_sync_buffers=False: synced at init (rank 0's), then never in forward
        assert out["forward_sync_buffers=False"]["init"] == [1.0, 1.0]
        assert out["default"]["init"] == [1.0, 1.0]
    for name in ("broadcast_buffers=False", "forward_sync_buffers=False"):
        assert outs[0][name]["after"] != outs[1][name]["after"], name
    assert outs[0]["default"]["after"] == outs[1]["default"]["after"]  # synced from rank 0 every forward
