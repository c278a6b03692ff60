"""Schedulers made of others: SequentialLR (one after another at milestones) and ChainedScheduler
(all of them every step, their recursive forms composing)."""
import warnings
from bisect import bisect_right

from ._base import LRScheduler

__all__ = ["SequentialLR", "ChainedScheduler"]


def _pack(self):
    state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in self._schedulers]
    return state


def _unpack(self, state_dict):
    state_dict = dict(state_dict)
    saved = state_dict.pop("_schedulers")
    self.__dict__.update(state_dict)
    for s, st in zip(self._schedulers, saved):
        s.load_state_dict(st)


class SequentialLR(LRScheduler):
    """Runs schedulers[i] between milestones[i-1] and milestones[i]; each starts at its epoch 0."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose="deprecated"):
        if len(schedulers) < 1:
            raise ValueError(f"{self.__class__.__name__} expects at least one scheduler, but got no scheduler.")
        for i, s in enumerate(schedulers):
            if not hasattr(s, "optimizer"):
                raise TypeError(f"{self.__class__.__name__} at index {i} should have `optimizer` as its attribute.")
            if s.optimizer is not optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                                 f"but got scheduler {s.__class__.__name__} at index {i} has {s.optimizer}, "
                                 f"which is different from {optimizer.__class__.__name__}.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than "
                             f"the number of milestone points, but got number of schedulers {len(schedulers)} "
                             f"and the number of milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # The schedulers each took a step when built; undo that, then start only the first.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for s in schedulers:
            s.last_epoch -= 1
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            # a scheduler starts from its own epoch 0 (closed form); the user passed no epoch,
            # so the deprecation warning step(epoch) gives is not theirs to see
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="The epoch parameter")
                scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    state_dict = _pack
    load_state_dict = _unpack


class ChainedScheduler(LRScheduler):
    """Steps every scheduler each step; their multiplicative updates compose."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{self.__class__.__name__} expects at least one scheduler to be chained, "
                             "but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        for i, s in enumerate(schedulers):
            if s.optimizer is not optimizer:
                raise ValueError(f"{self.__class__.__name__} expects all schedulers to belong to the same "
                                 f"optimizer, but got scheduler {s.__class__.__name__} at index {i} has "
                                 f"{s.optimizer}, which is different from {optimizer.__class__.__name__}.")
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in optimizer.param_groups]

    def step(self):
        for s in self._schedulers:
            s.step()
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    state_dict = _pack
    load_state_dict = _unpack
