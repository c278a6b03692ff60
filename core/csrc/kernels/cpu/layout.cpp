// Layout queries for the copying shape ops (see kernels/layout.h).
#include "kernels/layout.h"

#include <algorithm>
#include <numeric>

namespace ember {

bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  const int64_t nd = t.dim();
  DimVec perm(nd);
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (t.sizes()[a] < 2 || t.sizes()[b] < 2) return t.sizes()[a] < 2 && t.sizes()[b] >= 2;
    return t.strides()[a] < t.strides()[b];
  });
  int64_t expected = 1;
  for (int64_t i = 0; i < nd; i++) {
    const int64_t d = perm[i];
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

Tensor empty_preserve(const Tensor& t, ScalarType dtype) {
  if (t.is_contiguous()) return empty(t.sizes(), dtype, t.device());
  if (is_non_overlapping_and_dense(t)) return empty_strided(t.sizes(), t.strides(), dtype, t.device());
  return empty_strided(t.sizes(), dense_strides_like(t.sizes(), t.strides()), dtype, t.device());
}

namespace {
// [first, last] byte addresses (relative to the storage) that t touches; t is non-empty.
std::pair<int64_t, int64_t> span(const Tensor& t) {
  int64_t lo = t.offset(), hi = t.offset();
  for (int64_t d = 0; d < t.dim(); d++) {
    const int64_t reach = (t.sizes()[d] - 1) * t.strides()[d];
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo * t.itemsize(), (hi + 1) * t.itemsize() - 1};
}
}  // namespace

bool spans_overlap(const Tensor& a, const Tensor& b) {
  if (a.storage().get() != b.storage().get() || a.numel() == 0 || b.numel() == 0) return false;
  auto [alo, ahi] = span(a);
  auto [blo, bhi] = span(b);
  return alo <= bhi && blo <= ahi;
}

void check_no_internal_overlap(const Tensor& t, const char* op) {
  for (int64_t d = 0; d < t.dim(); d++) {
    EMBER_CHECK(t.strides()[d] != 0 || t.sizes()[d] <= 1, Runtime, op,
                "(): unsupported operation: more than one element of the written-to tensor refers to a single "
                "memory location. Please clone() the tensor before performing the operation.");
  }
}

}  // namespace ember
