"""ember.cuda on ember's CPU-only build: torch.cuda's names, answering as PyTorch's CPU-only build does
(is_available() False, device_count() 0, the memory statistics 0, the seeding functions no-ops) and
refusing, with its AssertionError, what needs a device (current_device, get_device_name, synchronize).

Where PyTorch's CPU build fails with an internal AttributeError (reset_peak_memory_stats, set_device)
ember does what a GPU-less machine means instead: there is nothing to reset, no device to select."""
import collections
import warnings

from .. import _C, OutOfMemoryError  # noqa: F401  (ember.cuda.OutOfMemoryError is ember's, as PyTorch's)
from ._legacy import CUDA_TENSOR_TYPES
from . import amp  # noqa: F401

globals().update(CUDA_TENSOR_TYPES)

_NOT_COMPILED = "Ember not compiled with CUDA enabled"


def _no_cuda():
    raise AssertionError(_NOT_COMPILED)


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def init():
    _no_cuda()


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


def _device_index(device, optional=False):
    """PyTorch's _get_device_index for cuda: an int, a 'cuda[:i]' string or device; None if optional."""
    if device is None:
        if optional:
            return -1
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    dev = device if isinstance(device, _C.device) else _C.device(device)
    if dev.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {dev}")
    return -1 if dev.index is None else dev.index


# --- devices and streams: nothing to select, so only "none" is accepted ---
def current_device():
    _no_cuda()


def get_device_name(device=None):
    _no_cuda()


def get_device_capability(device=None):
    _no_cuda()


def get_device_properties(device=None):
    _no_cuda()


def set_device(device):
    if _device_index(device) >= 0:
        _no_cuda()


def synchronize(device=None):
    _no_cuda()


def current_stream(device=None):
    _no_cuda()


def default_stream(device=None):
    _no_cuda()


def mem_get_info(device=None):
    _no_cuda()


def ipc_collect():
    _no_cuda()


def get_sync_debug_mode():
    _no_cuda()


class device:
    """Context manager selecting a CUDA device: a negative index (or None) selects nothing and is
    accepted; any real device is refused on entry, as PyTorch's CPU build does."""

    def __init__(self, device):
        self.idx = _device_index(device, optional=True)

    def __enter__(self):
        if self.idx >= 0:
            raise RuntimeError("Ember was compiled without CUDA support")

    def __exit__(self, exc_type, exc, tb):
        return False


class device_of(device):
    """device's context for the device of a tensor: a cpu tensor selects nothing."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class Stream:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("ember.cuda.Stream requires CUDA support")


class Event:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("ember.cuda.Event requires CUDA support")


class StreamContext:
    """stream(None): PyTorch's no-op context; a real stream cannot exist here."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, exc_type, exc, tb):
        return False


def stream(stream):
    return StreamContext(stream)


# --- random numbers: no CUDA generators, so seeding is a no-op (PyTorch's lazy seeding never runs) ---
def manual_seed(seed):
    int(seed)  # PyTorch converts first: a seed that is no integer is refused even here


def manual_seed_all(seed):
    int(seed)


def seed():
    pass


def seed_all():
    pass


def initial_seed():
    _no_cuda()


def get_rng_state(device="cuda"):
    _no_cuda()


def get_rng_state_all():
    return []


def set_rng_state(new_state, device="cuda"):
    pass


def set_rng_state_all(new_states):
    pass


# --- memory: nothing is ever allocated on a CUDA device here ---
def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def memory_cached(device=None):
    warnings.warn("`ember.cuda.memory_cached` has been renamed to `ember.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return 0


def max_memory_cached(device=None):
    warnings.warn("`ember.cuda.max_memory_cached` has been renamed to `ember.cuda.max_memory_reserved`",
                  FutureWarning, stacklevel=2)
    return 0


def memory_stats(device=None):
    return collections.OrderedDict()


def memory_stats_as_nested_dict(device=None):
    return {}


def reset_peak_memory_stats(device=None):
    pass


def reset_accumulated_memory_stats(device=None):
    pass


def reset_max_memory_allocated(device=None):
    warnings.warn("ember.cuda.reset_max_memory_allocated now calls ember.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning, stacklevel=2)


def reset_max_memory_cached(device=None):
    warnings.warn("ember.cuda.reset_max_memory_cached now calls ember.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
