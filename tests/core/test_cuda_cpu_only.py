"""ember.cuda, ember.accelerator and the cuda/xpu tensor and module methods on ember's CPU-only
build, against PyTorch 2.13's CPU-only answers and messages (written out here; 'Torch' -> 'Ember')."""
import collections
import warnings

import pytest

import ember

NOT_COMPILED = "Ember not compiled with CUDA enabled"
NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def test_availability_and_counts():
    assert ember.cuda.is_available() is False
    assert ember.cuda.device_count() == 0
    assert ember.cuda.is_initialized() is False
    assert ember.cuda.is_bf16_supported() is False
    assert ember.cuda.get_arch_list() == [] and ember.cuda.get_gencode_flags() == ""


@pytest.mark.parametrize("name", ["current_device", "get_device_name", "get_device_capability",
                                  "get_device_properties", "synchronize", "init", "initial_seed", "get_rng_state",
                                  "current_stream", "default_stream", "mem_get_info", "ipc_collect"])
def test_device_queries_raise_pytorchs_assertion(name):
    with pytest.raises(AssertionError, match=NOT_COMPILED):
        getattr(ember.cuda, name)()


def test_memory_statistics_are_zero():
    for name in ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"]:
        assert getattr(ember.cuda, name)() == 0
        assert getattr(ember.cuda, name)(0) == 0
    assert ember.cuda.memory_stats() == collections.OrderedDict()
    assert ember.cuda.memory_stats_as_nested_dict() == {}
    assert ember.cuda.empty_cache() is None
    assert ember.cuda.reset_peak_memory_stats() is None  # PyTorch's CPU build trips on an internal name here
    assert ember.cuda.reset_accumulated_memory_stats() is None
    with pytest.warns(FutureWarning, match="renamed to `ember.cuda.memory_reserved`"):
        assert ember.cuda.memory_cached() == 0
    with pytest.warns(FutureWarning, match="resets /all/ peak memory stats"):
        ember.cuda.reset_max_memory_allocated()


def test_seeding_is_a_no_op_that_leaves_the_cpu_generator_alone():
    ember.manual_seed(3)
    want = ember.rand(4).tolist()
    ember.manual_seed(3)
    assert ember.cuda.manual_seed(7) is None and ember.cuda.manual_seed_all(7) is None
    ember.cuda.seed()
    ember.cuda.seed_all()
    assert ember.rand(4).tolist() == want
    assert ember.cuda.get_rng_state_all() == []
    with pytest.raises(ValueError, match="invalid literal for int"):
        ember.cuda.manual_seed("a")


def test_device_selection():
    ember.cuda.set_device(-1)  # PyTorch: a negative index selects nothing
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        ember.cuda.set_device("cpu")
    with pytest.raises(ValueError, match="with a specified index or an integer, but got:None"):
        ember.cuda.set_device(None)
    with pytest.raises(AssertionError, match=NOT_COMPILED):
        ember.cuda.set_device(0)
    with ember.cuda.device(-1):
        pass
    with ember.cuda.device_of(ember.zeros(1)):
        pass
    with pytest.raises(RuntimeError, match="compiled without CUDA support"):
        with ember.cuda.device(0):
            pass
    with pytest.raises(RuntimeError, match="requires CUDA support"):
        ember.cuda.Stream()
    with ember.cuda.stream(None):
        pass
    assert ember.cuda.OutOfMemoryError is ember.OutOfMemoryError


def test_cuda_legacy_types():
    assert not isinstance(ember.zeros(2), ember.cuda.FloatTensor)
    assert ember.cuda.LongTensor.dtype == ember.int64
    with pytest.raises(TypeError, match="type ember.cuda.FloatTensor not available. Ember not compiled with CUDA"):
        ember.cuda.FloatTensor(2)


