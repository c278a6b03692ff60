// Memory-layout questions the copying shape ops ask: may two tensors share memory, and the output
// layout that preserves the input's (PyTorch's preserve_format). Overlap rules: tensor/mem_overlap.h.
#pragma once
#include "tensor/factory.h"
#include "tensor/mem_overlap.h"

namespace ember {

// An uninitialized tensor like t (PyTorch's preserve_format): t's strides when t is non-overlapping
// and dense, else dense strides in t's dim order (dense_strides_like).
Tensor empty_preserve(const Tensor& t, ScalarType dtype);
inline Tensor empty_preserve(const Tensor& t) { return empty_preserve(t, t.dtype()); }
// Whether the memory spans of a and b (same storage, both non-empty) intersect.
bool spans_overlap(const Tensor& a, const Tensor& b);

}  // namespace ember
