// Dense strides in the order a comparator picks (PyTorch's rule for laying out a result like its
// inputs): used by dense_strides_like (one tensor) and the tensor iterator's outputs (several).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "base/small_vector.h"

namespace ember {

// should_swap(d0, d1) > 0: d1 goes inside d0; < 0: keep, and stop looking further out; 0: undecided
// (a broadcast dim stays where it is). Insertion sort from the contiguous order; perm[0] innermost.
template <class ShouldSwap>
DimVec dense_strides_in_order(const DimVec& sizes, const ShouldSwap& should_swap) {
  const int64_t nd = sizes.size();
  DimVec perm(nd);
  for (int64_t i = 0; i < nd; i++) perm[i] = nd - 1 - i;
  for (int64_t i = 1; i < nd; i++) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; d0--) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  DimVec out(nd);
  int64_t s = 1;
  for (int64_t i = 0; i < nd; i++) {
    out[perm[i]] = s;
    s *= std::max<int64_t>(sizes[perm[i]], 1);
  }
  return out;
}

}  // namespace ember
