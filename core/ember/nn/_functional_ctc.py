"""ctc_loss of ember.nn.functional (re-exported there): the CTC forward algorithm in log space,
written with differentiable ops (a Python loop over time steps; slow for long inputs)."""
from __future__ import annotations

from .. import _C
from ._arg_checks import tensor_args

__all__ = ["ctc_loss"]

_NEG = -1e30  # "log 0": finite, so logsumexp's gradient stays finite on unreachable states


def _sample_loss(lp, labels, blank):
    """-log p(labels | lp) for one sample: lp (T, C) log-probabilities, labels a list of ints."""
    ext = [blank]
    for v in labels:
        ext += [v, blank]
    L = len(ext)
    emit = lp.index_select(1, _C.tensor(ext, dtype=_C.int64))  # (T, L)
    allowed = [s >= 2 and ext[s] != blank and ext[s] != ext[s - 2] for s in range(L)]
    skip_bias = _C.tensor([0.0 if a else _NEG for a in allowed], dtype=lp.dtype)
    neg1 = _C.full([1], _NEG, dtype=lp.dtype)
    neg2 = _C.full([2], _NEG, dtype=lp.dtype)
    init = _C.full([L], _NEG, dtype=lp.dtype)
    alpha = _C.cat([emit[0, :min(2, L)], init[min(2, L):]])
    for t in range(1, lp.shape[0]):
        stay = alpha
        step = _C.cat([neg1, alpha[:-1]])
        skip = _C.cat([neg2, alpha[:-2]])[:L] + skip_bias
        alpha = _C.logsumexp(_C.stack([stay, step, skip]), 0) + emit[t]
    ends = alpha[-2:] if L > 1 else alpha[-1:]
    return -_C.logsumexp(ends, 0)


@tensor_args("log_probs", "targets", bools=("zero_infinity",))
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
    flat = targets.reshape(-1).tolist() if targets.dim() <= 1 or unbatched else None
    losses, offset = [], 0
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
        loss = _sample_loss(lp[:in_lens[i], i], labels, blank)
        if loss.item() > 1e29:  # no alignment exists: an infinite loss
            loss = loss * 0 if zero_infinity else loss * 0 + float("inf")  # still on the graph
        losses.append(loss)
    out = _C.stack(losses)
    if reduction == "none":
        return out.squeeze(0) if unbatched else out
    if reduction == "sum":
        return out.sum()
    return (out / _C.tensor(tg_lens, dtype=out.dtype).clamp_min(1)).mean()
