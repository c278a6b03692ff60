"""OpInfos of the remaining top-level functions and Tensor methods written in Python: detach(_), resolve_conj/neg,
zero_, resize(_)/resize_as(_), new/new_empty_strided, sum_to_size, addr_, fill_diagonal_, index_reduce_, polygamma_,
renorm_, broadcast_shapes, range, spmm, svd_lowrank and pca_lowrank, against NumPy/SciPy references. A method is
registered as 'Tensor.NAME' and called unbound (ember.Tensor.NAME(tensor, ...))."""
import numpy as np
import scipy.special as sps

import ember
from ember.testing.opinfo import Sample, register, to_ember

from ._nn_samples import noncontig, plain_grad_samples, r
from ._python_level import python_opinfo

ALL = ("bool", "uint8", "int32", "int64", "bfloat16", "float16", "float32", "float64", "complex64", "complex128")
FLOAT = ("float32", "float64")


def _any(dtype, rng, *shape):
    x = rng.uniform(-3, 3, shape)
    if dtype == "bool":
        return x > 0
    if dtype in ("uint8", "int32", "int64"):
        return np.round(np.abs(x) if dtype == "uint8" else x)
    return x + 1j * rng.uniform(-3, 3, shape) if dtype.startswith("complex") else x


def _plain_cases(dtype, rng):
    return [Sample((_any(dtype, rng, 3, 4),)), Sample((_any(dtype, rng, 2, 0, 3),)),
            Sample((np.asarray(_any(dtype, rng)),)), Sample((noncontig(_any(dtype, rng, 4, 5), dtype),))]


def _requires_grad_case(dtype, rng):
    return [Sample((to_ember(r(rng, 3, 2), dtype).requires_grad_(),))] if dtype in FLOAT else []


def _not_tracked(got, sample, dtype):
    assert not got.requires_grad and got.grad_fn is None, "the result still requires grad"


def _conj_cases(dtype, rng):
    cases = _plain_cases(dtype, rng)
    if dtype.startswith("complex"):
        cases += [Sample((to_ember(_any(dtype, rng, 3, 4), dtype).conj(),))]  # the conjugate bit set
    return cases


def _neg_cases(dtype, rng):
    cases = _plain_cases(dtype, rng)
    if dtype.startswith("complex"):
        cases += [Sample((ember.conj_physical(to_ember(_any(dtype, rng, 3, 4), dtype)).conj().imag,))]
    return cases


def _resolved(flag):
    def check(got, sample, dtype):
        assert not getattr(got, flag)(), f"the result still has {flag}"
    return check


def _resize_(x, *size):
    shape = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    return x.reshape(-1)[:int(np.prod(shape))].reshape(shape)


def _resize_cases(dtype, rng):
    """Only to as many or fewer elements: the ones added by growing are uninitialised."""
    return [Sample((_any(dtype, rng, 3, 4), 2, 6)), Sample((_any(dtype, rng, 3, 4), (5,))),
            Sample((_any(dtype, rng, 3, 4), 0)), Sample((_any(dtype, rng, 2, 3), (3, 2)))]


def _same_count_cases(dtype, rng):
    return [Sample((r(rng, 3, 4), 2, 6)), Sample((r(rng, 3, 4), (12,))), Sample((r(rng, 2, 3), (3, 1, 2)))]


def _resize_as_cases(dtype, rng):
    return [Sample((_any(dtype, rng, 3, 4), ember.empty(2, 5))), Sample((_any(dtype, rng, 3, 4), ember.empty(3, 4))),
            Sample((_any(dtype, rng, 2, 3), ember.empty(0)))]


def _new_cases(dtype, rng):
    return [Sample((r(rng, 2, 2), [[1, 2], [3, 4]])), Sample((r(rng, 3), [])), Sample((r(rng, 3),)),
            Sample((r(rng, 3), (1.5, -2.0, 0.25)))]


def _new(x, *data):
    return np.asarray(data[0] if data else [], dtype=x.dtype).reshape(np.shape(data[0]) if data else (0,))


def _strided_cases(dtype, rng):
    return [Sample((r(rng, 2), (2, 3), (1, 2))), Sample((r(rng, 2), (3, 4), (4, 1))),
            Sample((r(rng, 2), (0, 2), (2, 1)))]


def _has_the_strides(got, sample, dtype):
    assert tuple(got.stride()) == tuple(sample.args[2]) and got.dtype == getattr(ember, dtype)


def _sum_to_size(x, *size):
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    lead = x.ndim - len(shape)
    out = x.sum(tuple(range(lead))) if lead else x
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and out.shape[i] != 1)
    return out.sum(axes, keepdims=True) if axes else out


