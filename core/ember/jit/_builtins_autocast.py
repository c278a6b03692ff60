"""ember.is_autocast_enabled in scripted code: the CPU autocast state of the calling thread, read at run time
through the op aten::is_autocast_cpu_enabled (so a scripted function called inside `with ember.autocast('cpu')`
sees the region, as eager code does). Other device types' state lives in Python and cannot run here. Below: the
casts eager's ember.amp.autocast_policy applies around Python-written ops (losses, pools, grid_sample, prelu...),
compiled around their script versions."""
from __future__ import annotations

from typing import List, Optional

import ember

from ._ops import aten


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    if device_type != "cpu":
        raise RuntimeError(f"ember.is_autocast_enabled in scripted code reads the CPU autocast state only, "
                           f"got device_type '{device_type}'")
    return ember.ops.aten.is_autocast_cpu_enabled()


# Python-written ops with an autocast policy (ember.amp.autocast_policy) whose script versions run ops that carry
# the same policy in the op database (convolution, addmm/matmul): those ops cast as the region says, so the call
# needs no wrapping, and freeze's conv folding still sees the parameters flow straight into the convolution.
_CAST_BY_THEIR_OPS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                      "conv_transpose3d")


def policy_of(callee) -> str | None:
    """The autocast policy a scripted call of callee must apply around its script version, or None."""
    policy = getattr(callee, "__autocast_policy__", None)
    if policy is None or getattr(callee, "__name__", "") in _CAST_BY_THEIR_OPS:
        return None
    return policy


def _cast_optional(t: Optional[ember.Tensor], lower_precision: bool, enabled: bool) -> Optional[ember.Tensor]:
    if t is None:
        return t
    return aten._autocast_cpu_policy_cast(t, lower_precision, enabled)


def _cast_list(ts: List[ember.Tensor], lower_precision: bool, enabled: bool) -> List[ember.Tensor]:
    return [aten._autocast_cpu_policy_cast(t, lower_precision, enabled) for t in ts]


def with_policy(compiler, callee, compile_body, args: list, kwargs: dict, node):
    """A call of a Python-written op with an autocast policy, as eager's autocast_policy wrapper runs it: autocast
    turned off for the op's body (its own ops run uncast), its tensor arguments cast first when the region was on
    (to the region's dtype for lower_precision_fp, float32 for fp32), the region's state restored after.
    compile_body(args, kwargs) compiles the op's own call; a raise inside leaves the state to the interpreter,
    which restores it when the run ends."""
    from . import _types as T
    from ._compiler import SValue

    policy = policy_of(callee)
    if policy is None:
        return compile_body(args, kwargs)
    lower = compiler.const(policy == "lower_precision_fp")
    on = compiler.call_op("_autocast_cpu_set_", [compiler.const(False)], {}, node)

    def cast(v):
        if not isinstance(v, SValue):
            return v
        if v.type == T.TENSOR:
            return compiler.call_op("_autocast_cpu_policy_cast", [v, lower, on], {}, node)
        if v.type == T.optional_of(T.TENSOR):
            return compiler.inline_call(_cast_optional, [v, lower, on], {}, node)
        if v.type == T.list_of(T.TENSOR):
            return compiler.inline_call(_cast_list, [v, lower, on], {}, node)
        return v

    out = compile_body([cast(a) for a in args], {k: cast(v) for k, v in kwargs.items()})
    compiler.call_op("_autocast_cpu_set_", [on], {}, node)
    return out
