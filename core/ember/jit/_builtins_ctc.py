"""Script version of ember.nn.functional.ctc_loss (see _builtins_nn.py for why): the eager function's forward
recursion in log space over the extended label sequences (ember/nn/_functional_ctc.py), the whole batch at
once, with lengths given as tensors (a loop over time steps)."""
from __future__ import annotations

from typing import List

import ember
from ember import Tensor

_NEG = -1e30  # "log 0", finite as in the eager function


def _labels(targets: Tensor, tg_lens: List[int], n: int, s_max: int, blank: int, concatenated: bool) -> Tensor:
    """(N, max(s_max, 1)) int64: each sample's labels, padded with the blank."""
    rows: List[Tensor] = []
    flat = targets.reshape([-1]).to(ember.int64)
    offset = 0
    for i in range(n):
        k = tg_lens[i]
        if concatenated:
            row = flat.narrow(0, offset, k)
            offset += k
        else:
            if k > targets.size(1):
                raise RuntimeError(f"ctc_loss: target_lengths[{i}] = {k} exceeds the targets' width {targets.size(1)}")
            row = targets[i].to(ember.int64).narrow(0, 0, k)
        rows.append(ember.cat([row, ember.full([max(s_max, 1) - k], blank, dtype=ember.int64)], 0))
    return ember.stack(rows, 0)


def ctc_loss(log_probs, targets, input_lengths: Tensor, target_lengths: Tensor, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False):
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.dim() != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be (T, N, C) or (T, C), got {log_probs.shape}")
    t_max, n, c = lp.size(0), lp.size(1), lp.size(2)
    if blank < 0 or blank >= c:
        raise RuntimeError(f"ctc_loss: blank must be in label range [0, {c}), but got blank={blank}")
    in_flat, tg_flat = input_lengths.reshape([-1]), target_lengths.reshape([-1])
    if in_flat.numel() != n or tg_flat.numel() != n:
        raise RuntimeError(f"ctc_loss: expected {n} input_lengths and target_lengths, got {in_flat.numel()} and "
                           f"{tg_flat.numel()}")
    in_lens = [int(in_flat[i]) for i in range(n)]
    tg_lens = [int(tg_flat[i]) for i in range(n)]
    for i in range(n):
        if in_lens[i] <= 0 or in_lens[i] > t_max:
            raise RuntimeError(f"ctc_loss: input_lengths[{i}] = {in_lens[i]} must be in [1, {t_max}]")
        if tg_lens[i] < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {tg_lens[i]}")
    s_max = max(tg_lens) if n > 0 else 0
    labels = _labels(targets, tg_lens, n, s_max, blank, targets.dim() <= 1 or unbatched)
    used = ember.arange(max(s_max, 1), dtype=ember.int64).unsqueeze(0) < tg_flat.to(ember.int64).unsqueeze(1)
    bad = (labels < 0).logical_or(labels >= c).logical_or(labels == blank).logical_and(used)
    if bool(bad.any()):
        raise IndexError(f"ctc_loss: target labels must be in [0, {c}) and not the blank ({blank})")
    width = 2 * s_max + 1
    blanks = ember.full([n, s_max], blank, dtype=ember.int64)
    pairs = ember.stack([blanks, labels.narrow(1, 0, s_max)], 2).reshape([n, 2 * s_max])
    ext = ember.cat([pairs, ember.full([n, 1], blank, dtype=ember.int64)], 1)
    pos = ember.arange(width, dtype=ember.int64).unsqueeze(0)
    before = ember.cat([ember.full([n, 2], -1, dtype=ember.int64), ext], 1).narrow(1, 0, width)
    allowed = (pos >= 2).logical_and(ext != blank).logical_and(ext != before)
    zero = ember.zeros([n, width], dtype=lp.dtype)
    neg = ember.full([n, width], _NEG, dtype=lp.dtype)
    skip_bias = ember.where(allowed, zero, neg)
    flat_index = (ember.arange(n, dtype=ember.int64).unsqueeze(1) * c + ext).reshape([-1])
    emit = lp.reshape([t_max, -1]).index_select(1, flat_index).reshape([t_max, n, width])
    alpha = ember.where(pos < 2, emit[0], neg)
    neg1 = ember.full([n, 1], _NEG, dtype=lp.dtype)
    neg2 = ember.full([n, 2], _NEG, dtype=lp.dtype)
    lengths = in_flat.to(ember.int64).unsqueeze(1)
    for t in range(1, max(in_lens)):
        step = ember.cat([neg1, alpha], 1).narrow(1, 0, width)
        skip = ember.cat([neg2, alpha], 1).narrow(1, 0, width) + skip_bias
        new = ember.logsumexp(ember.stack([alpha, step, skip], 0), [0]) + emit[t]
        alpha = ember.where(lengths > t, new, alpha)
    last = (tg_flat.to(ember.int64) * 2).unsqueeze(1)
    a_last = alpha.gather(1, last).squeeze(1)
    a_prev = alpha.gather(1, (last - 1).clamp_min(0)).squeeze(1)
    a_prev = ember.where(last.squeeze(1) > 0, a_prev, ember.full_like(a_prev, _NEG))
    out = -ember.logsumexp(ember.stack([a_last, a_prev], 0), [0])
    impossible = out.detach() > 1e29
    if bool(impossible.any()):
        out = ember.where(impossible, out * 0 if zero_infinity else out * 0 + float("inf"), out)
    if reduction == "none":
        return out.squeeze(0) if unbatched else out
    if reduction == "sum":
        return out.sum()
    return (out / tg_flat.to(out.dtype).clamp_min(1)).mean()


NAMES = ["ctc_loss"]
