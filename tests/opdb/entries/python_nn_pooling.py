"""OpInfos of ember.nn.functional's pooling (max/avg/lp/adaptive in 1-3 dims with ceil_mode, padding, dilation,
count_include_pad, divisor_override, return_indices), max_unpool and fold/unfold, against a plain reference written
here: every output position's window listed explicitly (PyTorch's output-size and divisor rules)."""
import itertools
import math

import numpy as np

import ember
from ember.testing.opinfo import Sample, register

from ._nn_samples import noncontig, plain_grad_samples, r
from ._python_level import python_opinfo

LOW = ("bfloat16", "float32", "float64")


def _tuple(v, d):
    return (v,) * d if isinstance(v, int) else tuple(v)


def _out_len(n, k, s, p, dil, ceil_mode):
    span = n + 2 * p - dil * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:  # the last window must start inside the input or its left padding
        out -= 1
    return out


def _windows(spatial, k, s, p, dil, ceil_mode):
    """For each output position (row-major): the in-bounds positions of its window and the padded window's size."""
    d = len(spatial)
    outs = [_out_len(spatial[i], k[i], s[i], p[i], dil[i], ceil_mode) for i in range(d)]
    for pos in itertools.product(*[range(o) for o in outs]):
        starts = [pos[i] * s[i] - p[i] for i in range(d)]
        axes = [[st + j * dil[i] for j in range(k[i]) if 0 <= st + j * dil[i] < spatial[i]]
                for i, st in enumerate(starts)]
        padded = math.prod(min(st + k[i], spatial[i] + p[i]) - st for i, st in enumerate(starts))
        yield pos, axes, padded, outs


def _pool(x, d, kernel_size, stride, padding, dilation, ceil_mode, reduce):
    """reduce(values (..., m), flat_indices (m,), padded_size) -> (..., ) per window; returns (out, shape)."""
    k = _tuple(kernel_size, d)
    s = k if stride in (None, ()) else _tuple(stride, d)
    p, dil = _tuple(padding, d), _tuple(dilation, d)
    spatial = x.shape[-d:]
    results, outs = {}, None
    for pos, axes, padded, outs in _windows(spatial, k, s, p, dil, ceil_mode):
        idx = list(itertools.product(*axes))
        flat = np.array([np.ravel_multi_index(i, spatial) for i in idx])
        values = x.reshape(x.shape[:-d] + (math.prod(spatial),))[..., flat]
        results[pos] = reduce(values, flat, padded)
    shape = x.shape[:-d] + tuple(outs)
    if not results:
        return np.zeros(shape), np.zeros(shape, np.int64)
    first = next(iter(results.values()))
    stacked = [np.stack([results[pos][j] for pos in results], -1).reshape(shape) for j in range(len(first))]
    return stacked


def _max_reduce(values, flat, padded):
    arg = np.argmax(values, -1)
    return values.max(-1), flat[arg]


