"""OpInfos for core/ops/nn.yaml: the activation functions against NumPy/SciPy formulas written
from PyTorch's documentation."""
import numpy as np
from scipy import special

import ember

from ember.testing.opinfo import OpInfo, register

SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _elu(a, alpha=1.0, scale=1.0, input_scale=1.0):
    return scale * np.where(a > 0, a, alpha * np.expm1(a * input_scale))


def _softplus(a, beta=1.0, threshold=20.0):
    return np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)


def _gelu(a, approximate="none"):
    if approximate == "tanh":
        return 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3)))
    return 0.5 * a * (1 + special.erf(a / np.sqrt(2)))


def _hardtanh(a, min_val=-1.0, max_val=1.0):
    if a.dtype.kind in "iu":  # PyTorch truncates the limits to the integer dtype
        return np.clip(a, int(min_val), int(max_val))
    return np.clip(a, min_val, max_val)


register(
    OpInfo("relu", ref=lambda a: np.maximum(a, 0)),
    OpInfo("leaky_relu", ref=lambda a, negative_slope=0.01: np.where(a > 0, a, a * negative_slope),
           kwargs=[{}, {"negative_slope": 0.2}]),
    OpInfo("elu", ref=_elu, kwargs=[{}, {"alpha": 0.5}, {"alpha": SELU_ALPHA, "scale": SELU_SCALE},
                                    {"alpha": 1.5, "scale": 2.0, "input_scale": 0.5}]),
    OpInfo("celu", ref=lambda a, alpha=1.0: np.maximum(0, a) + np.minimum(0, alpha * np.expm1(a / alpha)),
           kwargs=[{}, {"alpha": 2.0}]),
    OpInfo("gelu", ref=_gelu, kwargs=[{}, {"approximate": "tanh"}]),
    OpInfo("silu", ref=lambda a: a * special.expit(a)),
    OpInfo("mish", ref=lambda a: a * np.tanh(np.log1p(np.exp(a)))),
    OpInfo("softplus", ref=_softplus, kwargs=[{}, {"beta": 2.0, "threshold": 3.0}]),
    OpInfo("softsign", ref=lambda a: a / (1 + np.abs(a))),
    # non-negative limits, as uint8 refuses negative ones (tests/nn/test_activation_integers.py has those)
    OpInfo("hardtanh", ref=_hardtanh, kwargs=[{"min_val": 0.0, "max_val": 6.0}, {"min_val": 0.5, "max_val": 2.5}]),
    OpInfo("hardsigmoid", ref=lambda a: np.clip(a / 6 + 0.5, 0, 1), domain=(-5.0, 5.0)),
    OpInfo("hardswish", ref=lambda a: a * np.clip(a + 3, 0, 6) / 6, domain=(-5.0, 5.0)),
    OpInfo("logsigmoid", ref=lambda a: -np.logaddexp(0, -a)),
    OpInfo("tanhshrink", ref=lambda a: a - np.tanh(a)),
    # a value >= 0, since uint8 refuses a negative float as PyTorch (tests/core/test_scalar_overflow.py)
    OpInfo("threshold", ref=lambda a, threshold, value: np.where(a > threshold, a, value),
           kwargs=[{"threshold": 0.5, "value": 2.0}]),
    OpInfo("threshold_backward", ref=lambda g, a, threshold: np.where(a <= threshold, 0, g),
           kwargs=[{"threshold": 0.0}, {"threshold": 0.5}]),
    OpInfo("softshrink", ref=lambda a, lambd=0.5: np.where(a > lambd, a - lambd, np.where(a < -lambd, a + lambd, 0)),
           kwargs=[{}, {"lambd": 1.0}]),
    OpInfo("hardshrink", ref=lambda a, lambd=0.5: np.where(np.abs(a) > lambd, a, 0), kwargs=[{}, {"lambd": 1.0}]),
)


