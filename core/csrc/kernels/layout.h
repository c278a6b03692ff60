// Memory-layout questions the copying shape ops ask: is a tensor dense, may two tensors share
// memory, and the output layout that preserves the input's (PyTorch's preserve_format).
#pragma once
#include "tensor/factory.h"

namespace ember {

// True when the elements fill a block of memory exactly once (any dim order, no gaps, no repeats).
bool is_non_overlapping_and_dense(const Tensor& t);
// An uninitialized tensor like t (PyTorch's preserve_format): t's strides when t is non-overlapping
// and dense, else dense strides in t's dim order (dense_strides_like).
Tensor empty_preserve(const Tensor& t, ScalarType dtype);
inline Tensor empty_preserve(const Tensor& t) { return empty_preserve(t, t.dtype()); }
// Whether the memory spans of a and b (same storage, both non-empty) intersect.
bool spans_overlap(const Tensor& a, const Tensor& b);
// Raises when writing to t would write one memory location twice (a stride 0 over a size > 1).
void check_no_internal_overlap(const Tensor& t, const char* op);

}  // namespace ember
