"""OpInfos for core/ops/fft.yaml and ember.fft: the three kernels (_fft_c2c, _fft_r2c, _fft_c2r;
registered, so the generic gradient tests run on them) and PUBLIC, one OpInfo per torch.fft name
against numpy.fft / scipy.fft, which tests/core/test_fft.py runs (values per dtype, non-contiguous,
empty batch, out=, gradcheck, gradgradcheck, forward mode)."""
import numpy as np
import scipy.fft as sfft

from ember.testing.opinfo import COMPLEX, OpInfo, Sample, random_array, register

TOL = {"float32": (1e-5, 1e-4), "complex64": (1e-5, 1e-4), "float64": (1e-10, 1e-10), "complex128": (1e-10, 1e-10)}
NORMS = (None, "backward", "ortho", "forward")
_SCALE = {0: lambda n: 1.0, 1: lambda n: 1 / np.sqrt(n), 2: lambda n: 1.0 / n}


def _arr(dtype, rng, shape):
    return random_array(dtype, shape, rng, (-1.0, 1.0), (-4, 5))


def _samples(cases, real_input=None):
    """cases: (shape, kwargs); real_input forces a real (True) or complex (False) input dtype."""
    def make(dtype, rng):
        d = dtype
        if real_input is True and dtype in COMPLEX:
            d = {"complex64": "float32", "complex128": "float64"}[dtype]
        if real_input is False and dtype not in COMPLEX:
            d = {"float32": "complex64", "float64": "complex128"}.get(dtype, dtype)
        return [Sample(args=(_arr(d, rng, shape),), kwargs=dict(kw)) for shape, kw in cases]
    return make


# --- the kernels, against numpy over the same dims -----------------------------------------------

def _axes_n(x, dim):
    return [x.shape[d] for d in dim]


def _c2c_ref(x, dim, normalization, is_forward):
    f = np.fft.fftn if is_forward else np.fft.ifftn
    r = f(x, axes=dim, norm="forward" if not is_forward else "backward") if dim else x.copy()
    return r * _SCALE[normalization](np.prod(_axes_n(x, dim)))


def _r2c_ref(x, dim, normalization, onesided):
    r = (np.fft.rfftn if onesided else np.fft.fftn)(x, axes=dim)
    return r * _SCALE[normalization](np.prod(_axes_n(x, dim)))


def _c2r_ref(x, dim, normalization, last_dim_size):
    s = _axes_n(x, dim)[:-1] + [last_dim_size]
    return np.fft.irfftn(x, s=s, axes=dim, norm="forward") * _SCALE[normalization](np.prod(s))


def _kernel_samples(kind):
    def make(dtype, rng):
        out = []
        for shape, dim in [((5,), [0]), ((2, 4), [1]), ((3, 4), [0, 1]), ((2, 3, 2), [2, 0]), ((0, 4), [1]),
                           ((3, 2), [-1])]:
            for norm in (0, 1, 2):
                if kind == "c2c":
                    out += [Sample((_arr(dtype, rng, shape), dim, norm, fw)) for fw in (True, False)]
                elif kind == "r2c":
                    out += [Sample((_arr(dtype, rng, shape), dim, norm, one)) for one in (True, False)]
                else:
                    last = shape[dim[-1]]
                    for n in {2 * (last - 1) or 1, 2 * last - 1}:
                        half = list(shape)
                        half[dim[-1]] = n // 2 + 1
                        out.append(Sample((_arr(dtype, rng, tuple(half)), dim, norm, n)))
        return out
    return make


register(
    OpInfo("_fft_c2c", ref=_c2c_ref, sample_inputs=_kernel_samples("c2c"), tol=TOL),
    OpInfo("_fft_r2c", ref=_r2c_ref, sample_inputs=_kernel_samples("r2c"), tol=TOL),
    OpInfo("_fft_c2r", ref=_c2r_ref, sample_inputs=_kernel_samples("c2r"), tol=TOL),
)


# --- the public functions ----------------------------------------------------------------------

def _one_dim(np_fn):
    def ref(x, n=None, dim=-1, norm=None):
        return np_fn(x, n=n, axis=dim, norm=norm)
    return ref


def _n_dim(np_fn, default_dim=None):
    def ref(x, s=None, dim=default_dim, norm=None):
        if isinstance(dim, int):
            dim = [dim]
        if s is not None and dim is None:
            dim = list(range(x.ndim - len(s), x.ndim))
        if s is not None:
            s = [x.shape[d] if n == -1 else n for d, n in zip(dim, s)]
        return np_fn(x, s=s, axes=dim, norm=norm)
    return ref


ONE_DIM = [((8,), {}), ((7,), {"n": 10}), ((9,), {"n": 4}), ((3, 5), {}), ((3, 5), {"dim": 0}),
           ((2, 3, 4), {"dim": -2, "n": 5}), ((0, 6), {}), ((4, 1), {"dim": 1})]
ONE_DIM += [((6,), {"norm": nm}) for nm in NORMS] + [((2, 5), {"n": 3, "norm": "ortho"})]
N_DIM = [((3, 4), {}), ((2, 3, 4), {}), ((2, 3, 4), {"dim": [0, 2]}), ((2, 3, 4), {"s": [5, 2]}),
         ((3, 4), {"s": [-1, 6]}), ((2, 3, 4), {"dim": 1}), ((2, 3, 4), {"s": [3, 2, 5], "dim": [2, 0, 1]}),
         ((0, 3, 4), {"dim": [1, 2]}),
         ((2, 5), {"dim": [-1, -2], "norm": "ortho"}), ((3, 4), {"norm": "forward"}),
         ((2, 3), {"dim": []})]
