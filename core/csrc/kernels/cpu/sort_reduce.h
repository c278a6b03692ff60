// Shapes for the sort family's reductions over one dim (kthvalue, median, mode, quantile): the kept-dim
// result is allocated dense and the dim dropped by a view when keepdim is false.
#pragma once
#include "tensor/factory.h"

namespace ember::sorting {

// input's sizes with dim d set to `keep` (0-dim input: no dims).
inline DimVec kept_sizes(const Tensor& input, int64_t d, int64_t keep = 1) {
  DimVec s = input.sizes();
  if (input.dim() > 0) s[d] = keep;
  return s;
}

// t (dense, dim d of size 1) without dim d when keepdim is false.
inline Tensor drop_dim(const Tensor& t, int64_t d, bool keepdim) {
  if (keepdim || t.dim() == 0) return t;
  DimVec sizes, strides;
  for (int64_t i = 0; i < t.dim(); i++) {
    if (i == d) continue;
    sizes.push_back(t.sizes()[i]);
    strides.push_back(t.strides()[i]);
  }
  return make_view(t, sizes, strides, t.offset());
}

}  // namespace ember::sorting
