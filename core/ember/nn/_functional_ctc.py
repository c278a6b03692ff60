"""ctc_loss of ember.nn.functional (re-exported there): the CTC forward algorithm in log space,
written with differentiable ops, the whole batch at once (a Python loop over time steps)."""
from __future__ import annotations

from ..amp._policy import autocast_policy
from .. import _C
from ._arg_checks import reserve, tensor_args

__all__ = ["ctc_loss"]

_NEG = -1e30  # "log 0": finite, so logsumexp's gradient stays finite on unreachable states


def _batch_loss(lp, label_lists, in_lens, blank):
    """-log p(labels_n | lp[:in_len_n, n]) for every sample n at once: lp (T, N, C); the forward
    recursion over the extended label sequences (blanks between and around the labels), padded
    to the longest, one step per time step for the whole batch. States past a sample's own
    sequence only receive mass (transitions go forward), so they never change its loss."""
    T, N, _ = lp.shape
    s_max = max((len(v) for v in label_lists), default=0)
    width = 2 * s_max + 1
    labels = _C.full([N, max(s_max, 1)], blank, dtype=_C.int64)
    for n, v in enumerate(label_lists):
        if v:
            labels[n, :len(v)] = _C.tensor(v, dtype=_C.int64)
    ext = _C.full([N, width], blank, dtype=_C.int64)
    if s_max:
        ext[:, 1::2] = labels[:, :s_max]
    pos = _C.arange(width, dtype=_C.int64).unsqueeze(0)
    before = _C.cat([_C.full([N, 2], -1, dtype=_C.int64), ext[:, :-2]], 1)[:, :width]
    skip_bias = _C.where((pos >= 2) & (ext != blank) & (ext != before), _C.zeros([], dtype=lp.dtype),
                         _C.full([], _NEG, dtype=lp.dtype))
    # emit[t][n, s] = lp[t, n, ext[n, s]]: an index_select on (T, N * C) (its backward an index_add,
    # much cheaper than gather's with an expanded index), then one tensor per step (unbind's
    # backward stacks the steps' gradients once; indexing emit[t] would cost a full-size add per step)
    flat_index = (_C.arange(N, dtype=_C.int64).unsqueeze(1) * lp.shape[2] + ext).reshape(-1)
    emit = lp.reshape(T, -1).index_select(1, flat_index).reshape(T, N, width).unbind(0)
    neg1 = _C.full([N, 1], _NEG, dtype=lp.dtype)
    neg2 = _C.full([N, 2], _NEG, dtype=lp.dtype)
    alpha = _C.where(pos < 2, emit[0], _C.full([], _NEG, dtype=lp.dtype))
    lengths = _C.tensor(in_lens, dtype=_C.int64).unsqueeze(1)
    for t in range(1, max(in_lens)):
        step = _C.cat([neg1, alpha[:, :-1]], 1)
        skip = _C.cat([neg2, alpha[:, :-2]], 1)[:, :width] + skip_bias
        new = _C.logsumexp(_C.stack([alpha, step, skip]), 0) + emit[t]
        alpha = _C.where(lengths > t, new, alpha)  # a sample past its input length keeps its last alpha
    last = _C.tensor([2 * len(v) for v in label_lists], dtype=_C.int64).unsqueeze(1)
    a_last = alpha.gather(1, last).squeeze(1)
    a_prev = alpha.gather(1, (last - 1).clamp_min(0)).squeeze(1)
    a_prev = _C.where(last.squeeze(1) > 0, a_prev, _C.full([], _NEG, dtype=lp.dtype))  # an empty target: one end
    return -_C.logsumexp(_C.stack([a_last, a_prev]), 0)


