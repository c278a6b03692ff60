"""Sample helpers shared by the nn.functional OpInfos (python_nn_*.py): random arrays, a non-contiguous tensor of
given values (a transposed view: NumPy inputs become contiguous tensors), the usual edge cases of a one-input op,
and gradcheck samples without the edge cases (gradcheck needs leaves with elements)."""
import numpy as np

from ember.testing.opinfo import Sample, to_ember


def r(rng, *shape, scale=1.0):
    return rng.uniform(-scale, scale, shape)


def noncontig(arr, dtype):
    """A tensor with arr's values whose last two dims are a transposed view (not contiguous)."""
    return to_ember(np.ascontiguousarray(np.swapaxes(arr, -1, -2)), dtype).transpose(-1, -2)


def unary_cases(scale=3.0, kwargs=({},)):
    """sample_inputs for a one-tensor op: a matrix, a broadcast-free 3-d input, a 0-dim, an empty and a
    non-contiguous tensor, each with every kwargs."""
    def samples(dtype, rng):
        out = []
        for kw in kwargs:
            out += [Sample((r(rng, 3, 4, scale=scale),), dict(kw)), Sample((r(rng, 2, 3, 5, scale=scale),), dict(kw)),
                    Sample((np.asarray(rng.uniform(-scale, scale)),), dict(kw)), Sample((np.zeros((0, 3)),), dict(kw)),
                    Sample((noncontig(r(rng, 4, 5, scale=scale), dtype),), dict(kw))]
        return out
    return samples


def plain_grad_samples(samples):
    """grad_samples from sample_inputs: the float64 samples whose float tensors are all NumPy arrays with elements
    (ember tensors there are the non-contiguous cases), not in place (a leaf cannot be changed in place)."""
    def grad(rng):
        return [(s.args, s.kwargs) for s in samples("float64", rng)
                if not s.kwargs.get("inplace") and not any(hasattr(a, "is_floating_point") and a.is_floating_point()
                                                           for a in s.args)
                and all(a.size > 0 for a in s.args if isinstance(a, np.ndarray) and a.dtype.kind == "f")]
    return grad
