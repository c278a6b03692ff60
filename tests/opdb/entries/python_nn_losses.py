"""OpInfos of ember.nn.functional's losses (reduction by name, weights, ignore_index, label smoothing, CTC) and
cdist, against references written here in NumPy/SciPy: the log-space CTC forward recursion, log_softmax for the
cross entropy, the pairwise hinge sums of the margin losses."""
import numpy as np
import scipy.special as sps

import ember
from ember.testing.opinfo import Sample, register

from ._nn_samples import noncontig, plain_grad_samples, r
from ._python_level import python_opinfo
from .python_functional_misc import _bce_with_logits, _cdist, _cosine_embedding_loss, _kl_div, _poisson_nll_loss, \
    _triplet

CODE = {"none": 0, "mean": 1, "sum": 2}
REDUCE = {"none": lambda v: v, "mean": np.mean, "sum": np.sum}
REDUCTIONS = ("none", "mean", "sum")


def _weighted(loss, weight, reduction, mean_by_weight):
    """mse/l1: "mean" over a weight is sum(w * loss) / sum(w); huber's is the plain mean of w * loss."""
    if weight is None:
        return REDUCE[reduction](loss)
    if reduction == "mean" and mean_by_weight:
        return np.sum(loss * weight) / np.sum(weight)
    return REDUCE[reduction](loss * weight)


def _mse(x, y, size_average=None, reduce=None, reduction="mean", weight=None):
    return _weighted((x - y) ** 2, weight, reduction, True)


def _l1(x, y, size_average=None, reduce=None, reduction="mean", weight=None):
    return _weighted(np.abs(x - y), weight, reduction, True)


def _huber(x, y, reduction="mean", delta=1.0, weight=None):
    d = np.abs(x - y)
    return _weighted(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), weight, reduction, False)


def _smooth_l1(x, y, size_average=None, reduce=None, reduction="mean", beta=1.0):
    d = np.abs(x - y)
    return REDUCE[reduction](d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta))


def _bce(x, y, weight=None, size_average=None, reduce=None, reduction="mean"):
    loss = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))  # PyTorch clamps log at -100
    return REDUCE[reduction](loss if weight is None else loss * weight)


def _class_weights(target, weight, ignore_index, classes):
    w = np.ones(classes) if weight is None else weight
    keep = target != ignore_index
    return np.where(keep, w[np.where(keep, target, 0)], 0.0)