def max_pool(d):
    def ref(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        out, idx = _pool(x, d, kernel_size, stride, padding, dilation, ceil_mode, _max_reduce)
        return (out, idx.astype(np.int64)) if return_indices else out
    return ref


def avg_pool(d):
    def ref(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
        def reduce(values, flat, padded):
            divisor = divisor_override or (padded if count_include_pad else values.shape[-1])
            return (values.sum(-1) / divisor,)
        return _pool(x, d, kernel_size, stride, padding, 1, ceil_mode, reduce)[0]
    return ref


def lp_pool(d):
    """PyTorch's lp_pool: the average of x**p over the (in-bounds) window, times the full kernel size, to the 1/p."""
    def ref(x, norm_type, kernel_size, stride=None, ceil_mode=False):
        avg = avg_pool(d)(x ** norm_type, kernel_size, stride, 0, ceil_mode)
        return (avg * math.prod(_tuple(kernel_size, d))) ** (1.0 / norm_type)
    return ref


def _adaptive_bounds(n, out):
    return [(i * n // out, -(-(i + 1) * n // out)) for i in range(out)]


def adaptive(d, reduce_max):
    def ref(x, output_size, return_indices=False):
        spatial = x.shape[-d:]
        size = [spatial[i] if o is None else o for i, o in enumerate(_tuple(output_size, d))]
        vals, idxs = [], []
        for pos in itertools.product(*[range(o) for o in size]):
            axes = [range(*_adaptive_bounds(spatial[i], size[i])[pos[i]]) for i in range(d)]
            flat = np.array([np.ravel_multi_index(i, spatial) for i in itertools.product(*axes)])
            values = x.reshape(x.shape[:-d] + (math.prod(spatial),))[..., flat]
            vals.append(values.max(-1) if reduce_max else values.mean(-1))
            idxs.append(flat[np.argmax(values, -1)])
        shape = x.shape[:-d] + tuple(size)
        out, idx = np.stack(vals, -1).reshape(shape), np.stack(idxs, -1).reshape(shape).astype(np.int64)
        return (out, idx) if return_indices else out
    return ref


def max_unpool(d):
    def ref(x, indices, kernel_size, stride=None, padding=0, output_size=None):
        k = _tuple(kernel_size, d)
        s = k if stride is None else _tuple(stride, d)
        p = _tuple(padding, d)
        size = tuple(output_size[-d:]) if output_size is not None else tuple(
            (x.shape[-d + i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(d))
        lead = x.shape[:-d]
        out = np.zeros((math.prod(lead), math.prod(size)))
        out[np.arange(out.shape[0])[:, None], indices.reshape(out.shape[0], -1)] = x.reshape(out.shape[0], -1)
        return out.reshape(lead + size)
    return ref


def _blocks(spatial, k, dil, p, s):
    """Row-major top-left corners (in the zero-padded input) of unfold's blocks."""
    outs = [(spatial[i] + 2 * p[i] - dil[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    return [(a * s[0], b * s[1]) for a in range(outs[0]) for b in range(outs[1])]


def _unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C, H, W) or (C, H, W) -> (N, C*kh*kw, L): each block's taps, channel-major, blocks row-major."""
    k, dil, p, s = (_tuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    batched = x.ndim == 4
    x = np.pad(x if batched else x[None], [(0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])])
    taps = [(i * dil[0], j * dil[1]) for i in range(k[0]) for j in range(k[1])]
    blocks = _blocks(tuple(n - 2 * q for n, q in zip(x.shape[-2:], p)), k, dil, p, s)
    out = np.zeros((x.shape[0], x.shape[1], len(taps), len(blocks)))
    for b, (h, w) in enumerate(blocks):
        for t, (i, j) in enumerate(taps):
            out[:, :, t, b] = x[:, :, h + i, w + j]
    out = out.reshape(x.shape[0], x.shape[1] * len(taps), len(blocks))
    return out if batched else out[0]


def _fold(cols, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """unfold's adjoint: every block's taps summed back into an (N, C, *output_size) image."""
    k, dil, p, s, size = (_tuple(v, 2) for v in (kernel_size, dilation, padding, stride, output_size))
    batched = cols.ndim == 3
    cols = cols if batched else cols[None]
    taps = [(i * dil[0], j * dil[1]) for i in range(k[0]) for j in range(k[1])]
    c = cols.shape[1] // len(taps)
    cols = cols.reshape(cols.shape[0], c, len(taps), -1)
    out = np.zeros((cols.shape[0], c, size[0] + 2 * p[0], size[1] + 2 * p[1]))
    for b, (h, w) in enumerate(_blocks(size, k, dil, p, s)):
        for t, (i, j) in enumerate(taps):
            out[:, :, h + i, w + j] += cols[:, :, t, b]
    out = out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
    return out if batched else out[0]


def _spatial(d):
    return {1: (7,), 2: (6, 5), 3: (5, 4, 4)}[d]


def _max_samples(d):
    def samples(dtype, rng):
        sp = _spatial(d)
        x = r(rng, 2, 2, *sp)
        return [Sample((x, 2)), Sample((x, 3, 2, 1)), Sample((x, 2, 1, 0, 2)), Sample((x, 2), {"ceil_mode": True}),
                Sample((x, 3, 2, 1, 1, True)), Sample((x, 2), {"return_indices": True}),
                Sample((x, 3, 2, 1), {"return_indices": True, "ceil_mode": True}),
                Sample((r(rng, 3, *sp), 2)), Sample((noncontig(r(rng, 2, 3, *sp), dtype), 2)),
                Sample((np.zeros((0, 2) + sp), 2))]
    return samples


def _avg_samples(d):
    def samples(dtype, rng):
        sp = _spatial(d)
        x = r(rng, 2, 2, *sp)
        out = [Sample((x, 2)), Sample((x, 3, 2, 1)), Sample((x, 3, 2, 1, True)), Sample((x, 3, 2, 1, True, False)),
               Sample((x, 2), {"ceil_mode": True}), Sample((r(rng, 3, *sp), 2)),
               Sample((noncontig(r(rng, 2, 3, *sp), dtype), 2)), Sample((np.zeros((0, 2) + sp), 2))]
        if d > 1:  # avg_pool1d has no divisor_override
            out += [Sample((x, 3, 2, 1), {"divisor_override": 5}), Sample((x, 2, 2, 1, True, False, 3))]
        return out
    return samples


def _lp_samples(d):
    def samples(dtype, rng):
        sp = _spatial(d)
        x = rng.uniform(0.1, 1, (2, 2) + sp)
        return [Sample((x, 2, 2)), Sample((x, 1, 3, 2)), Sample((x, 3.0, 2, 1)), Sample((x, 2, 3, 2, True)),
                Sample((rng.uniform(0.1, 1, (3,) + sp), 2, 2))]
    return samples


def _adaptive_samples(d, with_indices):
    def samples(dtype, rng):
        sp = _spatial(d)
        sizes = {1: [3, 7, 2], 2: [(3, 2), (None, 4), 2], 3: [(2, 3, 2), (None, 2, None), 1]}[d]
        out = [Sample((r(rng, 2, 3, *sp), size)) for size in sizes]
        out += [Sample((r(rng, 3, *sp), sizes[0])), Sample((noncontig(r(rng, 2, 3, *sp), dtype), sizes[0]))]
        if with_indices:
            out += [Sample((r(rng, 2, 3, *sp), sizes[0], True))]
        return out
    return samples


def _unpool_samples(d):
    def samples(dtype, rng):
        sp = tuple(2 * n for n in {1: (4,), 2: (3, 2), 3: (2, 2, 2)}[d])
        x = r(rng, 2, 2, *sp)
        values, idx = max_pool(d)(x, 2, return_indices=True)
        out = [Sample((values, ember.tensor(idx), 2)),
               Sample((values, ember.tensor(idx), 2, 2, 0, (2, 2) + tuple(n + 1 for n in sp)))]  # a larger output
        v3, i3 = max_pool(d)(x[0], 2, 2, 1, return_indices=True)  # unbatched, padded
        return out + [Sample((v3, ember.tensor(i3), 2, 2, 1))]
    return samples


def _unfold_samples(dtype, rng):
    return [Sample((r(rng, 2, 3, 5, 6), 2)), Sample((r(rng, 2, 3, 5, 6), (2, 3)), {"dilation": (2, 1), "padding": 1,
                                                                                   "stride": 2}),
            Sample((r(rng, 3, 4, 4), 3, 1, 1)), Sample((noncontig(r(rng, 2, 2, 4, 5), dtype), 2)),
            Sample((np.zeros((0, 2, 4, 4)), 2))]


def _fold_samples(dtype, rng):
    def cols(n, c, size, k, dil=1, p=0, s=1):
        blocks = len(_blocks(_tuple(size, 2), _tuple(k, 2), _tuple(dil, 2), _tuple(p, 2), _tuple(s, 2)))
        return r(rng, *n, c * math.prod(_tuple(k, 2)), blocks)
    return [Sample((cols((2,), 3, (5, 6), 2), (5, 6), 2)),
            Sample((cols((2,), 2, (5, 6), (2, 3), (2, 1), 1, 2), (5, 6), (2, 3)),
                   {"dilation": (2, 1), "padding": 1, "stride": 2}),
            Sample((cols((), 3, (4, 4), 3, 1, 1), (4, 4), 3, 1, 1)),
            Sample((noncontig(cols((2,), 2, (4, 5), 2), dtype), (4, 5), 2))]


def _pool_info(name, ref, samples, dtypes=("float32", "float64")):
    return python_opinfo(f"nn.functional.{name}", ref, samples, dtypes, grad_samples=plain_grad_samples(samples))


register(
    *[_pool_info(f"max_pool{d}d", max_pool(d), _max_samples(d), LOW) for d in (1, 2, 3)],
    *[_pool_info(f"avg_pool{d}d", avg_pool(d), _avg_samples(d), LOW) for d in (2, 3)],
    *[_pool_info(f"lp_pool{d}d", lp_pool(d), _lp_samples(d)) for d in (1, 2, 3)],
    *[_pool_info(f"adaptive_avg_pool{d}d", adaptive(d, False), _adaptive_samples(d, False)) for d in (2, 3)],
    *[_pool_info(f"adaptive_max_pool{d}d", adaptive(d, True), _adaptive_samples(d, True)) for d in (1, 2, 3)],
    *[_pool_info(f"max_unpool{d}d", max_unpool(d), _unpool_samples(d)) for d in (1, 2, 3)],
    _pool_info("unfold", _unfold, _unfold_samples),
    _pool_info("fold", _fold, _fold_samples),
)
