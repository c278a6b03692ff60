"""RNN-Transducer loss (Graves 2012) as torchaudio has it: the negative log-likelihood of each target sequence
summed over all alignments on the (time, target) lattice. The C++ op audio::rnnt_loss (csrc/rnnt.cpp) checks the
inputs, runs the forward-backward recursion and returns the costs with their gradient (clamped when clamp > 0),
as torchaudio's op does; eager and scripted calls both go through it, so they agree in values and errors."""
import ember
from ember import Tensor, nn

__all__ = ["rnnt_loss", "RNNTLoss"]


def rnnt_loss(logits: Tensor, targets: Tensor, logit_lengths: Tensor, target_lengths: Tensor, blank: int = -1,
              clamp: float = -1, reduction: str = "mean", fused_log_softmax: bool = True) -> Tensor:
    """logits (batch, max_time, max_target + 1, classes) from the joiner; targets (batch, max_target) int32;
    logit_lengths / target_lengths (batch,) int32. blank -1 means the last class; clamp > 0 clips each
    logit's gradient to [-clamp, clamp]; fused_log_softmax=False takes logits that are log-probabilities."""
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(f"reduction must be 'none', 'mean' or 'sum', got '{reduction}'")
    costs, _ = ember.ops.audio.rnnt_loss(logits, targets, logit_lengths, target_lengths, blank, float(clamp),
                                         fused_log_softmax)
    if reduction == "mean":
        return costs.mean()
    if reduction == "sum":
        return costs.sum()
    return costs


class RNNTLoss(nn.Module):
    """Module form of rnnt_loss."""

    def __init__(self, blank: int = -1, clamp: float = -1.0, reduction: str = "mean",
                 fused_log_softmax: bool = True):
        super().__init__()
        self.blank = blank
        self.clamp = clamp
        self.reduction = reduction
        self.fused_log_softmax = fused_log_softmax

    def forward(self, logits: Tensor, targets: Tensor, logit_lengths: Tensor, target_lengths: Tensor) -> Tensor:
        return rnnt_loss(logits, targets, logit_lengths, target_lengths, self.blank, self.clamp, self.reduction,
                         self.fused_log_softmax)