@tensor_args("log_probs", "targets", bools=("zero_infinity",))
@autocast_policy("fp32")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss. log_probs (T, N, C) (or (T, C) unbatched);
    targets (N, S) padded or 1-D concatenated; 'mean' divides each loss by its target length."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.dim() != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be (T, N, C) or (T, C), got {list(log_probs.shape)}")
    T, N, C = lp.shape
    if isinstance(blank, bool) or not isinstance(blank, int) or not 0 <= blank < C:
        raise RuntimeError(f"ctc_loss: blank must be in label range [0, {C}), but got blank={blank!r}")
    def as_list(v, name, position):
        if isinstance(v, _C.TensorBase):
            if v.is_floating_point() or v.is_complex() or v.dtype == _C.bool:
                raise RuntimeError(f"{name} must be integral")
            if v.numel() != N:  # checked before the values become a Python list (a huge view would not fit)
                raise RuntimeError(f"ctc_loss: expected {N} {name} (one per sample), got {v.numel()}")
            return [int(x) for x in v.reshape(-1).tolist()]
        if isinstance(v, (list, tuple)) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            return list(v)
        raise TypeError(f"ctc_loss(): argument '{name}' (position {position}) must be Tensor or tuple of ints, not "
                        f"{type(v).__name__}")
    in_lens = [input_lengths] if unbatched and isinstance(input_lengths, int) else \
        as_list(input_lengths, "input_lengths", 3)
    tg_lens = [target_lengths] if unbatched and isinstance(target_lengths, int) else \
        as_list(target_lengths, "target_lengths", 4)
    if len(in_lens) != N or len(tg_lens) != N:
        raise RuntimeError(f"ctc_loss: expected {N} input_lengths and target_lengths, got {len(in_lens)} and "
                           f"{len(tg_lens)}")
    if any(v < 0 for v in tg_lens):
        raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {min(tg_lens)}")
    if targets.is_complex() or targets.dtype == _C.bool:
        raise RuntimeError(f"ctc_loss: targets must be class indices, got {targets.dtype}")
    if targets.is_floating_point():  # PyTorch reads them as integers
        targets = targets.to(_C.int64)
    if targets.dim() <= 1 or unbatched:
        if targets.numel() < sum(tg_lens):
            raise RuntimeError(f"Expected tensor to have size {sum(tg_lens)} at dimension 0, but got size "
                               f"{targets.numel()} for argument #2 'targets' (the target_lengths add up to more)")
    elif targets.dim() != 2 or targets.shape[0] != N:
        raise RuntimeError(f"Expected tensor to have size {N} at dimension 0, but got size {targets.shape[0]} for "
                           f"argument #2 'targets' (padded targets are (N, S))")
    # the forward variables PyTorch allocates (T, N, 2 * S + 1), asked for before the labels become
    # Python lists: a target length beyond the machine's memory fails at once, naming the bytes
    reserve("ctc_loss", [T, N, 2 * max(tg_lens, default=0) + 1], lp.dtype, "the forward variables")
    flat = targets.reshape(-1)[:sum(tg_lens)].tolist() if targets.dim() <= 1 or unbatched else None
    label_lists, offset = [], 0
    for i in range(N):
        if not 0 < in_lens[i] <= T:
            raise RuntimeError(f"ctc_loss: input_lengths[{i}] = {in_lens[i]} must be in [1, {T}]")
        if flat is not None:
            labels = flat[offset:offset + tg_lens[i]]
            offset += tg_lens[i]
        else:
            if tg_lens[i] > targets.shape[1]:
                raise RuntimeError(f"ctc_loss: target_lengths[{i}] = {tg_lens[i]} exceeds the targets' width "
                                   f"{targets.shape[1]}")
            labels = targets[i, :tg_lens[i]].tolist()
        if any(v < 0 or v >= C or v == blank for v in labels):
            raise IndexError(f"ctc_loss: target labels must be in [0, {C}) and not the blank ({blank}), got {labels}")
        label_lists.append([int(v) for v in labels])
    out = _batch_loss(lp, label_lists, in_lens, blank) if N else lp.sum((0, 2)) * 0
    impossible = out.detach() > 1e29  # no alignment exists: an infinite loss
    if impossible.any().item():  # (still on the graph either way)
        out = _C.where(impossible, out * 0 if zero_infinity else out * 0 + float("inf"), out)
    if reduction == "none":
        return out.squeeze(0) if unbatched else out
    if reduction == "sum":
        return out.sum()
    return (out / _C.tensor(tg_lens, dtype=out.dtype).clamp_min(1)).mean()
