"""Argument rules shared by ember.fft's transforms, as torch.fft defines them: dims and signal
sizes (n, s with -1, dim defaults), norm modes, dtype promotion, zero-padding or trimming the
input to the signal size, and passing out= on."""
import ember as _e
from ember import _C
from ember.amp._policy import fp32_under_autocast

# norm -> the kernels' normalization code (0: none, 1: 1/sqrt(n), 2: 1/n) for each direction.
_FORWARD = {None: 0, "backward": 0, "ortho": 1, "forward": 2}
_INVERSE = {None: 2, "backward": 2, "ortho": 1, "forward": 0}
_REAL_OK = (_e.float32, _e.float64)
_COMPLEX_OF = {_e.float32: _e.complex64, _e.float64: _e.complex128}


def norm_code(norm, forward):
    table = _FORWARD if forward else _INVERSE
    if norm not in table:
        raise ValueError(f"Invalid normalization mode: {norm!r} "
                         "(expected None, \"forward\", \"backward\" or \"ortho\")")
    return table[norm]


def _check_tensor(x, name):
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, not {type(x).__name__}")


def _promote(x, name):
    """Integer and bool inputs become the default float dtype; float16/bfloat16 are refused, except in an
    autocast region, where the transforms run in float32 (PyTorch's CPU policy for fft_*)."""
    x = fp32_under_autocast(x)
    if x.dtype in (_e.float16, _e.bfloat16):
        raise TypeError(f"{name}(): {x.dtype} is not supported by the FFT kernels (float32/float64 and "
                        f"complex64/complex128 are); convert the input with .float() first")
    if not (x.is_floating_point() or x.is_complex()):
        return x.to(_e.get_default_dtype())
    return x


def as_complex(x, name):
    _check_tensor(x, name)
    x = _promote(x, name)
    return x if x.is_complex() else x.to(_COMPLEX_OF[x.dtype])


def as_real(x, name):
    _check_tensor(x, name)
    x = _promote(x, name)
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype}")
    return x


def wrap_dim(d, ndim):
    if not isinstance(d, int) or isinstance(d, bool):
        raise TypeError(f"dim must be an int, got {type(d).__name__}")
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    lo, hi = -ndim, ndim - 1
    if not lo <= d <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d + ndim if d < 0 else d


def _check_points(n):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"the number of data points must be an int, got {type(n).__name__}")
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def check_optional_points(n):
    if n is not None:
        _check_points(n)


def check_count(n, name):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{name}(): argument 'n' must be an int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"{name}(): n must be non-negative, got {n}")


def require_dims(dims, name):
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")


def one_dim(x, n, dim):
    """(dim wrapped, n resolved) for the 1-D transforms; n=None takes the input's size."""
    _check_tensor(x, "fft")
    d = wrap_dim(dim, x.dim())
    n = x.shape[d] if n is None else n
    _check_points(n)
    return d, n


def dims_and_sizes(x, s, dim):
    """(dims, sizes) for the n-D transforms, as torch.fft: dim given -> s matches it; only s -> the
    last len(s) dims; neither -> every dim; -1 in s keeps the input's size."""
    _check_tensor(x, "fftn")
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = [dim]
    if isinstance(s, int) and not isinstance(s, bool):
        s = [s]
    if dim is not None:
        dims = [wrap_dim(d, x.dim()) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"FFT dims must be unique, got dim={list(dim)}")
        if s is not None and len(s) != len(dims):
            raise RuntimeError(f"When given, dim and shape arguments must have the same length, got "
                               f"s={list(s)} and dim={list(dim)}")
    elif s is not None:
        if len(s) > x.dim():
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.dim()} dimensions.")
        dims = list(range(x.dim() - len(s), x.dim()))
    else:
        dims = list(range(x.dim()))
    sizes = [x.shape[d] for d in dims] if s is None else [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    for n in sizes:
        _check_points(n)
    return dims, sizes


def half_spectrum_dims(x, s, dim):
    """dims_and_sizes for the transforms with a real output (irfftn, hfftn): also whether the last
    output size is given (else it is 2 * (bins - 1))."""
    dims, sizes = dims_and_sizes(x, s, dim)
    require_dims(dims, "irfftn/hfftn")
    last = s if s is None or not isinstance(s, int) or isinstance(s, bool) else [s]
    return dims, sizes, last is not None and last[-1] != -1


def resize(x, dims, sizes):
    """x zero-padded or trimmed (from the end) to sizes along dims."""
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if have > n:
            x = x.narrow(d, 0, n)
        elif have < n:
            pad = list(x.shape)
            pad[d] = n - have
            x = _e.cat([x, _e.zeros(pad, dtype=x.dtype, device=x.device)], d)
    return x


def call(kernel, *args, out=None):
    """kernel(*args), into out= when given (the kernel checks its dtype and resizes it)."""
    return kernel(*args) if out is None else kernel(*args, out=out)
