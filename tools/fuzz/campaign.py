"""A campaign's calls: call i of seed s is a pure function of (s, i), so any call can be remade and
replayed alone (`python -m tools.fuzz --seed s --replay i`)."""
from __future__ import annotations

import random

from tools.fuzz import targets as T
from tools.fuzz import values as V
from tools.fuzz import verdict

_cache: dict = {}


def targets(ember) -> list[T.Target]:
    if "t" not in _cache:
        _cache["t"] = T.all_targets(ember)
    return _cache["t"]


def make_call(targets_: list[T.Target], seed: int, index: int) -> T.Call:
    """Target i of a seed-shuffled round robin (every target is hit once per len(targets) calls),
    with arguments drawn from a generator seeded by (seed, index)."""
    order = _cache.get(("order", seed, len(targets_)))
    if order is None:
        order = list(range(len(targets_)))
        random.Random(seed).shuffle(order)
        _cache[("order", seed, len(targets_))] = order
    rng = random.Random(seed * 1_000_003 + index)
    target = targets_[order[index % len(order)]]
    return target.call(rng)


def run_call(ember, np, call: T.Call):
    """Builds the arguments and makes the call; None when it returned or raised a clean exception,
    else (failure class, message)."""
    try:
        args = [V.build(s, ember, np) for s in call.args]
        kwargs = {k: V.build(s, ember, np) for k, s in call.kwargs.items()}
    except Exception as e:  # the fuzzer could not make this value (e.g. a dtype conversion refused)
        bad = verdict.judge(e, ember)
        return ("build_" + bad, f"{type(e).__name__}: {e}") if bad else None
    nn = call.path.startswith("nn.functional.")
    try:
        if call.path.startswith("Tensor."):
            if not args or not isinstance(args[0], ember.Tensor):
                return None
            getattr(args[0], call.path[7:])(*args[1:], **kwargs)
        else:
            T.resolve(ember, call.path)(*args, **kwargs)
    except Exception as e:
        bad = verdict.judge(e, ember, nn)
        if bad:
            return bad, f"{type(e).__name__}: {e}"
    return None