TWO_DIM = [((3, 4), {}), ((2, 3, 4), {}), ((2, 3, 4), {"s": [4, 6]}), ((2, 3, 4), {"dim": [0, 2]}), ((0, 3, 4), {}),
           ((3, 5), {"norm": "ortho"}), ((3, 5), {"norm": "forward", "s": [2, -1]})]
# Inputs of the c2r transforms are half spectra: the sizes are bin counts.
HALF_ONE_DIM = [((5,), {}), ((5,), {"n": 9}), ((4,), {"n": 3}), ((3, 4), {"dim": 0}),
                ((2, 3, 4), {"dim": 1, "n": 4}), ((0, 5), {}), ((4, 2), {"dim": 1})]
HALF_ONE_DIM += [((4,), {"norm": nm}) for nm in NORMS]
HALF_N_DIM = [((3, 4), {}), ((2, 3, 4), {}), ((2, 3, 4), {"dim": [0, 2]}), ((2, 3, 4), {"s": [5, 7]}),
              ((2, 3, 4), {"s": [3, 2, 5], "dim": [2, 0, 1]}), ((0, 3, 4), {"dim": [1, 2]}),
              ((3, 4), {"norm": "ortho"}),
              ((3, 4), {"norm": "forward", "s": [2, 5]}), ((2, 3, 4), {"dim": 1})]
HALF_TWO_DIM = [((3, 4), {}), ((2, 3, 4), {}), ((2, 3, 4), {"s": [4, 6]}), ((2, 3, 4), {"dim": [0, 2]}),
                ((0, 3, 4), {}),
                ((3, 5), {"norm": "ortho", "s": [3, 9]})]


def _freq_samples(dtype, rng):
    return [Sample((n,), kw) for n, kw in [(1, {}), (5, {}), (8, {"d": 0.5}), (9, {"d": 2.0}), (16, {})]]


def _shift_samples(dtype, rng):
    return [Sample((_arr(dtype, rng, shape),), kw) for shape, kw in
            [((5,), {}), ((4, 5), {}), ((4, 5), {"dim": 0}), ((2, 3, 5), {"dim": [0, 2]}), ((2, 3, 5), {"dim": -1}),
             ((0, 3), {})]]


REAL_AND_COMPLEX = ("float32", "float64", "complex64", "complex128", "int64")
REAL = ("float32", "float64", "int64")


def _info(name, ref, samples, dtypes, grad=True):
    return OpInfo(name, ref=ref, sample_inputs=samples, tol=TOL, extra={"dtypes": dtypes, "grad": grad})


PUBLIC = [
    _info("fft", _one_dim(np.fft.fft), _samples(ONE_DIM), REAL_AND_COMPLEX),
    _info("ifft", _one_dim(np.fft.ifft), _samples(ONE_DIM), REAL_AND_COMPLEX),
    _info("fftn", _n_dim(np.fft.fftn), _samples(N_DIM), REAL_AND_COMPLEX),
    _info("ifftn", _n_dim(np.fft.ifftn), _samples(N_DIM), REAL_AND_COMPLEX),
    _info("fft2", _n_dim(np.fft.fftn, (-2, -1)), _samples(TWO_DIM), REAL_AND_COMPLEX),
    _info("ifft2", _n_dim(np.fft.ifftn, (-2, -1)), _samples(TWO_DIM), REAL_AND_COMPLEX),
    _info("rfft", _one_dim(np.fft.rfft), _samples(ONE_DIM), REAL),
    _info("ihfft", _one_dim(np.fft.ihfft), _samples(ONE_DIM), REAL),
    _info("rfftn", _n_dim(np.fft.rfftn), _samples(N_DIM[:-1]), REAL),
    _info("rfft2", _n_dim(np.fft.rfftn, (-2, -1)), _samples(TWO_DIM), REAL),
    _info("ihfftn", _n_dim(sfft.ihfftn), _samples(N_DIM[:-1]), REAL),
    _info("ihfft2", _n_dim(sfft.ihfftn, (-2, -1)), _samples(TWO_DIM), REAL),
    _info("irfft", _one_dim(np.fft.irfft), _samples(HALF_ONE_DIM), REAL_AND_COMPLEX),
    _info("hfft", _one_dim(np.fft.hfft), _samples(HALF_ONE_DIM), REAL_AND_COMPLEX),
    _info("irfftn", _n_dim(np.fft.irfftn), _samples(HALF_N_DIM), REAL_AND_COMPLEX),
    _info("irfft2", _n_dim(np.fft.irfftn, (-2, -1)), _samples(HALF_TWO_DIM), REAL_AND_COMPLEX),
    _info("hfftn", _n_dim(sfft.hfftn), _samples(HALF_N_DIM), REAL_AND_COMPLEX),
    _info("hfft2", _n_dim(sfft.hfftn, (-2, -1)), _samples(HALF_TWO_DIM), REAL_AND_COMPLEX),
    _info("fftfreq", lambda n, d=1.0: np.fft.fftfreq(n, d), _freq_samples, ("float32", "float64"), grad=False),
    _info("rfftfreq", lambda n, d=1.0: np.fft.rfftfreq(n, d), _freq_samples, ("float32", "float64"), grad=False),
    _info("fftshift", lambda x, dim=None: np.fft.fftshift(x, dim), _shift_samples, REAL_AND_COMPLEX),
    _info("ifftshift", lambda x, dim=None: np.fft.ifftshift(x, dim), _shift_samples, REAL_AND_COMPLEX),
]