def _softmax_samples(dtype, rng):
    from ember.testing.opinfo import Sample, random_array
    out = [Sample((np.asarray(random_array(dtype, shape, rng, (-4, 4), (-3, 3))),), {"dim": dim})
           for shape, dim in [((3, 5), 1), ((3, 5), 0), ((2, 3, 4), 1), ((2, 3, 4), -1), ((), 0), ((0, 3), 1)]]
    if dtype == "float32":  # dtype= casts first
        out.append(Sample((np.asarray(random_array(dtype, (2, 3), rng, (-4, 4), (-3, 3))),),
                          {"dim": 1, "dtype": __import__("ember").float64}))
    return out


def _softmax(a, dim, dtype=None):
    return special.softmax(a.astype(np.float64), axis=dim) if a.ndim else np.ones_like(a, dtype=np.float64)


def _log_softmax(a, dim, dtype=None):
    return special.log_softmax(a.astype(np.float64), axis=dim) if a.ndim else np.zeros_like(a, dtype=np.float64)


register(
    OpInfo("softmax", ref=_softmax, sample_inputs=_softmax_samples),
    OpInfo("log_softmax", ref=_log_softmax, sample_inputs=_softmax_samples),
)


def _per_dim(v, nd):
    return list(v) * nd if len(v) == 1 else list(v)


