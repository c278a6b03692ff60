"""tolist of a tensor whose nested lists cannot fit (an expanded view of 2**40 elements, found by the
fuzz campaign: it raised a bare MemoryError) fails at once with ember.OutOfMemoryError naming the
size; ordinary tensors still convert (checked against NumPy's tolist)."""
import numpy as np
import pytest

import ember


def test_huge_view_names_the_size():
    x = ember.zeros(1, dtype=ember.int64).expand(2**40)
    with pytest.raises(ember.OutOfMemoryError, match=r"tolist\(\): the nested lists of 1099511627776 elements"):
        x.tolist()
    with pytest.raises(MemoryError):  # it is a MemoryError too, as users catch it
        ember._C._tolist(x)


def test_ordinary_tensors_still_convert():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert ember.from_numpy(a).tolist() == a.tolist()
    assert ember.tensor(7).tolist() == 7
    assert ember.zeros(0, 3).tolist() == []
