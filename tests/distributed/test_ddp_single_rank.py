"""DistributedDataParallel's argument errors and the one-rank case, in this process (a world of one over a
HashStore): PyTorch's messages, and gradients left exactly as plain backward makes them."""
from __future__ import annotations

import pytest

import ember
import ember.distributed as dist
import ember.nn as nn
from ember.nn.parallel import DistributedDataParallel as DDP

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without libgloo-dev")


@pytest.fixture
def world_of_one():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def test_a_module_without_trainable_parameters_is_refused(world_of_one):
    with pytest.raises(RuntimeError, match="doesn't have any parameter that requires a gradient"):
        DDP(nn.ReLU())


def test_device_ids_on_a_cpu_module_are_refused(world_of_one):
    with pytest.raises(ValueError, match="device_ids and output_device arguments only work with"):
        DDP(nn.Linear(2, 2), device_ids=[0])


def test_without_a_process_group():
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DDP(nn.Linear(2, 2))


def test_comm_hook_registered_once(world_of_one):
    from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
    model = DDP(nn.Linear(2, 2))
    model.register_comm_hook(None, default_hooks.allreduce_hook)
    with pytest.raises(RuntimeError, match="can only be called once"):
        model.register_comm_hook(None, default_hooks.allreduce_hook)
    with pytest.raises(TypeError, match="must be callable"):
        DDP(nn.Linear(2, 2)).register_comm_hook(None, 3)


def test_a_hook_must_return_a_future(world_of_one):
    model = DDP(nn.Linear(2, 2))
    model.register_comm_hook(None, lambda state, bucket: bucket.buffer())
    with pytest.raises(RuntimeError, match="must return an ember.futures.Future"):
        model(ember.ones(3, 2)).sum().backward()


def test_one_rank_leaves_gradients_as_plain_backward_does(world_of_one):
    ember.manual_seed(0)
    plain = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2))
    ember.manual_seed(0)
    wrapped = DDP(nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2)), bucket_cap_mb=0.00001)
    x = ember.randn(6, 4)
    plain(x).pow(2).sum().backward()
    wrapped(x).pow(2).sum().backward()
    assert not wrapped.reducer.armed  # the reduction finished with backward
    assert len(wrapped.reducer.bucket_indices) > 1
    for a, b in zip(plain.parameters(), wrapped.module.parameters()):
        assert ember.equal(a.grad, b.grad)


def test_gradient_as_bucket_view_makes_grads_views_of_the_buckets(world_of_one):
    model = DDP(nn.Linear(3, 2), gradient_as_bucket_view=True)
    model(ember.ones(1, 3)).sum().backward()
    buffers = [model.reducer.bucket_buffer(i) for i in range(len(model.reducer.bucket_indices))]
    ptrs = {b.data_ptr() for b in buffers}
    for p in model.module.parameters():
        assert any(b.data_ptr() <= p.grad.data_ptr() < b.data_ptr() + b.numel() * 4 for b in buffers), ptrs


def test_bucket_assignment_puts_the_last_parameters_first():
    from ember.nn.parallel._ddp_buckets import bucket_assignment
    params = [ember.zeros(256 * 1024) for _ in range(3)] + [ember.zeros(10, dtype=ember.float64)]
    # From the last: the float64 one opens its own bucket; float32 parameter 2 (1 MiB) fills the 1 MiB first
    # bucket alone; 1 and 0 share a 25 MiB one; the buckets still open are closed in the order they opened.
    assert bucket_assignment(params, bucket_cap_mb=25) == [[2], [3], [1, 0]]
    assert bucket_assignment(params, bucket_cap_mb=0.5) == [[2], [1], [0], [3]]
