"""Shared by the bfloat16 product and convolution tests: exact bf16 inputs and the check that a
result is the float64 reference rounded once to bfloat16 (after float32 sums)."""
import numpy as np

import ember


def bf16_values(rng, shape, scale=1.0):
    """A bfloat16 tensor of uniform values in (-scale, scale) and its exact values as float64."""
    t = ember.tensor((rng.uniform(-1, 1, size=shape) * scale).astype(np.float32)).to(ember.bfloat16)
    return t, t.float().numpy().astype(np.float64)


def bf16_ulp(x):
    """The spacing of bfloat16 numbers (8 significant bits) at |x|."""
    e = np.floor(np.log2(np.maximum(np.abs(x), np.finfo(np.float32).tiny)))
    return np.exp2(e - 7)


def check(got, exact, terms, k):
    """got (bf16) is exact rounded once to bfloat16: within half a bf16 ulp of a float32 sum of k
    terms, which is within (k + 2) * 2**-24 of `terms` (the sum of the absolute terms) of exact."""
    assert got.dtype == ember.bfloat16
    g = got.float().numpy().astype(np.float64)
    assert g.shape == exact.shape, (g.shape, exact.shape)
    sum_err = (k + 2) * 2.0**-24 * terms
    bound = 0.5 * bf16_ulp(np.abs(exact) + sum_err) + sum_err
    err = np.abs(g - exact)
    assert np.all(err <= bound), f"max error {err.max()}, bound there {bound.flat[np.argmax(err - bound)]}"
