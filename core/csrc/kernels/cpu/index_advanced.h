// Advanced (integer-array) indexing of a tensor by one index tensor per dim: the read t[i0, i1, ...]
// and the write t[i0, i1, ...] = v (optionally accumulating), with NumPy/PyTorch placement of the
// result dims: adjacent indexed dims are replaced in place by the broadcast index shape, indexed
// dims separated by a non-indexed one put it first.
#pragma once
#include <vector>

#include "tensor/factory.h"

namespace ember {

// `indices` holds one entry per dim of self (an undefined Tensor where that dim is not indexed) of
// dtype int64 or int32. `dim_labels` (optional, one per dim) is the dim named in an IndexError.
Tensor advanced_index(const Tensor& self, const std::vector<Tensor>& indices, const DimVec* dim_labels = nullptr);
// values (already of self's dtype) broadcast to the shape advanced_index would give.
void advanced_index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate,
                         const DimVec* dim_labels = nullptr);

// index_put_'s overlap rule (PyTorch's): values and the index tensors may not share self's memory at
// all; an expanded self is allowed (PyTorch only warns). The callers check, before writing.
void check_index_put_overlap(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values);

// PyTorch's index list for index/index_put: int or bool/uint8 masks, each mask standing for as
// many dims as it has; the result has one entry per dim of self (masks become their nonzero columns).
std::vector<Tensor> expand_index_list(const Tensor& self, const std::vector<Tensor>& indices);
// self's elements where mask (bool or uint8, self's shape) is true, row-major, as a 1-D tensor: the
// direct (one read of each) form of self[mask].
Tensor masked_compact(const Tensor& self, const Tensor& mask);
// The k index columns of the true elements of a bool/uint8 mask (nonzero(mask).unbind(1)).
std::vector<Tensor> mask_to_indices(const Tensor& mask);

}  // namespace ember
