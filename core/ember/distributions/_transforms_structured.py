"""Transforms over vectors and matrices (softmax, stick-breaking, Cholesky factors, correlation
Cholesky factors) and the ones that join transforms along a dim (cat, stack)."""
from __future__ import annotations

import math

import ember
import ember.nn.functional as F

from . import constraints
from ._transform_base import ParameterFreeTransform, Transform, _clipped_sigmoid, _need_dims
from .utils import _sum_rightmost, diag_embed, tril_matrix_to_vec, vec_to_tril_matrix


def _checked_parts(tseq, cache_size):
    """Cat's and Stack's transforms, checked and given their cache size."""
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")
    return [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)


def _check_slices(z, name, dim, size, size_name):
    """PyTorch's checks of what Cat and Stack transforms cut along dim."""
    if not (-z.dim() <= dim < z.dim()):
        raise AssertionError(f"dim {dim} out of range for tensor with {z.dim()} dimensions")
    if z.shape[dim] != size:
        raise AssertionError(f"{name}.size({dim}) = {z.shape[dim]} must equal {size_name} {size}")


def _pad_last(x, before, after, value):
    """x with `before`/`after` entries of `value` added on its last dim."""
    parts = []
    if before:
        parts.append(ember.full(tuple(x.shape[:-1]) + (before,), value, dtype=x.dtype))
    parts.append(x)
    if after:
        parts.append(ember.full(tuple(x.shape[:-1]) + (after,), value, dtype=x.dtype))
    return ember.cat(parts, -1)


class SoftmaxTransform(ParameterFreeTransform):
    """Unconstrained vectors to the simplex by exp and normalization (not bijective; use it for
    optimization, StickBreakingTransform for densities)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        return shape

    def inverse_shape(self, shape):
        _need_dims(shape, 1)
        return shape


class StickBreakingTransform(ParameterFreeTransform):
    """Vectors of length K-1 to the K-simplex by stick breaking (bijective), offset so that x = 0
    maps to the simplex's center."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return _pad_last(z, 0, 1, 1.0) * _pad_last(z_cumprod, 1, 0, 1.0)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        sf = 1 - y_crop.cumsum(-1)
        # Clamped so the last (tiny) remainder keeps a finite log.
        sf = ember.clamp(sf, min=ember.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        x = x - offset.log()
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _need_dims(shape, 1)
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(ParameterFreeTransform):
    """Unconstrained square matrices to lower-triangular ones with a positive diagonal (exp of the
    diagonal, the strict lower part kept, the upper part dropped)."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + diag_embed(x.diagonal(0, -2, -1).exp())

    def _inverse(self, y):
        return y.tril(-1) + diag_embed(y.diagonal(0, -2, -1).log())


class PositiveDefiniteTransform(ParameterFreeTransform):
    """Unconstrained square matrices to positive-definite ones: L L^T of their lower Cholesky transform."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.transpose(-2, -1)

    def _inverse(self, y):
        y = ember.linalg.cholesky(y)
        return LowerCholeskyTransform().inv(y)


class CorrCholeskyTransform(ParameterFreeTransform):
    """Vectors of length D(D-1)/2 to Cholesky factors of D x D correlation matrices: tanh into (-1, 1),
    then a stick-breaking construction row by row (LKJ's parametrization)."""
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        x = ember.tanh(x)
        eps = ember.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        # Row i: y_ij = r_ij * sqrt(1 - sum_{k<j} y_ik^2) = r_ij * prod_{k<j} sqrt(1 - r_ik^2).
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + ember.eye(r.shape[-1], dtype=r.dtype)
        return r * _pad_last(z1m_cumprod_sqrt[..., :-1], 1, 0, 1.0)

    def _inverse(self, y):
        y_cumsum = 1 - ember.cumsum(y * y, dim=-1)
        y_cumsum_shifted = _pad_last(y_cumsum[..., :-1], 1, 0, 1.0)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - (-t).log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum_tril.log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape):
        _need_dims(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return tuple(shape[:-2]) + (d * (d - 1) // 2,)


class CatTransform(Transform):
    """Applies transforms `tseq` to consecutive slices (of `lengths`) of dim `dim`, as ember.cat joins them."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        self.transforms = _checked_parts(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _check(self, z, name):
        _check_slices(z, name, self.dim, self.length, "length")

    def _map(self, x, inverse):
        self._check(x, "y" if inverse else "x")
        out, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            piece = x.narrow(self.dim, start, length)
            out.append(trans.inv(piece) if inverse else trans(piece))
            start += length
        return ember.cat(out, self.dim)

    def _call(self, x):
        return self._map(x, False)

    def _inverse(self, y):
        return self._map(y, True)

    def log_abs_det_jacobian(self, x, y):
        self._check(x, "x")
        self._check(y, "y")
        logdets, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            ld = trans.log_abs_det_jacobian(x.narrow(self.dim, start, length), y.narrow(self.dim, start, length))
            if trans.event_dim < self.event_dim:
                ld = _sum_rightmost(ld, self.event_dim - trans.event_dim)
            logdets.append(ld)
            start += length
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        if dim < 0:
            return ember.cat(logdets, dim)
        return sum(logdets)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies transforms `tseq` to the slices along `dim`, as ember.stack joins them."""

    def __init__(self, tseq, dim=0, cache_size=0):
        self.transforms = _checked_parts(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z, name):
        _check_slices(z, name, self.dim, len(self.transforms), "len(transforms)")
        return [z.select(self.dim, i) for i in range(z.shape[self.dim])]

    def _call(self, x):
        return ember.stack([t(s) for s, t in zip(self._slices(x, "x"), self.transforms)], self.dim)

    def _inverse(self, y):
        return ember.stack([t.inv(s) for s, t in zip(self._slices(y, "y"), self.transforms)], self.dim)

    def log_abs_det_jacobian(self, x, y):
        xs, ys = self._slices(x, "x"), self._slices(y, "y")
        return ember.stack([t.log_abs_det_jacobian(a, b) for t, a, b in zip(self.transforms, xs, ys)], self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