def _nll(logp, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """logp (N, C, *d) or (C,), target (N, *d) or ()."""
    if logp.ndim == 1:
        logp, target = logp[None], np.asarray(target)[None]
    w = _class_weights(target, weight, ignore_index, logp.shape[1])
    picked = np.take_along_axis(logp, np.where(target == ignore_index, 0, target)[:, None], 1)[:, 0]
    loss = -picked * w
    if reduction == "mean":
        return loss.sum() / w.sum()
    return REDUCE[reduction](loss)


def _cross_entropy(x, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                   label_smoothing=0.0):
    logp = sps.log_softmax(x, axis=0 if x.ndim == 1 else 1)
    classes = logp.shape[0 if x.ndim == 1 else 1]
    wshape = (-1,) + (1,) * (x.ndim - 2) if x.ndim > 1 else (-1,)
    wc = np.ones(classes) if weight is None else weight
    if np.issubdtype(np.asarray(target).dtype, np.floating):  # class probabilities
        t = target * (1 - label_smoothing) + label_smoothing / classes
        loss = -(logp * t * wc.reshape(wshape)).sum(0 if x.ndim == 1 else 1)
        return loss.sum() / (1 if x.ndim == 1 else x.shape[0]) if reduction == "mean" else REDUCE[reduction](loss)
    nll = _nll(logp, target, weight, ignore_index=ignore_index, reduction="none")
    if label_smoothing == 0:
        return _nll(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    keep = (np.asarray(target) != ignore_index)
    smooth = -(logp * wc.reshape(wshape)).sum(0 if x.ndim == 1 else 1) * keep
    loss = (1 - label_smoothing) * nll + label_smoothing / classes * smooth
    if reduction == "mean":
        return loss.sum() / _class_weights(np.atleast_1d(target), weight, ignore_index, classes).sum()
    return REDUCE[reduction](loss)


def _ctc_one(logp, target, blank):
    """-log p(target | logp) by the forward recursion over the blank-extended target (logp: T, C)."""
    ext = np.full(2 * len(target) + 1, blank)
    ext[1::2] = target
    alpha = np.full(len(ext), -np.inf)
    alpha[0] = logp[0, blank]
    if len(ext) > 1:
        alpha[1] = logp[0, ext[1]]
    for t in range(1, logp.shape[0]):
        prev = alpha.copy()
        shift1 = np.concatenate([[-np.inf], prev[:-1]])
        shift2 = np.concatenate([[-np.inf, -np.inf], prev[:-2]])
        skip = np.concatenate([[False, False], (ext[2:] != blank) & (ext[2:] != ext[:-2])])
        alpha = np.logaddexp(np.logaddexp(prev, shift1), np.where(skip, shift2, -np.inf)) + logp[t, ext]
    return -np.logaddexp(alpha[-1], alpha[-2] if len(ext) > 1 else -np.inf)


def _ctc(logp, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """logp (T, N, C) or (T, C); targets padded (N, S) or concatenated (sum of target_lengths,)."""
    if isinstance(reduction, int):
        reduction = REDUCTIONS[reduction]
    batched = logp.ndim == 3
    logp = logp if batched else logp[:, None]
    il, tl = np.atleast_1d(np.asarray(input_lengths)), np.atleast_1d(np.asarray(target_lengths))
    targets = np.atleast_2d(np.asarray(targets)) if np.asarray(targets).ndim == 2 or not batched else targets
    starts = np.concatenate([[0], np.cumsum(tl)[:-1]])
    losses = []
    for n in range(logp.shape[1]):
        t = targets[n, :tl[n]] if np.ndim(targets) == 2 else targets[starts[n]:starts[n] + tl[n]]
        losses.append(_ctc_one(logp[:il[n], n], np.asarray(t), blank))
    loss = np.array(losses)
    if zero_infinity:
        loss = np.where(np.isinf(loss), 0.0, loss)
    if reduction == "mean":
        return np.mean(loss / np.maximum(tl, 1))
    return REDUCE[reduction](loss if batched else loss[0])


def _gaussian_nll(x, y, var, full=False, eps=1e-6, reduction="mean"):
    if var.ndim == x.ndim - 1:
        var = var[..., None]
    var = np.maximum(var, eps)
    loss = 0.5 * (np.log(var) + (x - y) ** 2 / var) + (0.5 * np.log(2 * np.pi) if full else 0.0)
    return REDUCE[reduction](loss)


def _multi_margin(x, y, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    x2 = np.atleast_2d(x)
    yv = np.atleast_1d(y)
    picked = np.take_along_axis(x2, yv[:, None], 1)
    hinge = np.maximum(0, margin - picked + x2) ** p
    if weight is not None:
        hinge = hinge * weight[yv][:, None]
    hinge[np.arange(len(yv)), yv] = 0
    loss = hinge.sum(1) / x2.shape[1]
    return REDUCE[reduction](loss if x.ndim == 2 else loss[0])


def _multilabel_margin(x, y, size_average=None, reduce=None, reduction="mean"):
    x2, y2 = np.atleast_2d(x), np.atleast_2d(y)
    losses = []
    for row, labels in zip(x2, y2):
        stop = np.argmax(labels < 0) if (labels < 0).any() else len(labels)
        targets = labels[:stop]
        others = np.setdiff1d(np.arange(len(row)), targets)
        losses.append(sum(np.maximum(0, 1 - (row[j] - row[others])).sum() for j in targets) / len(row))
    loss = np.array(losses, dtype=float)
    return REDUCE[reduction](loss if x.ndim == 2 else loss[0])


def _multilabel_soft_margin(x, y, weight=None, size_average=None, reduce=None, reduction="mean"):
    loss = -(y * -np.logaddexp(0, -x) + (1 - y) * -np.logaddexp(0, x))
    if weight is not None:
        loss = loss * weight
    return REDUCE[reduction](loss.mean(-1))


def _kl(x, y, size_average=None, reduce=None, reduction="mean", log_target=False):
    """"batchmean" divides the sum by the batch size (the first dim)."""
    if reduction == "batchmean":
        return _kl_div(x, y, 2, log_target) / x.shape[0]
    return _kl_div(x, y, CODE[reduction], log_target)


def _by_name(ref):
    """A reference of python_functional_misc.py (integer reduction codes) taking PyTorch's reduction names."""
    def named(*args, reduction="mean", **kwargs):
        return ref(*args, reduction=CODE[reduction], **kwargs)
    return named


def _pair_samples(make_target, weight=None, **extra):
    """input/target pairs in each reduction, a non-contiguous pair, an empty pair (reduction none and sum);
    weight(reduction, w) gives the positional arguments after target that pass weight w (kwargs take no arrays)."""
    def samples(dtype, rng):
        out = [Sample((r(rng, 3, 4), make_target(rng, (3, 4))), {"reduction": red, **extra}) for red in REDUCTIONS]
        if weight:
            out += [Sample((r(rng, 3, 4), make_target(rng, (3, 4))) + weight(red, rng.uniform(0.2, 2, (3, 4))), extra)
                    for red in REDUCTIONS]
        out += [Sample((noncontig(r(rng, 4, 5), dtype), noncontig(make_target(rng, (4, 5)), dtype)), dict(extra)),
                Sample((np.zeros((0, 3)), np.zeros((0, 3))), {"reduction": "sum", **extra}),
                Sample((np.zeros((0, 3)), np.zeros((0, 3))), {"reduction": "none", **extra})]
        return out
    return samples


def _legacy_weight(red, w):  # mse_loss/l1_loss: (input, target, size_average, reduce, reduction, weight)
    return (None, None, red, w)


def _real_target(rng, shape):
    return r(rng, *shape)


def _sign_target(rng, shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def _ints(rng, high, shape):
    return ember.tensor(rng.integers(0, high, shape))


def _class_samples(dtype, rng):
    """nll_loss / cross_entropy: (N, C), (N, C, d), an unbatched (C,), weights, ignore_index."""
    w = rng.uniform(0.3, 2, 4)
    target = rng.integers(0, 4, 5)
    target[1] = 2
    ignored = target.copy()
    ignored[1] = -100
    out = [Sample((r(rng, 5, 4, scale=2), ember.tensor(target)), {"reduction": red}) for red in REDUCTIONS]
    out += [Sample((r(rng, 5, 4, scale=2), ember.tensor(target), w), {"reduction": red}) for red in REDUCTIONS]
    out += [Sample((r(rng, 5, 4, scale=2), ember.tensor(ignored), w)),
            Sample((r(rng, 5, 4, scale=2), ember.tensor(target)), {"ignore_index": 2}),
            Sample((r(rng, 2, 4, 3, scale=2), _ints(rng, 4, (2, 3)))),
            Sample((r(rng, 4), ember.tensor(1))),
            Sample((noncontig(r(rng, 4, 5), dtype), _ints(rng, 5, (4,))))]
    return out


def _nll_samples(dtype, rng):
    return [Sample((sps.log_softmax(s.args[0].numpy() if hasattr(s.args[0], "numpy") else s.args[0],
                                    axis=0 if np.ndim(s.args[0]) == 1 else 1),) + s.args[1:], s.kwargs)
            for s in _class_samples(dtype, rng) if isinstance(s.args[0], np.ndarray)]


def _cross_entropy_samples(dtype, rng):
    probs = sps.softmax(r(rng, 5, 4, scale=2), 1)
    return _class_samples(dtype, rng) + [
        Sample((r(rng, 5, 4, scale=2), _ints(rng, 4, (5,))), {"label_smoothing": 0.2}),
        Sample((r(rng, 5, 4, scale=2), _ints(rng, 4, (5,)), rng.uniform(0.3, 2, 4)), {"label_smoothing": 0.1}),
        Sample((r(rng, 5, 4, scale=2), _ints(rng, 4, (5,))), {"label_smoothing": 0.3, "reduction": "sum"}),
        Sample((r(rng, 5, 4, scale=2), probs)), Sample((r(rng, 5, 4, scale=2), probs), {"label_smoothing": 0.2}),
        Sample((r(rng, 5, 4, scale=2), probs), {"reduction": "none"})]


def _ctc_samples(dtype, rng):
    """(T, N, C) log-probabilities: padded and concatenated targets, repeats (they need a blank between), an
    unbatched input, and a target too long for its input (infinite loss, zeroed by zero_infinity)."""
    logp = sps.log_softmax(r(rng, 6, 2, 4, scale=2), -1)
    padded = ember.tensor([[1, 2, 2], [3, 1, 0]])
    lengths = {"input_lengths": (6, 5), "target_lengths": (3, 2)}
    out = [Sample((logp, padded, *lengths.values()), {"reduction": red}) for red in REDUCTIONS]
    out += [Sample((logp, ember.tensor([1, 2, 2, 3, 1]), (6, 5), (3, 2)), {"blank": 0}),
            Sample((sps.log_softmax(r(rng, 5, 4), -1), ember.tensor([2, 3]), ember.tensor(5), ember.tensor(2)),
                   {"reduction": "sum"}),
            Sample((logp, ember.tensor([[3, 3, 3, 3], [1, 0, 0, 0]]), (3, 6), (4, 1)),
                   {"reduction": "none", "zero_infinity": True}),
            Sample((sps.log_softmax(r(rng, 6, 2, 4, scale=2), -1), ember.tensor([[0, 1], [2, 2]]), (6, 6), (2, 2)),
                   {"blank": 3})]
    return out


def _ctc_grad_samples(rng):
    return [((sps.log_softmax(r(rng, 5, 2, 4), -1), ember.tensor([[1, 2], [3, 3]]), (5, 4), (2, 2)), {})]


def _gaussian_samples(dtype, rng):
    return [Sample((r(rng, 3, 4), r(rng, 3, 4), rng.uniform(0.2, 2, (3, 4))), {"reduction": red}) for red in
            REDUCTIONS] + [
        Sample((r(rng, 3, 4), r(rng, 3, 4), rng.uniform(0.2, 2, (3,))), {"full": True}),  # one dim fewer
        Sample((r(rng, 3, 4), r(rng, 3, 4), rng.uniform(0.2, 2, (3, 1)))),
        Sample((r(rng, 3, 4), r(rng, 3, 4), np.full((3, 4), 1e-9)), {"eps": 1e-3}),  # var clamped to eps
        Sample((noncontig(r(rng, 4, 5), dtype), r(rng, 4, 5), rng.uniform(0.2, 2, (4, 5))))]


def _multi_margin_samples(dtype, rng):
    out = [Sample((r(rng, 4, 5), _ints(rng, 5, (4,))), {"reduction": red}) for red in REDUCTIONS]
    return out + [Sample((r(rng, 4, 5), _ints(rng, 5, (4,))), {"p": 2, "margin": 0.5}),
                  Sample((r(rng, 4, 5), _ints(rng, 5, (4,)), 1, 1.0, rng.uniform(0.5, 2, 5))),
                  Sample((r(rng, 5), ember.tensor(3))),
                  Sample((noncontig(r(rng, 4, 5), dtype), _ints(rng, 5, (4,))))]


def _multilabel_margin_samples(dtype, rng):
    y = ember.tensor([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 1, 2, 0]])  # labels up to the first -1
    return [Sample((r(rng, 3, 4), y), {"reduction": red}) for red in REDUCTIONS] + [
        Sample((r(rng, 4), ember.tensor([2, 1, -1, 3]))), Sample((noncontig(r(rng, 3, 4), dtype), y))]


def _multilabel_soft_samples(dtype, rng):
    y = (rng.random((3, 4)) < 0.5).astype(float)
    return [Sample((r(rng, 3, 4, scale=3), y), {"reduction": red}) for red in REDUCTIONS] + [
        Sample((r(rng, 3, 4, scale=3), y, rng.uniform(0.5, 2, 4))),
        Sample((noncontig(r(rng, 3, 4), dtype), (rng.random((3, 4)) < 0.5).astype(float)))]


def _bce_samples(dtype, rng):
    x, y = rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4))
    return [Sample((x, y), {"reduction": red}) for red in REDUCTIONS] + [
        Sample((x, y, rng.uniform(0.5, 2, (4,)))), Sample((np.zeros((0, 2)), np.zeros((0, 2))), {"reduction": "sum"}),
        Sample((noncontig(rng.uniform(0.05, 0.95, (4, 5)), dtype), rng.uniform(0, 1, (4, 5))))]


def _bce_logits_samples(dtype, rng):
    x, y = r(rng, 3, 4, scale=3), rng.uniform(0, 1, (3, 4))
    return [Sample((x, y), {"reduction": red}) for red in REDUCTIONS] + [
        Sample((x, y, rng.uniform(0.5, 2, 4), None, None, "mean", rng.uniform(0.5, 2, 4))),
        Sample((noncontig(r(rng, 4, 5), dtype), rng.uniform(0, 1, (4, 5))))]


def _triple_samples(make):
    def samples(dtype, rng):
        return [Sample(make(rng), {"reduction": red}) for red in REDUCTIONS] + [Sample(make(rng), {"margin": 0.3})]
    return samples


def _cdist_samples(dtype, rng):
    return [Sample((r(rng, 4, 3), r(rng, 5, 3))), Sample((r(rng, 2, 3, 2), r(rng, 2, 4, 2)), {"p": 1.0}),
            Sample((r(rng, 4, 3), r(rng, 2, 3)), {"p": 3.0}), Sample((np.zeros((0, 3)), r(rng, 2, 3))),
            Sample((noncontig(r(rng, 4, 3), dtype), r(rng, 2, 3)))]


def _no_class_weight(samples):
    """gradcheck samples without a class weight (PyTorch has no derivative for nll_loss's weight either)."""
    return lambda rng: [(args, kw) for args, kw in plain_grad_samples(samples)(rng) if len(args) == 2]


def _loss(name, ref, samples, dtypes=("float32", "float64"), **kw):
    return python_opinfo(f"nn.functional.{name}", ref, samples, dtypes,
                         grad_samples=kw.pop("grad_samples", plain_grad_samples(samples)), **kw)


def _ctc_toplevel(logp, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    return _ctc(logp, targets, input_lengths, target_lengths, blank, REDUCTIONS[reduction], zero_infinity)


def _ctc_toplevel_samples(dtype, rng):
    return [Sample(s.args + (s.kwargs.get("blank", 0), CODE[s.kwargs.get("reduction", "mean")],
                             s.kwargs.get("zero_infinity", False))) for s in _ctc_samples(dtype, rng)]


register(
    _loss("mse_loss", _mse, _pair_samples(_real_target, _legacy_weight), ("bfloat16", "float32", "float64")),
    _loss("l1_loss", _l1, _pair_samples(_real_target, _legacy_weight), ("bfloat16", "float32", "float64")),
    _loss("huber_loss", _huber, _pair_samples(_real_target, lambda red, w: (red, 0.5, w))),
    _loss("smooth_l1_loss", _smooth_l1, _pair_samples(_real_target, beta=0.5)),
    _loss("soft_margin_loss", lambda x, y, size_average=None, reduce=None, reduction="mean": REDUCE[reduction](
        np.logaddexp(0, -y * x)), _pair_samples(_sign_target)),
    _loss("hinge_embedding_loss", lambda x, y, margin=1.0, size_average=None, reduce=None, reduction="mean": REDUCE[
        reduction](np.where(y > 0, x, np.maximum(0, margin - x))), _pair_samples(_sign_target, margin=0.5)),
    _loss("kl_div", _kl, lambda dtype, rng: [
        Sample((np.log(rng.uniform(0.1, 1, (3, 4))), rng.uniform(0.1, 1, (3, 4))), {"reduction": red})
        for red in ("none", "sum", "batchmean")] + [Sample((r(rng, 3, 4), r(rng, 3, 4)), {"log_target": True,
                                                                                         "reduction": "sum"})]),
    _loss("binary_cross_entropy", _bce, _bce_samples, grad_samples=lambda rng: [  # no gradient for weight
        ((rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4))), {"reduction": red}) for red in REDUCTIONS]),
    _loss("binary_cross_entropy_with_logits", lambda x, y, weight=None, size_average=None, reduce=None,
          reduction="mean", pos_weight=None: _bce_with_logits(x, y, weight, pos_weight, CODE[reduction]),
          _bce_logits_samples),
    _loss("cosine_embedding_loss", _by_name(_cosine_embedding_loss), _triple_samples(
        lambda rng: (r(rng, 4, 3), r(rng, 4, 3), _sign_target(rng, (4,))))),
    _loss("margin_ranking_loss", lambda x1, x2, y, margin=0.0, size_average=None, reduce=None, reduction="mean":
          REDUCE[reduction](np.maximum(0, -y * (x1 - x2) + margin)),
          _triple_samples(lambda rng: (r(rng, 5), r(rng, 5), _sign_target(rng, (5,))))),
    _loss("triplet_margin_loss", _by_name(_triplet), _triple_samples(
        lambda rng: (r(rng, 4, 3), r(rng, 4, 3), r(rng, 4, 3)))),
    _loss("poisson_nll_loss", lambda x, y, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
          reduction="mean": _poisson_nll_loss(x, y, log_input, full, eps, CODE[reduction]), lambda dtype, rng: [
        Sample((r(rng, 3, 4), rng.uniform(0, 3, (3, 4))), {"reduction": red}) for red in REDUCTIONS] + [
        Sample((rng.uniform(0.1, 2, (3, 4)), rng.uniform(0.5, 3, (3, 4))), {"log_input": False, "full": True})]),
    _loss("gaussian_nll_loss", _gaussian_nll, _gaussian_samples, grad_samples=lambda rng: [
        ((r(rng, 3, 4), r(rng, 3, 4), rng.uniform(0.2, 2, (3, 4))), {}),
        ((r(rng, 3, 4), r(rng, 3, 4), rng.uniform(0.2, 2, (3,))), {"full": True})]),
    _loss("nll_loss", _nll, _nll_samples, grad_samples=_no_class_weight(_nll_samples)),
    _loss("cross_entropy", _cross_entropy, _cross_entropy_samples, ("bfloat16", "float32", "float64"),
          tol={"bfloat16": (3e-2, 3e-2)}, grad_samples=_no_class_weight(_cross_entropy_samples)),
    _loss("multi_margin_loss", _multi_margin, _multi_margin_samples),
    _loss("multilabel_margin_loss", _multilabel_margin, _multilabel_margin_samples),
    _loss("multilabel_soft_margin_loss", _multilabel_soft_margin, _multilabel_soft_samples),
    _loss("ctc_loss", _ctc, _ctc_samples, grad_samples=_ctc_grad_samples),
    python_opinfo("ctc_loss", _ctc_toplevel, _ctc_toplevel_samples, grad_samples=lambda rng: [
        (args + (0, 1, False), kw) for args, kw in _ctc_grad_samples(rng)]),
    _loss("cdist", _cdist, _cdist_samples),
)