def test_amp_is_disabled_with_pytorchs_warnings():
    with pytest.warns(UserWarning, match="CUDA is not available. Disabling autocast"), pytest.warns(FutureWarning):
        ctx = ember.cuda.amp.autocast()
    with ctx:
        assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype == ember.float32
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  Disabling."), \
            pytest.warns(FutureWarning, match="deprecated"):
        scaler = ember.cuda.amp.GradScaler()
    w = ember.nn.Parameter(ember.tensor([1.0, 2.0]))
    opt = ember.optim.SGD([w], lr=0.5)
    loss = (w * w).sum()
    assert scaler.scale(loss) is loss and not scaler.is_enabled() and scaler.get_scale() == 1.0
    loss.backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    assert w.tolist() == [0.0, 0.0]  # 1 - 0.5*2, 2 - 0.5*4: the step ran, unscaled
    assert scaler.state_dict() == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        with pytest.warns(FutureWarning):
            ember.cuda.amp.autocast(enabled=False)


@pytest.mark.parametrize("move", [
    lambda t: t.to("cuda"), lambda t: t.to("cuda:1"), lambda t: t.to(ember.device("cuda")), lambda t: t.cuda(),
    lambda t: t.cuda("cuda:0"), lambda t: ember.zeros(2, device="cuda"), lambda t: ember.tensor([1.0], device="cuda"),
    lambda t: ember.randn(2, device="cuda"), lambda t: ember.arange(3, device="cuda"),
    lambda t: ember.zeros_like(t, device="cuda"), lambda t: t.new_zeros(2, device="cuda"),
    lambda t: ember.nn.Linear(2, 2).cuda(), lambda t: ember.nn.Linear(2, 2).to("cuda"),
    lambda t: ember.zeros(2, device="meta").cuda(), lambda t: t.type("ember.cuda.FloatTensor"),
])
def test_moving_to_cuda_raises_pytorchs_assertion(move):
    with pytest.raises(AssertionError, match=NOT_COMPILED):
        move(ember.zeros(2))


@pytest.mark.parametrize("move", [lambda t: t.to(0), lambda t: t.cuda(0), lambda t: ember.zeros(2, device=0),
                                  lambda t: ember.nn.Linear(2, 2).cuda(0), lambda t: t.pin_memory(),
                                  lambda t: ember.device(0)])
def test_a_bare_index_needs_an_accelerator(move):
    with pytest.raises(RuntimeError, match=NO_ACCELERATOR):
        move(ember.zeros(2))


def test_other_backends_and_predicates():
    t = ember.zeros(2)
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        t.cuda("cpu")
    with pytest.raises(AssertionError, match="Ember not compiled with XPU enabled"):
        t.xpu()
    with pytest.raises(AssertionError, match="Ember not compiled with MTIA enabled"):
        ember.nn.Linear(1, 1).mtia()
    assert ember.nn.ReLU().cuda().__class__ is ember.nn.ReLU  # nothing to move
    for name in ["is_cuda", "is_xpu", "is_mps", "is_meta", "is_ipu", "is_mtia", "is_maia", "is_vulkan", "is_xla",
                 "is_mkldnn", "is_quantized", "is_nested"]:
        assert getattr(t, name) is False, name
    assert t.is_cpu is True and t.is_pinned() is False
    m = ember.zeros(2, device="meta")
    assert m.is_meta is True and m.is_cpu is False and m.is_cuda is False


def test_accelerator_on_a_cpu_only_machine():
    acc = ember.accelerator
    assert acc.is_available() is False
    assert acc.current_accelerator() is None and acc.current_accelerator(check_available=True) is None
    assert acc.device_count() == 0
    for name in ["current_device_index", "synchronize", "current_stream", "empty_cache", "memory_allocated"]:
        with pytest.raises(RuntimeError, match=NO_ACCELERATOR):
            getattr(acc, name)()
    with pytest.raises(RuntimeError, match=NO_ACCELERATOR):
        acc.set_device_index(0)
    with acc.device_index(None):
        pass
    with pytest.raises(RuntimeError, match=NO_ACCELERATOR):
        with acc.device_index(0):
            pass
