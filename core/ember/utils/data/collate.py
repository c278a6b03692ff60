"""default_collate (a list of samples -> one batch) and default_convert (one sample -> tensors),
with PyTorch's rules: tensors are stacked, NumPy arrays and Python numbers become tensors,
strings stay lists, and mappings, namedtuples and sequences are collated field by field."""
from __future__ import annotations

import collections.abc
import copy
import re

import ember

__all__ = ["default_collate", "default_convert"]

# NumPy dtypes with no tensor counterpart: strings, bytes, objects.
_np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def _is_numpy(obj) -> bool:
    t = type(obj)
    return t.__module__ == "numpy" and t.__name__ not in ("str_", "string_", "bytes_")


def default_convert(data):
    """Converts NumPy arrays/scalars inside `data` to tensors, leaving everything else as it is."""
    if isinstance(data, ember.Tensor):
        return data
    elem_type = type(data)
    if _is_numpy(data):
        import numpy as np
        if isinstance(data, np.ndarray) and _np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return ember.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({k: default_convert(data[k]) for k in data})
                return clone
            return elem_type({k: default_convert(data[k]) for k in data})
        except TypeError:
            return {k: default_convert(data[k]) for k in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def _collate_tensors(batch):
    return ember.stack(list(batch), 0)


def default_collate(batch):
    """Puts each field of the samples in `batch` into a tensor with an outer batch dimension."""
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, ember.Tensor):
        return _collate_tensors(batch)
    if _is_numpy(elem):
        import numpy as np
        if isinstance(elem, np.ndarray):
            if _np_str_obj_array_pattern.search(elem.dtype.str) is not None:
                raise TypeError(default_collate_err_msg_format.format(elem.dtype))
            return _collate_tensors([ember.as_tensor(b) for b in batch])
        if elem.shape == ():  # NumPy scalar
            return ember.as_tensor(np.array(batch))
        raise TypeError(default_collate_err_msg_format.format(elem_type))
    # bool before int: it is an int subclass, and a bool batch gives a bool tensor.
    if isinstance(elem, bool):
        return ember.tensor(batch)
    if isinstance(elem, float):
        return ember.tensor(batch, dtype=ember.float64)
    if isinstance(elem, int):
        return ember.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({k: default_collate([d[k] for d in batch]) for k in elem})
                return clone
            return elem_type({k: default_collate([d[k] for d in batch]) for k in elem})
        except TypeError:
            return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(list(s)) for s in transposed]  # a list, as PyTorch does
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, s in enumerate(transposed):
                    clone[i] = default_collate(list(s))
                return clone
            return elem_type([default_collate(list(s)) for s in transposed])
        except TypeError:
            return [default_collate(list(s)) for s in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))
