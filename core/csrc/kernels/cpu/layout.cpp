// Layout queries for the copying shape ops (see kernels/layout.h).
#include "kernels/layout.h"

namespace ember {

Tensor empty_preserve(const Tensor& t, ScalarType dtype) {
  if (t.is_contiguous() && t.strides() == contiguous_strides(t.sizes())) return empty(t.sizes(), dtype, t.device());
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

}  // namespace ember
