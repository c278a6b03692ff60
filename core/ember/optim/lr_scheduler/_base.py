"""LRScheduler: the base of the epoch-indexed schedulers. Subclasses give get_lr() in PyTorch's
chainable (recursive) form, and optionally _get_closed_form_lr() for step(epoch)."""
import warnings

from ..optimizer import Optimizer

__all__ = ["LRScheduler", "EPOCH_DEPRECATION_WARNING"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch "
    "is different from None, the closed form is used instead of the new chainable form, where available.")


def format_param(name, optimizer, param):
    """One value per parameter group, from a scalar or a list of the right length."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"expected {len(optimizer.param_groups)} values for {name}, got {len(param)}")
        return list(param)
    return [param] * len(optimizer.param_groups)


class _InStep:
    """Marks get_lr() calls made by step() (a direct call warns: get_last_lr() is what users want)."""

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def __enter__(self):
        self.scheduler._get_lr_called_within_step = True

    def __exit__(self, *exc):
        self.scheduler._get_lr_called_within_step = False


class LRScheduler:
    _get_lr_called_within_step = False

    def __init__(self, optimizer, last_epoch=-1, verbose="deprecated"):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when "
                                   "resuming an optimizer")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.verbose = False if verbose == "deprecated" else verbose
        self._initial_step()

    def _initial_step(self):
        self.optimizer._step_count = 0
        self._step_count = 0
        self.step()

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates the last step() set, one per group."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def _warn_direct_get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning)

    def step(self, epoch=None):
        # The optimizer counts its steps (Optimizer's step wrapper); none before our second
        # step means the loop steps the scheduler first, which skips the schedule's first value.
        if self._step_count == 1 and getattr(self.optimizer, "_step_count", 1) < 1:
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. You should "
                          "call them in the opposite order: `optimizer.step()` before "
                          "`lr_scheduler.step()`.  Failure to do this will result in skipping the first "
                          "value of the learning rate schedule.", UserWarning)
        self._step_count += 1
        with _InStep(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
                self.last_epoch = epoch
                if hasattr(self, "_get_closed_form_lr"):
                    values = self._get_closed_form_lr()
                else:
                    values = self.get_lr()
        for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            group["lr"] = lr
            if self.verbose:
                print(f"Adjusting learning rate of group {i} to {lr:.4e}.")
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]
