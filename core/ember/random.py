"""ember.random: the default generator and PyTorch's seeding functions (manual_seed, seed,
initial_seed, get_rng_state, set_rng_state) plus fork_rng. Generators are counter-based
(Philox4x32-10 by default), so a seed gives the same values whatever the thread count."""
from __future__ import annotations

import contextlib

from ._C import Generator, default_generator

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]


def manual_seed(seed) -> Generator:
    """Seeds the default generator (any int in [-2**63, 2**64); negative seeds wrap) and returns it."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seeds the default generator from a non-deterministic source and returns that seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as an ember.uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restores the default generator's state from get_rng_state()."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Saves the default generator's state and restores it on exit, so random draws inside the block
    leave the global stream untouched. This build has no accelerator generators, so `devices` must
    name none (None or empty)."""
    if not enabled:
        yield
        return
    devices = [] if devices is None else list(devices)
    if devices:
        raise ValueError(f"{_caller}: {_devices_kw}={devices!r} names {device_type} devices, but this build of "
                         "ember has no accelerator generators; pass devices=None or []")
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)
