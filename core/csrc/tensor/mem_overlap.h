// Whether a written-to tensor overlaps itself or a tensor read by the same op: PyTorch's memory-
// overlap rules (has_internal_overlap, get_overlap_status and the assert_* checks), in one place for
// the tensor iterator and the hand-written kernels that write.
#pragma once
#include "tensor/tensor_impl.h"

namespace ember {

// True when the elements fill a block of memory exactly once (any dim order, no gaps, no repeats).
bool is_non_overlapping_and_dense(const Tensor& t);

enum class MemOverlap : int8_t { No, Yes, TooHard };
enum class MemOverlapStatus : int8_t { Full, Partial, No, TooHard };

// Yes when two elements of t share a memory location for sure (a stride 0 over a size > 1); No for
// dense tensors; TooHard otherwise (other self-overlapping layouts are not looked for).
MemOverlap has_internal_overlap(const Tensor& t);
// How the memory of a and b relate: Full when they are the same elements in the same layout,
// Partial when some (not all) locations are shared, TooHard when either is not dense.
MemOverlapStatus get_overlap_status(const Tensor& a, const Tensor& b);

// RuntimeError "<op>(): unsupported operation: more than one element of the written-to tensor refers
// to a single memory location..." when has_internal_overlap(t) is Yes.
void assert_no_internal_overlap(const Tensor& t, const char* op);
// RuntimeError "<op>(): unsupported operation: some elements of the input tensor and the written-to
// tensor refer to a single memory location..." when out and in overlap partially (a full overlap,
// an op writing over its own input element by element, is allowed).
void assert_no_partial_overlap(const Tensor& out, const Tensor& in, const char* op);
// As assert_no_partial_overlap, but a full overlap is refused too (ops that read `in` out of order).
void assert_no_overlap(const Tensor& out, const Tensor& in, const char* op);

}  // namespace ember