def _sum_to_size_cases(dtype, rng):
    return [Sample((r(rng, 3, 4), 1, 4)), Sample((r(rng, 2, 3, 4), (3, 1))), Sample((r(rng, 2, 3), 2, 3)),
            Sample((r(rng, 2, 3, 4), 4)), Sample((noncontig(r(rng, 3, 4), dtype), (1, 1)))]


def _addr(x, v1, v2, beta=1, alpha=1):
    return beta * x + alpha * np.outer(v1, v2)


def _addr_cases(dtype, rng):
    return [Sample((r(rng, 3, 4), r(rng, 3), r(rng, 4))), Sample((r(rng, 3, 4), r(rng, 3), r(rng, 4)),
                                                                {"beta": 0.5, "alpha": -2}),
            Sample((noncontig(r(rng, 3, 4), dtype), r(rng, 3), r(rng, 4)), {"beta": 0})]


def _fill_diagonal(x, value, wrap=False):
    out = x.copy()
    np.fill_diagonal(out, value, wrap=wrap)
    return out


def _fill_diagonal_cases(dtype, rng):
    return [Sample((_any(dtype, rng, 3, 3), 1)), Sample((_any(dtype, rng, 7, 3), 0)),
            Sample((_any(dtype, rng, 7, 3), 1), {"wrap": True}), Sample((_any(dtype, rng, 2, 5), 1)),
            Sample((_any(dtype, rng, 3, 3, 3), 0))]


def _index_reduce(x, dim, index, source, reduce, include_self=True):
    out = np.moveaxis(x.copy(), dim, 0)
    src = np.moveaxis(source, dim, 0)
    for row in np.unique(index):
        picked = src[index == row]
        values = np.concatenate([out[row][None], picked]) if include_self else picked
        out[row] = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce](values, 0)
    return np.moveaxis(out, 0, dim)


def _index_reduce_cases(dtype, rng):
    idx = ember.tensor([0, 2, 2, 4])
    return [Sample((r(rng, 5, 3), 0, idx, r(rng, 4, 3), red), {"include_self": inc})
            for red in ("prod", "mean", "amax", "amin") for inc in (True, False)] + [
        Sample((r(rng, 3, 5), 1, idx, r(rng, 3, 4), "amax"))]


def _renorm(x, p, dim, maxnorm):
    axes = tuple(i for i in range(x.ndim) if i != dim % x.ndim)
    norm = np.sum(np.abs(x) ** p, axis=axes, keepdims=True) ** (1 / p)
    return np.where(norm > maxnorm, x * (maxnorm / (norm + 1e-7)), x)


def _renorm_cases(dtype, rng):
    return [Sample((r(rng, 3, 4, scale=2), 2, 0, 1.0)), Sample((r(rng, 3, 4, scale=2), 1, 1, 1.5)),
            Sample((r(rng, 2, 3, 2, scale=2), 3, -1, 0.8)), Sample((noncontig(r(rng, 3, 4), dtype), 2, 0, 0.5))]


def _range(start, end, step=1, **kwargs):
    return start + step * np.arange(int(np.floor((end - start) / step)) + 1)


def _broadcast_shapes_cases(dtype, rng):
    return [Sample(((2, 1, 3), (4, 1))), Sample(((5,), ())), Sample(((0, 1), (1, 3), (3,))), Sample((4, (2, 1)))]


def _spmm_cases(dtype, rng):
    sparse = r(rng, 4, 3) * (rng.random((4, 3)) < 0.5)
    return [Sample((r(rng, 4, 3), r(rng, 3, 2))), Sample((to_ember(sparse, dtype).to_sparse(), r(rng, 3, 5))),
            Sample((np.zeros((0, 3)), r(rng, 3, 2)))]


def _low_rank(rng, m, n, rank):
    return rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))


def _svd_reference(a, q):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u[:, :q], s[:q], vh[:q].T


def _through_reconstruction(out):
    """svd_lowrank's factors are unique only up to signs: compared as U diag(S) V^T and S."""
    u, s, v = out
    return (u * s) @ v.T, s


def _svd_lowrank(a, q=6, niter=2, M=None):
    return _svd_reference(a if M is None else a - M, q)


def _pca_lowrank(a, q=None, center=True, niter=2):
    q = min(6, *a.shape) if q is None else q
    return _svd_reference(a - a.mean(0, keepdims=True) if center else a, q)


def _low_rank_cases(dtype, rng):
    return [Sample((_low_rank(rng, 8, 6, 3),), {"q": 4}), Sample((_low_rank(rng, 7, 9, 2),), {"q": 3, "niter": 4}),
            Sample((_low_rank(rng, 6, 5, 5),), {"q": 5})]


