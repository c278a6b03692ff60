"""ember.get_default_device / set_default_device and `with ember.device(...)`, as PyTorch 2.13's:
the factories without device= follow it (cpu and meta here), explicit devices and *_like ops do not,
and it is per thread."""
import threading

import numpy as np
import pytest

import ember


@pytest.fixture(autouse=True)
def _restore():
    yield
    ember.set_default_device(None)


FACTORIES = [lambda: ember.zeros(2), lambda: ember.ones(2), lambda: ember.empty(2), lambda: ember.full((2,), 1.0),
             lambda: ember.arange(3), lambda: ember.linspace(0, 1, 3), lambda: ember.eye(2), lambda: ember.rand(2),
             lambda: ember.randn(2), lambda: ember.randint(3, (2,)), lambda: ember.randperm(3),
             lambda: ember.tensor([1.0, 2.0]), lambda: ember.as_tensor(np.ones(2)),
             lambda: ember.empty_strided((2,), (1,))]


def test_starts_on_cpu():
    assert ember.get_default_device() == ember.device("cpu")


@pytest.mark.parametrize("make", FACTORIES)
def test_factories_follow_meta(make):
    ember.set_default_device("meta")
    assert ember.get_default_device() == ember.device("meta")
    assert make().device.type == "meta"
    assert ember.zeros(2, device="cpu").device.type == "cpu"  # an explicit device wins
    ember.set_default_device(None)
    assert make().device.type == "cpu"


def test_like_and_new_ops_follow_their_input():
    ember.set_default_device("meta")
    cpu = ember.ones(2, device="cpu")
    assert ember.zeros_like(cpu).device.type == "cpu"
    assert cpu.new_zeros(2).device.type == "cpu"
    assert (cpu + 1).device.type == "cpu"


def test_per_thread():
    ember.set_default_device("meta")
    seen = []
    worker = threading.Thread(target=lambda: seen.append((ember.get_default_device(), ember.zeros(1).device)))
    worker.start()
    worker.join()
    assert seen == [(ember.device("cpu"), ember.device("cpu"))]


def test_device_as_context_manager_nests():
    with ember.device("meta"):
        assert ember.zeros(1).device.type == "meta"
        with ember.device("cpu"):
            assert ember.zeros(1).device.type == "cpu"
        assert ember.get_default_device() == ember.device("meta")
    assert ember.get_default_device() == ember.device("cpu")


def test_index_and_cuda():
    ember.set_default_device("cpu:0")
    assert ember.get_default_device() == ember.device("cpu", 0)
    assert ember.zeros(1).device == ember.device("cpu")
    ember.set_default_device("cuda")  # accepted, as PyTorch; then creation and the query fail
    with pytest.raises(AssertionError, match="Ember not compiled with CUDA enabled"):
        ember.zeros(1)
    with pytest.raises(AssertionError, match="Ember not compiled with CUDA enabled"):
        ember.get_default_device()
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
        ember.set_default_device(1)
    with pytest.raises(RuntimeError, match="device string: gpu"):
        ember.set_default_device("gpu")


def test_module_created_under_meta_then_materialized_shapes():
    with ember.device("meta"):
        m = ember.nn.Linear(3, 4)
    assert m.weight.device.type == "meta" and m.weight.shape == (4, 3)
