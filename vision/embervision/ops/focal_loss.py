"""sigmoid_focal_loss (RetinaNet): cross entropy down-weighted on well-classified examples."""

import ember
from ember import Tensor
from ember.nn import functional as F


def sigmoid_focal_loss(inputs: Tensor, targets: Tensor, alpha: float = 0.25, gamma: float = 2,
                       reduction: str = "none") -> Tensor:
    """inputs are logits, targets the binary labels (same shape); alpha < 0 turns class weighting off."""
    p = ember.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', "
                     "'mean', 'sum'")
