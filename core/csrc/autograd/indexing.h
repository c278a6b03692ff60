// Advanced indexing with autograd: t[indices] reads (gradient: an accumulating put into zeros) and
// t[indices] = v writes (gradients: the unwritten part of t's, and v's read back at the indices).
#pragma once
#include <vector>

#include "tensor/tensor_impl.h"

namespace ember::ad {

Tensor advanced_index(const Tensor& self, const std::vector<Tensor>& indices, const DimVec* labels = nullptr);
void advanced_index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate,
                         const DimVec* labels = nullptr);

}  // namespace ember::ad
