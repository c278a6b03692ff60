"""ember: tensors and math over a C++ core, with PyTorch's names and semantics."""
import warnings as _warnings

from . import _openblas  # noqa: F401  (loads OpenBLAS, which _C links to, first)
from . import _C
from ._C import (  # noqa: F401
    TensorBase, dtype, device, get_default_dtype, set_default_dtype, promote_types, result_type,
    can_cast, get_num_threads, set_num_threads, get_num_interop_threads, set_num_interop_threads,
    bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128,
)
# The top-level ops of the op database (ember._C.__all__, generated; ops with a `namespace:` are in
# ember.linalg, ember.special, ...), then the hand-written C++ functions PyTorch has at its top level.
# Python functions imported below replace an op of the same name (split, nonzero...).
from ._C import *  # noqa: F403
from ._C import (  # noqa: F401
    tensor, as_tensor, from_numpy, from_dlpack, is_anomaly_enabled, is_anomaly_check_nan_enabled)
# The thread count comes from MKL_NUM_THREADS / OMP_NUM_THREADS as in PyTorch; a value that is
# not a positive integer is ignored with a warning rather than failing the import.
if _C._num_threads_env_warning():
    _warnings.warn(_C._num_threads_env_warning(), RuntimeWarning, stacklevel=2)
from ._size import Size  # noqa: F401
from ._tensor import OutOfMemoryError, Tensor  # noqa: F401
from ._tensor_str import set_printoptions  # noqa: F401
from ._dtype_info import finfo, iinfo, is_floating_point, is_complex, is_nonzero  # noqa: F401
from . import _ops_python as _ops_python
from . import return_types  # noqa: F401
from . import overrides  # noqa: F401
from . import ops, utils  # noqa: F401
from . import random  # noqa: F401
from .random import (  # noqa: F401
    Generator, default_generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state)
from ._ops_python import *  # noqa: F401,F403
from ._products import einsum, tensordot  # noqa: F401
from ._ops_sort import unique, unique_consecutive  # noqa: F401
from ._linalg_legacy import *  # noqa: F401,F403
from ._ops_shape_extra import *  # noqa: F401,F403
from ._ops_math_extra import *  # noqa: F401,F403
from ._ops_misc import *  # noqa: F401,F403
from ._memory_format import (  # noqa: F401
    memory_format, contiguous_format, preserve_format, channels_last, channels_last_3d,
    clone, empty, empty_like, zeros_like, ones_like, full_like, rand_like, randn_like, randint_like)
from ._spectral import stft, istft  # noqa: F401
from ._rnn_functional import *  # noqa: F401,F403
from ._lobpcg import lobpcg  # noqa: F401
from ._warn_always import set_warn_always, is_warn_always_enabled  # noqa: F401
from . import serialization  # noqa: F401
from . import storage  # noqa: F401
from .storage import *  # noqa: F401,F403  (UntypedStorage, TypedStorage, FloatStorage ..., is_storage, from_file)
from .serialization import save, load  # noqa: F401
from . import autograd  # noqa: F401
from . import profiler  # noqa: F401
from .autograd.grad_mode import (  # noqa: F401
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, is_inference_mode_enabled)

from ._version import __version__  # noqa: F401

# PyTorch's dtype aliases.
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128

# PyTorch's public underscore samplers (torch._standard_gamma is what its Gamma draws with).
from ._C import _standard_gamma, _standard_gamma_grad  # noqa: E402,F401

from . import nn  # noqa: E402,F401  (after the ops: nn uses them)
from ._functional_toplevel import *  # noqa: E402,F401,F403  (torch.conv2d, torch.dropout...: nn's ops)
from ._embedding_bag_toplevel import embedding_bag  # noqa: E402,F401
from . import optim  # noqa: E402,F401  (after nn: its hooks' handle class)
from . import special  # noqa: E402,F401
from . import fft  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
from . import testing  # noqa: E402,F401
from . import backends  # noqa: E402,F401
from ._deterministic import (  # noqa: E402,F401
    are_deterministic_algorithms_enabled, get_deterministic_debug_mode, is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode, use_deterministic_algorithms)
from ._matmul_precision import get_float32_matmul_precision, set_float32_matmul_precision  # noqa: E402,F401
from ._legacy_tensor_types import *  # noqa: E402,F401,F403  (FloatTensor ... BoolTensor, set_default_tensor_type)
from ._default_device import get_default_device, set_default_device  # noqa: E402,F401
from . import func  # noqa: E402,F401
from .func import vmap  # noqa: E402,F401
from . import cuda, accelerator  # noqa: E402,F401
from ._layout import layout, strided, sparse_coo, sparse_csr  # noqa: E402,F401
from . import sparse  # noqa: E402,F401  (also gives Tensor its layout and to_sparse* methods)
from .sparse import resize_as_sparse_, sparse_coo_tensor, sparse_csr_tensor  # noqa: E402,F401
from .sparse._toplevel import mm, matmul, addmm, spmm  # noqa: E402,F401  (a sparse operand goes to ember.sparse)
from ._factory_layout import add_layout_argument as _add_layout_argument  # noqa: E402

_add_layout_argument(globals())  # the factories take layout= (strided; zeros/empty/zeros_like also sparse)
from . import futures  # noqa: E402,F401
from .futures import fork, wait  # noqa: E402,F401  (eager: run now, a completed Future)
from . import amp, cpu  # noqa: E402,F401
from .amp import autocast  # noqa: E402,F401
from .amp._state import *  # noqa: E402,F401,F403  (is_autocast_enabled, set_autocast_dtype, ...)
from .amp._scale_ops import _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_  # noqa: E402,F401


# Submodules loaded on first use (ember.distributions is ~100 modules' worth of Python, ember.hub pulls
# in http.client): `import ember` stays fast, and `ember.distributions.Normal` / `import
# ember.distributions` work as in PyTorch.
_LAZY_SUBMODULES = ("classes", "distributions", "fx", "hub", "jit", "multiprocessing", "onnx")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ember' has no attribute '{name}'")
