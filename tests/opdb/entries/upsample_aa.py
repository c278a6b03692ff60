"""OpInfos for core/ops/upsample_aa.yaml (antialiased resize) against a plain NumPy reference written from PyTorch's
algorithm: for each output pixel of an axis, Pillow's filter (triangle, or Keys' cubic with a = -0.5) stretched by
the downscale factor over the input pixels it covers (the window [center - support + 0.5, center + support + 0.5)
truncated, clipped to the image), normalised to sum 1; the horizontal pass first, an axis whose size does not
change left as it is; uint8 in int16 fixed point (the most fraction bits up to 22 keeping the largest weight under
2^15, weights rounded half away from zero) summed from half a unit and rounded and clipped after each pass."""
import numpy as np

from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _triangle(x):
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _keys(x, a=-0.5):
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    return (((x - 5.0) * x + 8.0) * x - 4.0) * a if x < 2.0 else 0.0


def axis_weights(n_in, n_out, cubic, align_corners, factor=None):
    """The (n_out, n_in) matrix of one axis's normalised weights."""
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        scale = 1.0 / factor if factor is not None and factor > 0 else n_in / n_out
    half = 2.0 if cubic else 1.0
    support = half * scale if scale >= 1.0 else half
    stretch = 1.0 / scale if scale >= 1.0 else 1.0
    kernel = _keys if cubic else _triangle
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        center = scale * (i + 0.5)
        lo, hi = max(int(center - support + 0.5), 0), min(int(center + support + 0.5), n_in)
        w = np.array([kernel((j - center + 0.5) * stretch) for j in range(lo, hi)])
        m[i, lo:hi] = w / w.sum() if w.sum() != 0 else w
    return m


def _fixed(m):
    bits = 0
    while bits < 22 and int(0.5 + m.max() * (1 << (bits + 1))) < (1 << 15):
        bits += 1
    v = m * (1 << bits)
    return np.where(v < 0, np.trunc(v - 0.5), np.trunc(v + 0.5)).astype(np.int64), bits


def resize_aa_ref(x, output_size, align_corners, scales_h=None, scales_w=None, cubic=False):
    oh, ow = output_size
    wh = axis_weights(x.shape[2], oh, cubic, align_corners, scales_h) if oh != x.shape[2] else None
    ww = axis_weights(x.shape[3], ow, cubic, align_corners, scales_w) if ow != x.shape[3] else None
    if x.dtype == np.uint8:
        y = x.astype(np.int64)
        if ww is not None:
            q, bits = _fixed(ww)
            y = np.clip((np.einsum("nchw,pw->nchp", y, q) + (1 << (bits - 1))) >> bits, 0, 255)
        if wh is not None:
            q, bits = _fixed(wh)
            y = np.clip((np.einsum("oh,nchw->ncow", q, y) + (1 << (bits - 1))) >> bits, 0, 255)
        return y.astype(np.uint8)
    y = x.astype(np.float64)
    if ww is not None:
        y = np.einsum("nchw,pw->nchp", y, ww)
    if wh is not None:
        y = np.einsum("oh,nchw->ncow", wh, y)
    return y


def resize_aa_backward_ref(g, output_size, input_size, align_corners, scales_h=None, scales_w=None, cubic=False):
    """The adjoint: the transposed weight matrices."""
    h, w = input_size[2], input_size[3]
    wh = axis_weights(h, output_size[0], cubic, align_corners, scales_h) if output_size[0] != h else np.eye(h)
    ww = axis_weights(w, output_size[1], cubic, align_corners, scales_w) if output_size[1] != w else np.eye(w)
    return np.einsum("oh,ncop,pw->nchw", wh, g.astype(np.float64), ww)


# (input shape, output size, align_corners, scale factors): shrinking and growing, one axis unchanged, a factor
# given (its output size as interpolate computes it), and the small ones gradcheck runs on
CASES = [((2, 3, 10, 12), [5, 7], False, None), ((1, 2, 9, 13), [20, 4], True, None),
         ((1, 1, 17, 6), [5, 6], False, None), ((2, 1, 7, 7), [7, 16], True, None),
         ((1, 2, 10, 9), [3, 4], False, (0.37, 0.5)), ((1, 1, 6, 5), [15, 12], False, (2.5, 2.5)),
         ((1, 1, 4, 5), [2, 3], False, None), ((1, 2, 3, 3), [2, 4], True, None)]


def _forward_samples(dtype, rng):
    out = []
    for shape, size, corners, factors in CASES:
        x = random_array(dtype, shape, rng, (-3.0, 3.0), (0, 256))
        kw = {} if factors is None else {"scales_h": factors[0], "scales_w": factors[1]}
        out.append(Sample((x, size, corners), kw))
    return out


def _backward_samples(dtype, rng):
    out = []
    for shape, size, corners, factors in CASES:
        g = random_array(dtype, shape[:2] + tuple(size), rng, (-3.0, 3.0), (0, 10))
        kw = {} if factors is None else {"scales_h": factors[0], "scales_w": factors[1]}
        out.append(Sample((g, size, list(shape), corners), kw))
    return out


def _info(name, cubic):
    def ref(*args, **kwargs):
        return resize_aa_ref(*args, cubic=cubic, **kwargs)

    def backward_ref(*args, **kwargs):
        return resize_aa_backward_ref(*args, cubic=cubic, **kwargs)
    return [OpInfo(name, ref=ref, sample_inputs=_forward_samples, tol={"float32": (1e-5, 1e-5)}),
            OpInfo(f"{name}_backward", ref=backward_ref, sample_inputs=_backward_samples,
                   tol={"float32": (1e-5, 1e-5)})]


register(*_info("_upsample_bilinear2d_aa", False), *_info("_upsample_bicubic2d_aa", True))
