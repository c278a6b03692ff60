"""The Join context manager (torch.distributed.algorithms.join): ranks with fewer inputs than others
leave their training loop early and, inside Join's exit, shadow the collectives the ranks still training
issue each iteration (through each Joinable's join hook) until every rank has joined."""
from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass

import ember

__all__ = ["Join", "Joinable", "JoinHook"]


class JoinHook:
    """What a Joinable does once its rank has joined: main_hook shadows one iteration of the ranks still
    training; post_hook runs once all have joined (is_last_joiner: this rank joined last)."""

    def main_hook(self) -> None:
        """Called repeatedly while some rank has not joined (does nothing unless overridden)."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Called once after every rank has joined (does nothing unless overridden)."""


@dataclass
class _JoinConfig:
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(ABC):
    """A class whose instances Join manages: it gives a join hook, a device and a process group."""

    @abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs) -> JoinHook:
        ...

    @property
    @abstractmethod
    def join_device(self):
        ...

    @property
    @abstractmethod
    def join_process_group(self):
        ...


class _ProcessGroupJoinable(Joinable):
    """A Joinable on the CPU whose collectives run on self.process_group (DDP, ZeroRedundancyOptimizer)."""

    @property
    def join_device(self):
        return ember.device("cpu")

    @property
    def join_process_group(self):
        return self.process_group


class Join:
    """`with Join([ddp_model, zero_optimizer]): for batch in my_uneven_inputs: ...` Each iteration, the first
    joinable's notify_join_context all-reduces a 1 (not joined); joined ranks all-reduce 0 and run the main
    hooks, until the sum is 0. throw_on_early_termination=True raises on every rank instead, as soon as one
    rank runs out of inputs."""

    def __init__(self, joinables: list, enable: bool = True, throw_on_early_termination: bool = False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = list(joinables)
        self._join_hooks = [joinable.join_hook(**kwargs) for joinable in self._joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for i, joinable in enumerate(self._joinables):
            joinable._join_config = _JoinConfig(enable=enable, throw_on_early_termination=throw_on_early_termination,
                                                is_first_joinable=i == 0)
        groups = {id(j.join_process_group) for j in self._joinables}
        if len(groups) > 1:
            raise ValueError("Using join context manager with multiple process groups")
        self._process_group = self._joinables[0].join_process_group
        self._device = self._joinables[0].join_device
        from ember import distributed as dist
        self._rank = dist.get_rank(self._process_group)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        try:
            if not self._enable or exc_type is not None:
                return None  # an exception in the loop propagates; the other ranks' collectives time out
            all_joined, is_last_joiner, rounds = False, True, 0
            while not all_joined:
                if rounds == 1000:
                    warnings.warn(f"Detected uneven input skew of greater than 1000. This means that rank "
                                  f"{self._rank} has at least 1000 fewer inputs than other currently-active ranks. "
                                  "This level of skew could lead to performance degradation during training.")
                if self._num_nonjoined_procs() == 0:
                    all_joined = True
                else:
                    if self._throw_on_early_termination:
                        self._notify_procs_to_terminate()
                    for hook in self._join_hooks:
                        hook.main_hook()
                    is_last_joiner = False
                    rounds += 1
            for hook in self._join_hooks:
                hook.post_hook(is_last_joiner)
        finally:
            for joinable in self._joinables:
                joinable._join_config = _JoinConfig.construct_disabled_join_config()
        return None

    def _num_nonjoined_procs(self) -> int:
        from ember import distributed as dist
        count = ember.zeros(1)
        dist.all_reduce(count, group=self._process_group)
        return int(count.item())

    def _notify_procs_to_terminate(self):
        from ember import distributed as dist
        dist.all_reduce(ember.ones(1), group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable: Joinable):
        """Called by a Joinable each iteration before its collectives: all-reduces a 1 (this rank has not
        joined) and, with throw_on_early_termination, raises on every rank once one has run out."""
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the ``Joinable`` constructor")
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        from ember import distributed as dist
        group = joinable.join_process_group
        work = dist.all_reduce(ember.ones(1), group=group, async_op=True)
        if config.throw_on_early_termination:
            flag = ember.zeros(1)
            dist.all_reduce(flag, group=group)
            if flag.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return work
