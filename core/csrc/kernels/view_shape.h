// Shape arithmetic shared by the view ops: -1 inference, and the strides that let a tensor be
// seen with a new shape without copying (when they exist).
#pragma once
#include <optional>

#include "tensor/tensor_impl.h"

namespace ember {

// `shape` with its one -1 (if any) replaced so the product is `numel`; names the bad shape otherwise.
DimVec infer_size(const DimVec& shape, int64_t numel);

// Strides for viewing a tensor of (sizes, strides) as `new_sizes` (same numel), or nullopt when
// some new dim would have to span two separately strided blocks of the old layout.
std::optional<DimVec> view_strides(const DimVec& sizes, const DimVec& strides, const DimVec& new_sizes);

}  // namespace ember
