"""OpInfos of the dropout family: ember.dropout/feature_dropout/alpha_dropout/feature_alpha_dropout (and their
in-place forms) and nn.functional's dropout, dropout1d/2d/3d, alpha_dropout and feature_alpha_dropout.
Outside training, with p=0 and with p=1 the result is exact (the input, the input, zeros). In training with 0<p<1
the mask is random, so the reference draws its own (NumPy) mask and the two are compared through what every valid
result shares, on a constant input: its set of values (0 and x/(1-p); alpha dropout's a*x+b and its fill) and, for the
feature forms, one value per channel. check then asks the dropped share to be p within six standard deviations."""
import numpy as np

from ember.testing.opinfo import Sample, register, to_numpy

from ._nn_samples import noncontig, r
from ._python_level import python_opinfo

LOW = ("bfloat16", "float32", "float64")
_ALPHA = 1.7580993408473766  # -SELU's negative saturation, scale * alpha
_CONSTANT = 1.5


def _dropout_ref(feature, alpha, channel_dims):
    """channel_dims(x) -> how many leading dims index a channel (the mask's own dims)."""
    def ref(x, p=0.5, train=True, inplace=False):
        if not train or p == 0:
            return x.copy()
        if p == 1:
            return np.zeros_like(x)
        lead = channel_dims(x) if feature else x.ndim
        keep = (np.random.default_rng(0).random(x.shape[:lead]) >= p).reshape(x.shape[:lead] + (1,) * (x.ndim - lead))
        if not alpha:
            return x * keep / (1 - p)
        a = 1 / np.sqrt((_ALPHA ** 2 * p + 1) * (1 - p))
        return a * (x * keep - _ALPHA * (1 - keep)) + _ALPHA * a * p
    return ref


def _canonical(feature, channel_dims):
    def canonical(out):
        values = np.unique(np.round(np.asarray(out, np.float64), 3))
        if not feature or out.size == 0:
            return values
        lead = channel_dims(out)
        rows = out.reshape(int(np.prod(out.shape[:lead])), -1)
        return values, np.asarray(rows.min(1) == rows.max(1))
    return canonical


def _dropped_share_check(feature, alpha, channel_dims, p_of):
    def check(got, sample, dtype):
        p, train = p_of(sample)
        out = to_numpy(got)
        if not train or p in (0, 1) or out.size == 0:
            return
        dropped = (out < 0) if alpha else (out == 0)
        units = int(np.prod(out.shape[:channel_dims(out)])) if feature else out.size
        assert abs(dropped.mean() - p) < 6 * np.sqrt(p * (1 - p) / units), f"dropped {dropped.mean()} for p={p}"
    return check


def _samples(shape, positional):
    """A constant input in training at p 0.3 and 0.6; random inputs outside training and at p 0 and 1; a
    non-contiguous and an empty input. positional: the top-level (input, p, train) form."""
    def make(x, p, train):
        return Sample((x, p, train)) if positional else Sample((x,), {"p": p, "training": train})

    def samples(dtype, rng):
        const = np.full(shape, _CONSTANT)
        return [make(const, 0.3, True), make(const, 0.6, True), make(r(rng, *shape), 0.5, False),
                make(r(rng, *shape), 0.0, True), make(r(rng, *shape), 1.0, True),
                make(noncontig(np.full(shape, _CONSTANT), dtype), 0.5, True),
                make(np.zeros((0,) + shape[1:]), 0.5, True)]
    return samples


def _grad_samples(shape, positional):
    shape = (2, 3) + shape[2:]  # small: gradcheck builds the whole Jacobian

    def grad(rng):  # the mask is fixed only outside training or at p=0
        return [((r(rng, *shape), 0.0, True) if positional else (r(rng, *shape),), {} if positional else
                 {"p": 0.0, "training": True}),
                ((r(rng, *shape), 0.4, False) if positional else (r(rng, *shape),), {} if positional else
                 {"p": 0.4, "training": False})]
    return grad


def _p_positional(sample):
    return sample.args[1], sample.args[2]


def _p_keyword(sample):
    return sample.kwargs["p"], sample.kwargs["training"]


def _info(name, feature, alpha, channel_dims, shape, positional, in_place=False):
    return python_opinfo(
        name, _dropout_ref(feature, alpha, channel_dims), _samples(shape, positional), LOW,
        grad=not in_place, grad_samples=_grad_samples(shape, positional),
        check=_dropped_share_check(feature, alpha, channel_dims, _p_positional if positional else _p_keyword),
        extra={"compare_as": _canonical(feature, channel_dims)})


def _keyword_ref(info):
    """nn.functional's forms call the flag `training`; the reference's is `train`."""
    ref = info.ref
    info.ref = lambda x, p=0.5, training=True, inplace=False: ref(x, p, training)
    return info


def _batch_and_channel(x):
    return 2


def _functional_channels(d):
    """dropout{d}d: an input of d+2 dims is batched (N, C, ...); of d+1 dims it is (C, ...). dropout2d reads a 3-d
    input as (N, C, L), as PyTorch does (with a warning)."""
    def dims(x):
        return 2 if x.ndim == d + 2 or (d == 2 and x.ndim == 3) else 1
    return dims


register(
    *[_info(f"{name}{suffix}", feature, alpha, _batch_and_channel, (40, 30, 2), True, in_place=suffix == "_")
      for name, feature, alpha in (("dropout", False, False), ("feature_dropout", True, False),
                                   ("alpha_dropout", False, True), ("feature_alpha_dropout", True, True))
      for suffix in ("", "_")],
    _keyword_ref(_info("nn.functional.dropout", False, False, _batch_and_channel, (40, 30), False)),
    _keyword_ref(_info("nn.functional.alpha_dropout", False, True, _batch_and_channel, (40, 30), False)),
    _keyword_ref(_info("nn.functional.feature_alpha_dropout", True, True, _batch_and_channel, (40, 30, 2), False)),
    _keyword_ref(_info("nn.functional.dropout1d", True, False, _functional_channels(1), (40, 30, 3), False)),
    _keyword_ref(_info("nn.functional.dropout2d", True, False, _functional_channels(2), (40, 30, 2, 2), False)),
    _keyword_ref(_info("nn.functional.dropout3d", True, False, _functional_channels(3), (40, 30, 2, 1, 2), False)),
)
