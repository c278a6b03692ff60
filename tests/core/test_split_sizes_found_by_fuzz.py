"""Tensor.split with a list holding a non-int (found by tools/fuzz, issue 29): PyTorch's TypeError naming
split_sizes ("split_with_sizes(): argument 'split_sizes' failed to unpack the object at pos 2 with error
\"type must be tuple of ints,but got str\""), not int()'s ValueError nor a float silently truncated."""
import pytest

import ember


@pytest.mark.parametrize("sizes", [[1, "a"], [1, 2.5], (2, None)])
def test_split_sizes_must_be_ints(sizes):
    with pytest.raises(TypeError, match="split_with_sizes\\(\\): argument 'split_sizes'"):
        ember.ones(4, 7).split(sizes)


def test_split_sizes_still_split():
    parts = ember.arange(8).split([3, 5])
    assert [p.tolist() for p in parts] == [[0, 1, 2], [3, 4, 5, 6, 7]]
    assert [p.shape for p in ember.ones(4, 7).split(ember.tensor([1, 3]))] == [(1, 7), (3, 7)]
