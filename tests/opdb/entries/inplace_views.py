"""OpInfos for core/ops/inplace_views.yaml: the in-place view ops against the NumPy view of the same
name (the method is called on the sample's tensor, which it changes and returns)."""
import numpy as np

from ember.testing.opinfo import OpInfo, Sample, random_array, register

from .views import _as_strided, _samples


def _squeeze(a, dim=None):
    if dim is None:
        return np.squeeze(a)
    dims = [dim] if isinstance(dim, int) else list(dim)
    return np.squeeze(a, tuple(d for d in dims if a.shape[d] == 1))


def _resize_samples(dtype, rng):
    a = np.asarray(random_array(dtype, (3, 4), rng, (-3.0, 3.0), (-9, 10)))
    return [Sample((a, [2, 5])), Sample((a, [12])), Sample((a, [0])), Sample((a, [3, 4]))]


register(
    OpInfo("t_", ref=lambda a: a.T, sample_inputs=_samples([([(3, 4)], [], {}), ([(5,)], [], {}), ([()], [], {})])),
    OpInfo("transpose_", ref=lambda a, d0, d1: np.swapaxes(a, d0, d1),
           sample_inputs=_samples([([(2, 3, 4)], [0, 2], {}), ([(3, 4)], [-1, 0], {}), ([(2,)], [0, 0], {})])),
    OpInfo("squeeze_", ref=_squeeze,
           sample_inputs=_samples([([(2, 1, 3, 1)], [], {}), ([(2, 1, 3)], [1], {}), ([(1, 3, 1)], [[0, 1]], {})])),
    OpInfo("unsqueeze_", ref=lambda a, d: np.expand_dims(a, d),
           sample_inputs=_samples([([(2, 3)], [0], {}), ([(2, 3)], [-1], {}), ([()], [0], {})])),
    OpInfo("as_strided_", ref=_as_strided,
           sample_inputs=_samples([([(3, 4)], [(4, 3), (1, 4)], {}), ([(12,)], [(2, 2), (3, 1), 1], {}),
                                   ([(12,)], [(), ()], {"storage_offset": 7})]),
           skips={"non_contiguous": "reads the input's storage by the given strides: layout is its argument"}),
    # shrinking and same-size resizes only: grown memory is uninitialized (tests/breadth checks its fill)
    OpInfo("_resize_", ref=lambda a, size: np.ascontiguousarray(a).ravel()[:int(np.prod(size))].reshape(size),
           sample_inputs=_resize_samples),
)
