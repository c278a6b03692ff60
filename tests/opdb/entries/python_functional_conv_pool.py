"""OpInfos of the top-level functional forms of convolution, pooling and normalization (ember.conv2d,
ember.max_pool1d, ember.batch_norm, ... in core/ember/_functional_toplevel.py) against plain NumPy references
written here (windows from sliding_window_view, statistics in float64)."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import ember
from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo


def _r(rng, *shape):
    return rng.uniform(-1, 1, shape)


def _tuple(v, d):
    return (v,) * d if isinstance(v, int) else tuple(v)


def _windows(x, kernel, stride, dilation):
    """(N, C, *out, *kernel) windows of x's spatial dims (already padded)."""
    d = x.ndim - 2
    span = [dl * (k - 1) + 1 for k, dl in zip(kernel, dilation)]
    win = sliding_window_view(x, span, axis=tuple(range(2, 2 + d)))
    win = win[(slice(None),) * (2 + d) + tuple(slice(None, None, dl) for dl in dilation)]
    return win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)]


def conv_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    d = x.ndim - 2
    stride, padding, dilation = _tuple(stride, d), _tuple(padding, d), _tuple(dilation, d)
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    win = _windows(x, w.shape[2:], stride, dilation)
    c, o = x.shape[1], w.shape[0]
    outs = []
    for g in range(groups):
        part = win[:, g * c // groups:(g + 1) * c // groups]
        part = np.moveaxis(part, 1, 1 + d).reshape(part.shape[:1] + part.shape[2:2 + d] + (-1,))  # N, *out, C*K
        wg = w[g * o // groups:(g + 1) * o // groups].reshape(o // groups, -1)
        outs.append(np.moveaxis(part @ wg.T, -1, 1))
    out = np.concatenate(outs, 1)
    return out if b is None else out + b.reshape((1, -1) + (1,) * d)


def conv_transpose_ref(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of the convolution: x spread by stride, convolved with the flipped, transposed kernel."""
    d = x.ndim - 2
    stride, padding, dilation = _tuple(stride, d), _tuple(padding, d), _tuple(dilation, d)
    output_padding = _tuple(output_padding, d)
    spread = np.zeros(x.shape[:2] + tuple((n - 1) * s + 1 for n, s in zip(x.shape[2:], stride)))
    spread[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)] = x
    pads = [dl * (k - 1) - p for k, dl, p in zip(w.shape[2:], dilation, padding)]
    spread = np.pad(spread, [(0, 0), (0, 0)] + [(p, p + op) for p, op in zip(pads, output_padding)])
    cin, og = w.shape[0], w.shape[1]
    flipped = w[(slice(None), slice(None)) + (slice(None, None, -1),) * d]
    kernel = np.concatenate([np.swapaxes(flipped[g * cin // groups:(g + 1) * cin // groups], 0, 1)
                             for g in range(groups)], 0)  # (O, C/groups, *k)
    assert kernel.shape[0] == og * groups
    return conv_ref(spread, kernel, b, 1, 0, dilation, groups)


def _pool_ref(reduce, pad_value):
    """Pooling over the last len(kernel_size) dims (every argument a tuple), any leading dims."""
    def ref(x, k, s, p, dilation):
        d = len(k)
        flat = x.reshape((-1, 1) + x.shape[-d:])
        padded = np.pad(flat, [(0, 0), (0, 0)] + [(q, q) for q in p], constant_values=pad_value)
        win = _windows(padded, k, s, dilation)
        out = reduce(win.reshape(win.shape[:2 + d] + (-1,)), -1)
        return out.reshape(x.shape[:-d] + out.shape[2:])
    return ref


def _pool_nd(d, reduce, pad_value):
    """The d-dimensional pooling reference (its input is (N, C, *d) or (C, *d))."""
    inner = _pool_ref(reduce, pad_value)

    def ref(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False, count_include_pad=True):
        k = _tuple(kernel_size, d)
        return inner(x, k, k if stride in ((), None) else _tuple(stride, d), _tuple(padding, d), _tuple(dilation, d))
    return ref


def _max_with_indices(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """(values, flat indices into the unpadded row) of max_pool1d."""
    values = _pool_nd(1, np.max, -np.inf)(x, kernel_size, stride, padding, dilation)
    s = kernel_size if stride in ((), None) else stride
    starts = np.arange(values.shape[-1]) * s - padding
    cols = starts[:, None] + np.arange(kernel_size) * dilation
    gathered = np.where((cols >= 0) & (cols < x.shape[-1]), x[..., np.clip(cols, 0, x.shape[-1] - 1)], -np.inf)
    return values, starts + gathered.argmax(-1) * dilation


def _adaptive_bounds(n, out):
    return [(i * n // out, -(-(i + 1) * n // out)) for i in range(out)]


def _adaptive(reduce):
    def ref(x, output_size):
        out = output_size if isinstance(output_size, int) else output_size[0]
        return np.stack([reduce(x[..., a:b], -1) for a, b in _adaptive_bounds(x.shape[-1], out)], -1)
    return ref


def _adaptive_max_pool1d(x, output_size):
    bounds = _adaptive_bounds(x.shape[-1], output_size)
    return (np.stack([x[..., a:b].max(-1) for a, b in bounds], -1),
            np.stack([a + x[..., a:b].argmax(-1) for a, b in bounds], -1))


def _normalize(x, axes, eps):
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def _channel(v, ndim):
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _batch_norm(x, w, b, mean, var, training, momentum, eps, cudnn_enabled):
    axes = (0,) + tuple(range(2, x.ndim))
    y = _normalize(x, axes, eps) if training else (x - _channel(mean, x.ndim)) / np.sqrt(_channel(var, x.ndim) + eps)
    return y * _channel(w, x.ndim) + _channel(b, x.ndim)


def _instance_norm(x, w, b, mean, var, use_input_stats, momentum, eps, cudnn_enabled):
    y = _normalize(x, tuple(range(2, x.ndim)), eps)
    return y if w is None else y * _channel(w, x.ndim) + _channel(b, x.ndim)


def _layer_norm(x, shape, w=None, b=None, eps=1e-5, cudnn_enable=True):
    y = _normalize(x, tuple(range(x.ndim - len(shape), x.ndim)), eps)
    return y if w is None else y * w + b


def _group_norm(x, groups, w=None, b=None, eps=1e-5, cudnn_enabled=True):
    grouped = x.reshape((x.shape[0], groups, -1))
    y = _normalize(grouped, (2,), eps).reshape(x.shape)
    return y if w is None else y * _channel(w, x.ndim) + _channel(b, x.ndim)


def _rms_norm(x, shape, w=None, eps=None):
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    y = x / np.sqrt((x * x).mean(axes, keepdims=True) + (np.finfo(x.dtype).eps if eps is None else eps))
    return y if w is None else y * w


def _conv_samples(d):
    def samples(dtype, rng):
        sp = (5,) * d
        return [Sample((_r(rng, 2, 2, *sp), _r(rng, 3, 2, *(3,) * d), _r(rng, 3))),
                Sample((_r(rng, 1, 4, *sp), _r(rng, 2, 2, *(2,) * d)), {"stride": 2, "padding": 1, "groups": 2}),
                Sample((_r(rng, 1, 2, *sp), _r(rng, 2, 2, *(2,) * d)), {"dilation": 2, "padding": 1})]
    return samples


def _conv_transpose_samples(d):
    def samples(dtype, rng):
        sp = (3,) * d
        return [Sample((_r(rng, 2, 2, *sp), _r(rng, 2, 3, *(3,) * d), _r(rng, 3))),
                Sample((_r(rng, 1, 4, *sp), _r(rng, 4, 1, *(2,) * d)),
                       {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
                Sample((_r(rng, 1, 2, *sp), _r(rng, 2, 2, *(2,) * d)), {"dilation": 2, "stride": 2})]
    return samples


def _pool_samples(d):
    def samples(dtype, rng):
        x = _r(rng, 2, 2, *(6,) * d)
        return [Sample((x, 2)), Sample((x, 3, 2, 1)), Sample((x, 2, 1, 0, 2)), Sample((_r(rng, 3, *(5,) * d), 2))]
    return samples


def _norm_args(rng, c):
    return _r(rng, c) + 1.5, _r(rng, c), _r(rng, c), rng.uniform(0.5, 2, c)


def _batch_norm_samples(dtype, rng):
    w, b, mean, var = _norm_args(rng, 3)
    return [Sample((_r(rng, 4, 3, 2, 2), w, b, mean, var, False, 0.1, 1e-5, False)),
            Sample((_r(rng, 5, 3), w, b, mean, var, True, 0.1, 1e-5, False))]


def _batch_norm_grad_samples(rng):
    """The running statistics as tensors, so that gradcheck does not make them inputs (they have no gradient)."""
    w, b, mean, var = _norm_args(rng, 3)
    stats = ember.tensor(mean), ember.tensor(var)
    return [((_r(rng, 4, 3, 2), w, b, *stats, training, 0.1, 1e-5, False), {}) for training in (False, True)]


def _instance_norm_samples(dtype, rng):
    w, b, _, _ = _norm_args(rng, 3)
    return [Sample((_r(rng, 2, 3, 5), w, b, None, None, True, 0.1, 1e-5, False)),
            Sample((_r(rng, 2, 3, 3, 3), None, None, None, None, True, 0.1, 1e-5, False))]


def _indices(rng, high, shape):
    return ember.tensor(rng.integers(0, high, shape))


register(
    *[python_opinfo(f"conv{d}d", conv_ref, _conv_samples(d)) for d in (1, 2, 3)],
    *[python_opinfo(f"conv_transpose{d}d", conv_transpose_ref, _conv_transpose_samples(d)) for d in (1, 2, 3)],
    python_opinfo("conv_tbc", lambda x, w, b, pad=0: np.transpose(conv_ref(
        np.transpose(x, (1, 2, 0)), np.transpose(w, (2, 1, 0)), b, padding=pad), (2, 0, 1)),
                  lambda dtype, rng: [Sample((_r(rng, 6, 2, 3), _r(rng, 3, 3, 4), _r(rng, 4))),
                                      Sample((_r(rng, 5, 1, 2), _r(rng, 2, 2, 3), _r(rng, 3), 1))]),
    *[python_opinfo(f"max_pool{d}d", _pool_nd(d, np.max, -np.inf), _pool_samples(d)) for d in (1, 2, 3)],
    python_opinfo("max_pool1d_with_indices", _max_with_indices, _pool_samples(1)),
    python_opinfo("avg_pool1d", lambda x, k, stride=None, padding=0, ceil_mode=False, count_include_pad=True:
                  _pool_nd(1, np.mean, 0.0)(x, k, stride, padding),
                  lambda dtype, rng: [Sample((_r(rng, 2, 2, 7), 2)), Sample((_r(rng, 2, 7), 3, 2, 1))]),
    python_opinfo("adaptive_avg_pool1d", _adaptive(np.mean),
                  lambda dtype, rng: [Sample((_r(rng, 2, 3, 7), 3)), Sample((_r(rng, 2, 5), 5))]),
    python_opinfo("adaptive_max_pool1d", _adaptive_max_pool1d,
                  lambda dtype, rng: [Sample((_r(rng, 2, 3, 7), 3)), Sample((_r(rng, 2, 6), 4))]),
    python_opinfo("batch_norm", _batch_norm, _batch_norm_samples, grad_samples=_batch_norm_grad_samples),
    python_opinfo("instance_norm", _instance_norm, _instance_norm_samples),
    python_opinfo("layer_norm", _layer_norm, lambda dtype, rng: [
        Sample((_r(rng, 2, 3, 4), (4,))), Sample((_r(rng, 2, 3, 4), (3, 4), _r(rng, 3, 4), _r(rng, 3, 4)))]),
    python_opinfo("group_norm", _group_norm, lambda dtype, rng: [
        Sample((_r(rng, 2, 4, 3), 2)), Sample((_r(rng, 2, 6, 2, 2), 3, _r(rng, 6), _r(rng, 6)))]),
    python_opinfo("rms_norm", _rms_norm, lambda dtype, rng: [
        Sample((_r(rng, 2, 3, 4), (4,))), Sample((_r(rng, 2, 3, 4), (3, 4), _r(rng, 3, 4), 1e-3))]),
    python_opinfo("embedding", lambda w, idx, padding_idx=-1, scale_grad_by_freq=False, sparse=False: w[idx],
                  lambda dtype, rng: [Sample((_r(rng, 5, 3), _indices(rng, 5, (2, 4)))),
                                      Sample((_r(rng, 5, 3), _indices(rng, 5, (3,)), 1))],
                  # the padding row gets no gradient (PyTorch's rule), so finite differences there disagree
                  grad_samples=lambda rng: [((_r(rng, 5, 3), _indices(rng, 5, (2, 4))), {})]),
)
