"""ember._amp_foreach_non_finite_check_and_unscale_ and ember._amp_update_scale_ with PyTorch's returns
(None, and the scale tensor) over the op database's fused ops."""
from .. import _C


def _amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale) -> None:
    """Multiplies each of grads by inv_scale in place and sets found_inf to 1.0 on any inf or NaN."""
    _C._amp_foreach_non_finite_check_and_unscale(grads, found_inf, inv_scale)


def _amp_update_scale_(input, growth_tracker, found_inf, scale_growth_factor, scale_backoff_factor, growth_interval):
    """GradScaler's growth/backoff update of the scale tensor (input) in place; returns it."""
    return _C._amp_update_scale(input, growth_tracker, found_inf, scale_growth_factor, scale_backoff_factor,
                                 growth_interval)