def _method(name, ref, samples, dtypes=FLOAT, **kw):
    return python_opinfo(f"Tensor.{name}", ref, samples, dtypes, **kw)


register(
    python_opinfo("detach", lambda x: x, lambda d, rng: _plain_cases(d, rng) + _requires_grad_case(d, rng), ALL,
                  grad=False, check=_not_tracked),  # no gradient flows, by definition
    python_opinfo("detach_", lambda x: x, lambda d, rng: _plain_cases(d, rng) + _requires_grad_case(d, rng), ALL,
                  grad=False, check=_not_tracked),
    _method("detach", lambda x: x, lambda d, rng: _plain_cases(d, rng) + _requires_grad_case(d, rng), ALL, grad=False,
            check=_not_tracked),
    python_opinfo("resolve_conj", lambda x: x, _conj_cases, ALL, grad_samples=plain_grad_samples(_plain_cases),
                  check=_resolved("is_conj")),
    python_opinfo("resolve_neg", lambda x: x, _neg_cases, ALL, grad_samples=plain_grad_samples(_plain_cases),
                  check=_resolved("is_neg")),
    _method("resolve_conj", lambda x: x, _conj_cases, ALL, grad_samples=plain_grad_samples(_plain_cases),
            check=_resolved("is_conj")),
    _method("resolve_neg", lambda x: x, _neg_cases, ALL, grad_samples=plain_grad_samples(_plain_cases),
            check=_resolved("is_neg")),
    python_opinfo("zero_", np.zeros_like, _plain_cases, ALL, grad=False),
    _method("zero_", np.zeros_like, _plain_cases, ALL, grad=False),
    _method("resize_", _resize_, _resize_cases, ALL, grad=False),
    _method("resize", _resize_, _same_count_cases),  # autograd's resize: the same number of elements
    _method("resize_as_", lambda x, other: _resize_(x, other.shape), _resize_as_cases, ALL, grad=False),
    python_opinfo("resize_as_", lambda x, other: _resize_(x, other.shape), _resize_as_cases, ALL, grad=False),
    _method("resize_as", lambda x, other: _resize_(x, other.shape), lambda d, rng: [
        Sample((r(rng, 3, 4), ember.empty(2, 6))), Sample((r(rng, 2, 3), ember.empty(6)))]),
    _method("new", _new, _new_cases, ("int32", "float32", "float64"), grad=False),
    _method("new_empty_strided", lambda x, size, stride: np.empty(size), _strided_cases, grad=False,
            check=_has_the_strides, extra={"compare_as": np.shape}),  # values are uninitialised: shape and strides
    _method("sum_to_size", _sum_to_size, _sum_to_size_cases, grad_samples=plain_grad_samples(_sum_to_size_cases)),
    _method("addr_", _addr, _addr_cases, grad=False),
    _method("fill_diagonal_", _fill_diagonal, _fill_diagonal_cases, ("bool", "int64", "float32", "float64"),
            grad=False),
    _method("index_reduce_", _index_reduce, _index_reduce_cases, grad=False),
    _method("polygamma_", lambda x, n: sps.polygamma(n, x), lambda d, rng: [
        Sample((rng.uniform(0.5, 4, (3, 4)), n)) for n in (0, 1, 2, 3)], grad=False, tol={"float32": (1e-5, 1e-5)}),
    _method("renorm_", _renorm, _renorm_cases, grad=False),
    python_opinfo("broadcast_shapes", lambda *shapes: np.broadcast_shapes(*[(s,) if isinstance(s, int) else s
                                                                            for s in shapes]),
                  _broadcast_shapes_cases, ("int64",), grad=False),
    python_opinfo("range", _range, lambda d, rng: [Sample((0, 1, 0.25)), Sample((1, 4)), Sample((2.5, -1, -0.5)),
                                                   Sample((0, 1), {"dtype": getattr(ember, d)})],
                  grad=False),
    python_opinfo("spmm", lambda a, b: a @ b, _spmm_cases,
                  grad_samples=lambda rng: [((r(rng, 4, 3), r(rng, 3, 2)), {})]),
    # randomised: the factors change with the random projection, so gradients are not checked by finite differences
    python_opinfo("svd_lowrank", _svd_lowrank, _low_rank_cases, grad=False,
                  extra={"compare_as": _through_reconstruction}, tol={"float32": (1e-4, 1e-4)}),
    python_opinfo("pca_lowrank", _pca_lowrank, _low_rank_cases, grad=False,
                  extra={"compare_as": _through_reconstruction}, tol={"float32": (1e-4, 1e-4)}),
)
