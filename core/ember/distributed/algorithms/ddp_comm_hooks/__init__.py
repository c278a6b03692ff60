"""DDP communication hooks (torch.distributed.algorithms.ddp_comm_hooks): the default all-reduce, fp16/bf16
compression, and PowerSGD; register_ddp_comm_hook registers one by its DDPCommHookType name."""
from __future__ import annotations

import enum
from functools import partial

from . import ddp_zero_hook, default_hooks, powerSGD_hook as powerSGD  # noqa: F401

__all__ = ["DDPCommHookType", "register_ddp_comm_hook"]


def _powerSGD(model, state, matrix_approximation_rank, batched=False):
    from .powerSGD_hook import PowerSGDState, batched_powerSGD_hook, powerSGD_hook
    state = PowerSGDState(process_group=state, matrix_approximation_rank=matrix_approximation_rank)
    model.register_comm_hook(state, batched_powerSGD_hook if batched else powerSGD_hook)


class DDPCommHookType(enum.Enum):
    ALLREDUCE = partial(lambda model, state: model.register_comm_hook(state, default_hooks.allreduce_hook))
    FP16_COMPRESS = partial(lambda model, state: model.register_comm_hook(state, default_hooks.fp16_compress_hook))
    BF16_COMPRESS = partial(lambda model, state: model.register_comm_hook(state, default_hooks.bf16_compress_hook))
    POWER_SGD = partial(_powerSGD, matrix_approximation_rank=1)
    POWER_SGD_RANK2 = partial(_powerSGD, matrix_approximation_rank=2)
    BATCHED_POWER_SGD = partial(_powerSGD, matrix_approximation_rank=1, batched=True)
    BATCHED_POWER_SGD_RANK2 = partial(_powerSGD, matrix_approximation_rank=2, batched=True)


def register_ddp_comm_hook(comm_hook_type: DDPCommHookType, model, state=None):
    """Registers the hook comm_hook_type names on DDP model `model` (state: its process group, None for the
    default group)."""
    comm_hook_type.value(model=model, state=state)
