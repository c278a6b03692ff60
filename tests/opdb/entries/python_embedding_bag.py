"""OpInfo of ember.embedding_bag, the top-level form (core/ember/_embedding_bag_toplevel.py): a NumPy loop over
the bags giving PyTorch's four results."""
import numpy as np

import ember
from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo


def np_embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                     per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """(output, offset2bag, bag_size, max_indices) as PyTorch's CPU kernel: bag b is indices[offsets[b]:
    offsets[b+1]] less padding_idx; the sum kernel leaves bag_size and max_indices zero (one per offset)."""
    indices, offsets = indices.astype(np.int64), offsets.astype(np.int64)
    bounds = list(offsets) + ([] if include_last_offset else [len(indices)])
    out, sizes, argmax = [], [], []
    for b in range(len(bounds) - 1):
        members = [k for k in range(bounds[b], bounds[b + 1]) if indices[k] != padding_idx]
        rows = np.array([weight[indices[k]] * (per_sample_weights[k] if per_sample_weights is not None else 1)
                         for k in members]).reshape(-1, weight.shape[1])
        sizes.append(len(members))
        if mode == 2:
            out.append(rows.max(0) if members else np.zeros(weight.shape[1]))
            argmax.append([indices[members[int(np.argmax(rows[:, c]))]] if members else 0
                           for c in range(weight.shape[1])])
        else:
            out.append(rows.sum(0) / (max(len(members), 1) if mode == 1 else 1))
    starts = offsets[:-1] if include_last_offset else offsets
    offset2bag = np.searchsorted(starts, np.arange(len(indices)), side="right") - 1
    if mode == 0:
        return np.array(out), offset2bag, np.zeros(len(offsets), np.int64), np.zeros(len(offsets), np.int64)
    return np.array(out), offset2bag, np.array(sizes), np.array(argmax) if mode == 2 else np.array(sizes)


def _samples(dtype, rng):
    idx = ember.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    out = []
    for mode in (0, 1, 2):
        out += [Sample((rng.standard_normal((10, 3)), idx, ember.tensor([0, 4]), False, mode)),
                Sample((rng.standard_normal((10, 3)), idx, ember.tensor([0, 0, 5, 8]), False, mode, False, None,
                        True)),
                Sample((rng.standard_normal((10, 3)), idx, ember.tensor([0, 3]), False, mode, False, None, False, 4))]
    out.append(Sample((rng.standard_normal((10, 3)), idx, ember.tensor([0, 2, 6]), False, 0, False,
                       rng.uniform(0.5, 2, 8))))
    return out


def _grad(rng):
    idx, offsets = ember.tensor([1, 2, 4, 5, 4, 3]), ember.tensor([0, 2, 5])
    return [((rng.standard_normal((6, 2)), idx, offsets, False, mode), {}) for mode in (0, 1, 2)] + [
        ((rng.standard_normal((6, 2)), idx, offsets, False, 0, False, rng.uniform(0.5, 2, 6)), {})]


register(python_opinfo("embedding_bag", np_embedding_bag, _samples, grad_samples=_grad))