def _conv_ref(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    """Convolution by its definition: every kernel offset's strided slice of the padded input,
    contracted with that offset's weights (transposed: the same sums scattered the other way)."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    nd = w.ndim - 2
    s, p, d = _per_dim(stride, nd), _per_dim(padding, nd), _per_dim(dilation, nd)
    ks = w.shape[2:]
    if transposed:
        op = _per_dim(output_padding, nd)
        cin, cout_g = w.shape[0], w.shape[1]
        out_sp = [(x.shape[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (ks[i] - 1) + 1 + op[i] for i in range(nd)]
        full = [out_sp[i] + 2 * p[i] + s[i] for i in range(nd)]
        y = np.zeros((x.shape[0], cout_g * groups, *full))
        cin_g = cin // groups
        for k in np.ndindex(*ks):
            for gi in range(groups):
                contrib = np.einsum("nc...,co->no...", x[:, gi * cin_g:(gi + 1) * cin_g],
                                    w[gi * cin_g:(gi + 1) * cin_g, :][(slice(None), slice(None)) + k])
                idx = tuple(slice(k[i] * d[i], k[i] * d[i] + s[i] * (x.shape[2 + i] - 1) + 1, s[i]) for i in range(nd))
                y[(slice(None), slice(gi * cout_g, (gi + 1) * cout_g)) + idx] += contrib
        y = y[(slice(None), slice(None)) + tuple(slice(p[i], p[i] + out_sp[i]) for i in range(nd))]
    else:
        xp = np.pad(x, [(0, 0), (0, 0)] + [(p[i], p[i]) for i in range(nd)])
        out_sp = [(xp.shape[2 + i] - d[i] * (ks[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
        cout, cin_g = w.shape[0], w.shape[1]
        og = cout // groups
        y = np.zeros((x.shape[0], cout, *out_sp))
        for k in np.ndindex(*ks):
            idx = tuple(slice(k[i] * d[i], k[i] * d[i] + s[i] * (out_sp[i] - 1) + 1, s[i]) for i in range(nd))
            patch = xp[(slice(None), slice(None)) + idx]
            for gi in range(groups):
                y[:, gi * og:(gi + 1) * og] += np.einsum(
                    "nc...,oc->no...", patch[:, gi * cin_g:(gi + 1) * cin_g],
                    w[gi * og:(gi + 1) * og][(slice(None), slice(None)) + k])
    if b is not None:
        y = y + b.astype(np.float64).reshape([1, -1] + [1] * nd)
    return y


def _conv_samples(dtype, rng):
    from ember.testing.opinfo import Sample, random_array

    def r(*shape):
        return np.asarray(random_array(dtype, shape, rng, (-1, 1), (-2, 2)))
    cases = [  # (input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups)
        ((2, 3, 7), (4, 3, 3), True, [1], [1], [1], False, [0], 1),
        ((1, 4, 6, 5), (6, 2, 3, 2), True, [2, 1], [1, 0], [1, 2], False, [0], 2),
        ((2, 2, 4, 4, 3), (3, 2, 2, 2, 1), False, [1], [0], [1], False, [0], 1),
        ((1, 4, 3, 3), (4, 2, 3, 3), True, [2], [1], [1], True, [1], 2),
        ((2, 3, 5), (3, 2, 2), False, [3], [0], [2], True, [0], 1),
    ]
    return [Sample((r(*xs), r(*ws), r(ws[1] * g if tr else ws[0]) if bias else None, st, pad, dil, tr, op, g))
            for xs, ws, bias, st, pad, dil, tr, op, g in cases]


def _weight_grad_ref(grad_output, input, weight_sizes, stride, padding, dilation, groups):
    """By the definition dW = d<grad_output, conv(input, W)>/dW, taken element by element of W."""
    out = np.zeros(weight_sizes)
    for idx in np.ndindex(*weight_sizes):
        e = np.zeros(weight_sizes)
        e[idx] = 1.0
        out[idx] = np.sum(grad_output.astype(np.float64) *
                          _conv_ref(input, e, None, stride, padding, dilation, False, [0], groups))
    return out


def _weight_grad_samples(dtype, rng):
    from ember.testing.opinfo import Sample, random_array
    out = []
    for xs, ws, st, pad, dil, g in [((2, 2, 5), (3, 2, 2), [1], [1], [1], 1),
                                    ((1, 4, 4, 4), (2, 2, 2, 2), [2], [0], [1], 2)]:
        x = np.asarray(random_array(dtype, xs, rng, (-1, 1), (-2, 2)))
        y = _conv_ref(x, np.zeros(ws), None, st, pad, dil, False, [0], g)
        go = np.asarray(random_array(dtype, y.shape, rng, (-1, 1), (-2, 2)))
        out.append(Sample((go, x, list(ws), st, pad, dil, g)))
    return out


register(
    OpInfo("convolution", ref=_conv_ref, sample_inputs=_conv_samples,
           tol={"float16": (2e-2, 2e-2), "bfloat16": (5e-2, 5e-2), "float32": (1e-4, 1e-5)}),
    OpInfo("convolution_weight_grad", ref=_weight_grad_ref, sample_inputs=_weight_grad_samples,
           tol={"float16": (2e-2, 5e-2), "bfloat16": (5e-2, 1e-1), "float32": (1e-4, 1e-5)}),
)


def _pool_out(n, k, s, p, d, ceil_mode):
    span = d * (k - 1) + 1
    out = (n + 2 * p - span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _windows(spatial, kernel, stride, padding, dilation, ceil_mode):
    """For every output position (in row-major order): its window's in-bounds positions and its
    extent within the padded input (PyTorch's rules, written out)."""
    import itertools
    nd = len(kernel)
    stride = stride or kernel
    pad = _per_dim(padding, nd)
    dil = _per_dim(dilation, nd)
    stride = _per_dim(stride, nd)
    outs = [_pool_out(spatial[i], kernel[i], stride[i], pad[i], dil[i], ceil_mode) for i in range(nd)]
    res = []
    for o in itertools.product(*[range(n) for n in outs]):
        axes, padded = [], 1
        for i in range(nd):
            b = o[i] * stride[i] - pad[i]
            pos = [b + k * dil[i] for k in range(kernel[i])]
            padded *= len([q for q in pos if q < spatial[i] + pad[i]])
            axes.append([q for q in pos if 0 <= q < spatial[i]])
        res.append((list(itertools.product(*axes)), padded))
    return outs, res


def _max_pool_ref(x, kernel_size, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    outs, wins = _windows(x.shape[2:], list(kernel_size), list(stride), list(padding), list(dilation), ceil_mode)
    vals = np.zeros(x.shape[:2] + tuple(outs))
    idx = np.zeros(x.shape[:2] + tuple(outs), dtype=np.int64)
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            plane = x[n, c].astype(np.float64)
            for k, (pos, _) in enumerate(wins):
                o = np.unravel_index(k, outs)
                v = [plane[q] for q in pos]
                j = int(np.argmax(v))
                vals[(n, c) + o] = v[j]
                idx[(n, c) + o] = np.ravel_multi_index(pos[j], x.shape[2:])
    return vals, idx


def _avg_pool_ref(x, kernel_size, stride=(), padding=(0,), ceil_mode=False, count_include_pad=True,
                  divisor_override=None):
    outs, wins = _windows(x.shape[2:], list(kernel_size), list(stride), list(padding), [1], ceil_mode)
    out = np.zeros(x.shape[:2] + tuple(outs))
    for k, (pos, padded) in enumerate(wins):
        o = np.unravel_index(k, outs)
        div = divisor_override or (padded if count_include_pad else len(pos))
        for q in pos:
            out[(slice(None), slice(None)) + o] += x[(slice(None), slice(None)) + q].astype(np.float64)
        out[(slice(None), slice(None)) + o] /= div
    return out


def _adaptive_windows(spatial, output_size):
    import itertools
    axes = [[(o * n // m, -(-(o + 1) * n // m)) for o in range(m)] for n, m in zip(spatial, output_size)]
    return [list(itertools.product(*[range(b, e) for b, e in combo])) for combo in itertools.product(*axes)]


def _adaptive_avg_ref(x, output_size):
    out = np.zeros(x.shape[:2] + tuple(output_size))
    for k, pos in enumerate(_adaptive_windows(x.shape[2:], output_size)):
        o = np.unravel_index(k, output_size)
        out[(slice(None), slice(None)) + o] = np.mean([x[(slice(None), slice(None)) + q] for q in pos], axis=0)
    return out


def _adaptive_max_ref(x, output_size):
    vals = np.zeros(x.shape[:2] + tuple(output_size))
    idx = np.zeros(x.shape[:2] + tuple(output_size), dtype=np.int64)
    wins = _adaptive_windows(x.shape[2:], output_size)
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            for k, pos in enumerate(wins):
                o = np.unravel_index(k, output_size)
                v = [x[n, c][q] for q in pos]
                j = int(np.argmax(v))
                vals[(n, c) + o] = v[j]
                idx[(n, c) + o] = np.ravel_multi_index(pos[j], x.shape[2:])
    return vals, idx


def _adjoint(forward, out_shape, in_shape):
    """A linear map's adjoint applied to g: column j of the matrix is forward(e_j)."""
    def ref(g, *args):
        res = np.zeros(int(np.prod(in_shape)))
        for j in range(res.size):
            e = np.zeros(res.size)
            e[j] = 1
            res[j] = np.sum(forward(e.reshape(in_shape), *args) * g)
        return res.reshape(in_shape)
    return ref


def _pool_samples(kind):
    def samples(dtype, rng):
        from ember.testing.opinfo import Sample, random_array

        def r(*shape):  # distinct values: no ties for max
            v = np.asarray(random_array(dtype, shape, rng, (-4, 4), (-9, 9)))
            return v
        if kind == "max":
            return [Sample((r(2, 2, 7), [3]), {"stride": [2], "padding": [1]}),
                    Sample((r(1, 2, 5, 6), [2, 3]), {"stride": [2, 1], "dilation": [1, 2], "ceil_mode": True}),
                    Sample((r(1, 1, 4, 4, 4), [2, 2, 2]), {}),
                    Sample((r(1, 3, 6, 5), [3, 3]), {"stride": [2], "padding": [1], "ceil_mode": True})]
        if kind == "avg":
            return [Sample((r(2, 2, 7), [3]), {"stride": [2], "padding": [1]}),
                    Sample((r(1, 2, 5, 6), [2, 3]), {"stride": [2, 1], "padding": [1], "ceil_mode": True,
                                                     "count_include_pad": False}),
                    Sample((r(1, 1, 4, 4, 4), [2, 2, 2]), {"divisor_override": 3}),
                    Sample((r(1, 3, 6, 5), [3, 3]), {"stride": [2], "padding": [1], "ceil_mode": True})]
        if kind == "avg_backward":
            out = []
            for xs, k, kw in [((1, 2, 7), [3], {"stride": [2], "padding": [1]}),
                              ((1, 1, 5, 6), [2, 3], {"stride": [2, 1], "padding": [1], "ceil_mode": True,
                                                      "count_include_pad": False})]:
                y = _avg_pool_ref(np.zeros(xs), k, **kw)
                out.append(Sample((r(*y.shape), list(xs), k), kw))
            return out
        if kind == "adaptive":
            return [Sample((r(2, 2, 7), [3]), {}), Sample((r(1, 2, 5, 6), [2, 4]), {}),
                    Sample((r(1, 1, 3, 4, 5), [2, 2, 3]), {})]
        return [Sample((r(1, 2, 7), list(xs), ), {}) for xs in [(1, 2, 7)]]  # unused
    return samples


def _avg_backward_ref(g, input_sizes, kernel_size, **kw):
    return _adjoint(lambda x: _avg_pool_ref(x, kernel_size, **kw), g.shape, input_sizes)(g)


def _adaptive_avg_backward_samples(dtype, rng):
    from ember.testing.opinfo import Sample, random_array
    return [Sample((np.asarray(random_array(dtype, (1, 2, 3), rng, (-4, 4), (-9, 9))), [1, 2, 7])),
            Sample((np.asarray(random_array(dtype, (1, 1, 2, 4), rng, (-4, 4), (-9, 9))), [1, 1, 5, 6]))]


def _adaptive_avg_backward_ref(g, input_sizes):
    return _adjoint(lambda x: _adaptive_avg_ref(x, list(g.shape[2:])), g.shape, input_sizes)(g)


def _max_pool_backward_samples(dtype, rng):
    """Gradients with indices into each (n, c) plane: repeated ones (overlapping windows) add up."""
    from ember.testing.opinfo import Sample, random_array

    def idx(shape, plane):
        return ember.tensor(rng.integers(0, plane, shape).astype(np.int64))
    g1 = np.asarray(random_array(dtype, (2, 3, 4), rng, (-4, 4), (-9, 9)))
    g2 = np.asarray(random_array(dtype, (1, 2, 2, 3), rng, (-4, 4), (-9, 9)))
    g3 = np.asarray(random_array(dtype, (1, 1, 2, 2, 2), rng, (-4, 4), (-9, 9)))
    return [Sample((g1, idx(g1.shape, 5), [2, 3, 5])), Sample((g2, idx(g2.shape, 12), [1, 2, 3, 4])),
            Sample((g3, idx(g3.shape, 8), [1, 1, 2, 2, 2])),
            Sample((g1[:, :, :0], idx((2, 3, 0), 5), [2, 3, 5]))]


def _max_pool_backward_ref(g, indices, input_sizes):
    n, c = input_sizes[:2]
    out = np.zeros((n * c, int(np.prod(input_sizes[2:]))), dtype=np.float64)
    flat_g, flat_i = g.astype(np.float64).reshape(n * c, -1), np.asarray(indices).reshape(n * c, -1)
    for p in range(n * c):
        np.add.at(out[p], flat_i[p], flat_g[p])
    return out.reshape(input_sizes)


register(
    OpInfo("max_pool", ref=_max_pool_ref, sample_inputs=_pool_samples("max")),
    OpInfo("max_pool_backward", ref=_max_pool_backward_ref, sample_inputs=_max_pool_backward_samples,
           tol={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2)}),
    OpInfo("avg_pool", ref=_avg_pool_ref, sample_inputs=_pool_samples("avg"),
           tol={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2)}),
    OpInfo("avg_pool_backward", ref=_avg_backward_ref, sample_inputs=_pool_samples("avg_backward"),
           tol={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2)}),
    OpInfo("adaptive_avg_pool", ref=_adaptive_avg_ref, sample_inputs=_pool_samples("adaptive"),
           tol={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2)}),
    OpInfo("adaptive_avg_pool_backward", ref=_adaptive_avg_backward_ref, sample_inputs=_adaptive_avg_backward_samples,
           tol={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2)}),
    OpInfo("adaptive_max_pool", ref=_adaptive_max_ref, sample_inputs=_pool_samples("adaptive")),
)


def _batch_norm_ref(x, w, b, rm, rv, training, momentum, eps):
    dims = (0,) + tuple(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    x = x.astype(np.float64)
    mean = x.mean(dims) if training else rm.astype(np.float64)
    var = x.var(dims) if training else rv.astype(np.float64)
    invstd = 1 / np.sqrt(var + eps)
    y = (x - mean.reshape(shape)) * invstd.reshape(shape)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y, mean, invstd


def _batch_norm_samples(dtype, rng):
    from ember.testing.opinfo import Sample, random_array

    def r(*shape, lo=-2, hi=2):
        return np.asarray(random_array(dtype, shape, rng, (lo, hi), (-3, 3)))
    return [Sample((r(4, 3, 5), r(3), r(3), r(3), r(3, lo=0.5, hi=2), True, 0.1, 1e-5)),
            Sample((r(2, 3, 4, 4), None, None, None, None, True, 0.1, 1e-3)),
            Sample((r(3, 2), r(2), r(2), r(2), r(2, lo=0.5, hi=2), False, 0.1, 1e-5))]


register(OpInfo("native_batch_norm", ref=_batch_norm_ref, sample_inputs=_batch_norm_samples,
                tol={"float32": (1e-4, 1e-5)},
                skips={"non_contiguous": "running statistics are updated in place, so must be contiguous"}))


def _batch_norm_backward_ref(g, x, w, save_mean, save_invstd, training):
    """Central differences of <g, batch_norm(x, w, b)> in float64 (bias's gradient is sum(g))."""
    g, x = g.astype(np.float64), x.astype(np.float64)
    w = np.ones(x.shape[1]) if w is None else w.astype(np.float64)
    eps = 1e-5

    def f(xv, wv):
        if training:
            return _batch_norm_ref(xv, wv, None, None, None, True, 0.1, eps)[0]
        shape = [1, -1] + [1] * (x.ndim - 2)
        return (xv - save_mean.reshape(shape)) * save_invstd.reshape(shape) * wv.reshape(shape)

    h = 1e-6
    gi = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[i] = h
        gi[i] = np.sum(g * (f(x + e, w) - f(x - e, w))) / (2 * h)
    gw = np.zeros_like(w)
    for c in range(w.size):
        e = np.zeros_like(w)
        e[c] = h
        gw[c] = np.sum(g * (f(x, w + e) - f(x, w - e))) / (2 * h)
    return gi, gw, g.sum(axis=(0,) + tuple(range(2, x.ndim)))


def _batch_norm_backward_samples(dtype, rng):
    from ember.testing.opinfo import Sample, random_array
    out = []
    for training, shape in ((True, (3, 2, 4)), (False, (4, 3))):
        x = np.asarray(random_array(dtype, shape, rng, (-2, 2), (-3, 3)))
        c = shape[1]
        wv = np.asarray(random_array(dtype, (c,), rng, (0.5, 2), (1, 3)))
        if training:
            mean, invstd = _batch_norm_ref(x, None, None, None, None, True, 0.1, 1e-5)[1:]
        else:
            mean = np.asarray(random_array(dtype, (c,), rng, (-1, 1), (-1, 1)))
            invstd = np.asarray(random_array(dtype, (c,), rng, (0.5, 2), (1, 2)))
        g = np.asarray(random_array(dtype, shape, rng, (-1, 1), (-3, 3)))
        out.append(Sample((g, x, wv, mean.astype(x.dtype), invstd.astype(x.dtype), training)))
    return out


register(OpInfo("batch_norm_backward", ref=_batch_norm_backward_ref, sample_inputs=_batch_norm_backward_samples,
                tol={"float32": (1e-3, 1e-4), "float64": (1e-5, 1e-6)}))
