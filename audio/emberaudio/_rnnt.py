"""RNN-Transducer loss (Graves 2012) as torchaudio has it: the negative log-likelihood of each target sequence
summed over all alignments on the (time, target) lattice, by the forward recursion row by row over time; the
gradient with respect to the logits comes from autograd through that recursion, optionally clamped."""
from typing import List

import ember
from ember import Tensor, nn

__all__ = ["rnnt_loss", "RNNTLoss"]


def _check(logits, targets, logit_lengths, target_lengths, blank, reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
    if not logits.is_floating_point():
        raise RuntimeError("logits must be float32 or float64 type")
    for name, tensor in (("targets", targets), ("logit_lengths", logit_lengths), ("target_lengths", target_lengths)):
        if tensor.dtype != ember.int32:
            raise RuntimeError(f"{name} must be int32 type")
    if logits.dim() != 4:
        raise RuntimeError("logits must be 4-D (batch, time, target, class)")
    if targets.dim() != 2:
        raise RuntimeError("targets must be 2-D (batch, max target length)")
    if logit_lengths.dim() != 1 or target_lengths.dim() != 1:
        raise RuntimeError("logit_lengths and target_lengths must be 1-D")
    batch = logits.shape[0]
    if targets.shape[0] != batch or logit_lengths.shape[0] != batch or target_lengths.shape[0] != batch:
        raise RuntimeError("batch dimension mismatch between logits, targets and lengths")
    if batch and logits.shape[1] != int(logit_lengths.max()):
        raise RuntimeError("input length mismatch: logits.size(1) must equal max(logit_lengths)")
    if batch and logits.shape[2] != int(target_lengths.max()) + 1:
        raise RuntimeError("output length mismatch: logits.size(2) must equal max(target_lengths) + 1")
    if batch and targets.shape[1] != int(target_lengths.max()):
        raise RuntimeError("target length mismatch: targets.size(1) must equal max(target_lengths)")
    num_classes = logits.shape[3]
    blank = blank if blank >= 0 else num_classes + blank
    if not 0 <= blank < num_classes:
        raise RuntimeError(f"blank must be within [0, {num_classes}), got {blank}")
    if targets.numel() and (int(targets.min()) < 0 or int(targets.max()) >= num_classes):
        raise RuntimeError(f"targets must lie in [0, {num_classes})")
    if int(logit_lengths.min()) < 1 or int(target_lengths.min()) < 0:
        raise RuntimeError("logit_lengths must be positive and target_lengths non-negative")
    return blank


def _costs(logits: Tensor, targets: Tensor, logit_lengths: Tensor, target_lengths: Tensor, blank: int,
           fused_log_softmax: bool) -> Tensor:
    """Per-sequence negative log-likelihoods (batch,), differentiable through ember's autograd."""
    batch, max_t, max_u1 = logits.shape[0], logits.shape[1], logits.shape[2]
    lp = nn.functional.log_softmax(logits, dim=-1) if fused_log_softmax else logits
    blank_lp = lp[..., blank]  # (B, T, U+1)
    index = targets.to(ember.int64)[:, None, :, None].expand(batch, max_t, max_u1 - 1, 1)
    emit_lp = lp[:, :, : max_u1 - 1, :].gather(3, index).squeeze(-1)  # (B, T, U)
    zero = ember.zeros(batch, max_t, 1, dtype=lp.dtype)
    emit_cum = ember.cat([zero, emit_lp.cumsum(-1)], dim=-1)  # (B, T, U+1): emissions along one row
    rows: List[Tensor] = [emit_cum[:, 0]]  # alpha at t = 0: only emissions
    for t in range(1, max_t):
        arrive = rows[-1] + blank_lp[:, t - 1]  # a blank step down from the row above
        # alpha[t, u] = log sum_k exp(arrive[k] + emissions k..u-1 in row t)
        c = emit_cum[:, t]
        rows.append(c + ember.logcumsumexp(arrive - c, dim=-1))
    alpha = ember.stack(rows, dim=1)  # (B, T, U+1)
    b = ember.arange(batch)
    t_last = logit_lengths.to(ember.int64) - 1
    u_last = target_lengths.to(ember.int64)
    flat = (b * max_t + t_last) * max_u1 + u_last  # alpha[b, t_last, u_last] by one index (as scripted code takes)
    return -(alpha.reshape(-1).index_select(0, flat) + blank_lp.reshape(-1).index_select(0, flat))


class _RNNTCost(ember.autograd.Function):
    """Costs with the gradient computed in forward (so it can be clamped per sequence before the reduction)."""

    @staticmethod
    def forward(ctx, logits, targets, logit_lengths, target_lengths, blank, clamp, fused_log_softmax):
        with ember.enable_grad():
            x = logits.detach().requires_grad_(True)
            costs = _costs(x, targets, logit_lengths, target_lengths, blank, fused_log_softmax)
            (grad,) = ember.autograd.grad(costs.sum(), x)  # each cost depends on its own sequence only
        if clamp > 0:
            grad = grad.clamp(-clamp, clamp)
        ctx.save_for_backward(grad)
        return costs.detach()

    @staticmethod
    def backward(ctx, grad_costs):
        (grad,) = ctx.saved_tensors
        return grad * grad_costs[:, None, None, None], None, None, None, None, None, None


def rnnt_loss(logits, targets, logit_lengths, target_lengths, blank=-1, clamp=-1, reduction="mean",
              fused_log_softmax=True):
    """logits (batch, max_time, max_target + 1, classes) from the joiner; targets (batch, max_target) int32;
    logit_lengths / target_lengths (batch,) int32. blank -1 means the last class; clamp > 0 clips each
    logit's gradient to [-clamp, clamp]; fused_log_softmax=False takes logits that are log-probabilities."""
    blank = _check(logits, targets, logit_lengths, target_lengths, blank, reduction)
    costs = _RNNTCost.apply(logits, targets, logit_lengths, target_lengths, blank, float(clamp), fused_log_softmax)
    if reduction == "mean":
        return costs.mean()
    if reduction == "sum":
        return costs.sum()
    return costs


def _rnnt_loss_script(logits: Tensor, targets: Tensor, logit_lengths: Tensor, target_lengths: Tensor, blank: int = -1,
                      clamp: float = -1, reduction: str = "mean", fused_log_softmax: bool = True) -> Tensor:
    """rnnt_loss in scripted code: the same costs by the same recursion, the gradient autograd's through it (equal
    to the eager one's); clipping the gradient (clamp > 0) needs the eager autograd.Function, so it is refused."""
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(f"reduction must be 'none', 'mean' or 'sum', got '{reduction}'")
    if clamp > 0:
        raise RuntimeError("rnnt_loss: clamp > 0 (clipping each logit's gradient) is not supported in scripted code; "
                           "call the eager rnnt_loss to clip gradients")
    num_classes = logits.shape[-1]
    index = blank if blank >= 0 else num_classes + blank
    if index < 0 or index >= num_classes:
        raise RuntimeError(f"blank must be within [0, {num_classes}), got {blank}")
    costs = _costs(logits, targets, logit_lengths, target_lengths, index, fused_log_softmax)
    if reduction == "mean":
        return costs.mean()
    if reduction == "sum":
        return costs.sum()
    return costs


rnnt_loss._ember_script_impl = _rnnt_loss_script


class RNNTLoss(nn.Module):
    """Module form of rnnt_loss."""

    def __init__(self, blank=-1, clamp=-1.0, reduction="mean", fused_log_softmax=True):
        super().__init__()
        self.blank = blank
        self.clamp = clamp
        self.reduction = reduction
        self.fused_log_softmax = fused_log_softmax

    def forward(self, logits: Tensor, targets: Tensor, logit_lengths: Tensor, target_lengths: Tensor) -> Tensor:
        return rnnt_loss(logits, targets, logit_lengths, target_lengths, self.blank, self.clamp, self.reduction,
                         self.fused_log_softmax)
