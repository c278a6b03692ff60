// Memory-overlap rules (see tensor/mem_overlap.h).
#include "tensor/mem_overlap.h"

#include <algorithm>
#include <numeric>

#include "base/error.h"

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

MemOverlap has_internal_overlap(const Tensor& t) {
  if (t.is_contiguous()) return MemOverlap::No;
  for (int64_t d = 0; d < t.dim(); d++)
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return MemOverlap::Yes;
  return is_non_overlapping_and_dense(t) ? MemOverlap::No : MemOverlap::TooHard;
}

MemOverlapStatus get_overlap_status(const Tensor& a, const Tensor& b) {
  if (a.is_same(b)) return MemOverlapStatus::Full;
  // Cheapest test first: most operand pairs live in different storages.
  if (a.storage().get() != b.storage().get() || a.numel() == 0 || b.numel() == 0 || a.is_meta())
    return MemOverlapStatus::No;
  if (!is_non_overlapping_and_dense(a) || !is_non_overlapping_and_dense(b)) return MemOverlapStatus::TooHard;
  // Dense tensors occupy [offset, offset + numel) of their storage, in bytes.
  const int64_t a_begin = a.offset() * a.itemsize(), a_end = a_begin + a.numel() * a.itemsize();
  const int64_t b_begin = b.offset() * b.itemsize(), b_end = b_begin + b.numel() * b.itemsize();
  if (a_begin == b_begin && a_end == b_end)
    return a.strides() == b.strides() ? MemOverlapStatus::Full : MemOverlapStatus::Partial;
  if (a_begin < b_end && b_begin < a_end) return MemOverlapStatus::Partial;
  return MemOverlapStatus::No;
}

void assert_no_internal_overlap(const Tensor& t, const char* op) {
  EMBER_CHECK(!t.defined() || has_internal_overlap(t) != MemOverlap::Yes, Runtime, op,
              "(): unsupported operation: more than one element of the written-to tensor refers to a single "
              "memory location. Please clone() the tensor before performing the operation.");
}

static void raise_overlap(const char* op) {
  EMBER_CHECK(false, Runtime, op,
              "(): unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
              "single memory location. Please clone() the tensor before performing the operation.");
}

void assert_no_partial_overlap(const Tensor& out, const Tensor& in, const char* op) {
  if (out.defined() && in.defined() && get_overlap_status(out, in) == MemOverlapStatus::Partial) raise_overlap(op);
}

void assert_no_overlap(const Tensor& out, const Tensor& in, const char* op) {
  if (!out.defined() || !in.defined()) return;
  const MemOverlapStatus s = get_overlap_status(out, in);
  if (s == MemOverlapStatus::Partial || s == MemOverlapStatus::Full) raise_overlap(op);
}

}  // namespace ember
