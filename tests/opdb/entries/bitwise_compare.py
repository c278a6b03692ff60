"""OpInfos for core/ops/bitwise.yaml and compare.yaml."""
import numpy as np

from ember.testing.opinfo import OpInfo, register


def _shift_left(a, b):
    bits = 8 * a.dtype.itemsize
    return np.where((b < 0) | (b >= bits), 0, np.left_shift(a, np.clip(b, 0, bits - 1)))


def _shift_right(a, b):
    return np.right_shift(a, np.clip(b, 0, 63))


register(
    OpInfo("bitwise_and", ref=np.bitwise_and),
    OpInfo("bitwise_or", ref=np.bitwise_or),
    OpInfo("bitwise_xor", ref=np.bitwise_xor),
    OpInfo("bitwise_not", ref=np.invert),
    OpInfo("bitwise_left_shift", ref=_shift_left, rhs_int_domain=(0, 8)),
    OpInfo("bitwise_right_shift", ref=_shift_right, rhs_int_domain=(0, 8)),
    OpInfo("logical_and", ref=np.logical_and),
    OpInfo("logical_or", ref=np.logical_or),
    OpInfo("logical_xor", ref=np.logical_xor),
    OpInfo("logical_not", ref=np.logical_not),
    OpInfo("eq", ref=np.equal, int_domain=(-2, 2), domain=(-1, 1)),
    OpInfo("ne", ref=np.not_equal, int_domain=(-2, 2)),
    OpInfo("lt", ref=np.less),
    OpInfo("le", ref=np.less_equal, int_domain=(-2, 2)),
    OpInfo("gt", ref=np.greater),
    OpInfo("ge", ref=np.greater_equal, int_domain=(-2, 2)),
)
