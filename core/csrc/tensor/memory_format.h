// Memory formats (PyTorch's c10::MemoryFormat): the dim orders a dense 4-D/5-D tensor may have, and
// PyTorch's rules for recognising them from strides, size-1 dims and ambiguous shapes included.
#pragma once
#include "tensor/tensor_impl.h"

namespace ember {

// Codes shared with ember/_memory_format.py.
enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1, ChannelsLast = 2, ChannelsLast3d = 3 };

// Dense in NHWC (rank 4) / NDHWC (rank 5) order, size-1 dims skipped (PyTorch's
// compute_channels_last_contiguous_2d/3d). False for any other rank.
bool is_channels_last_contiguous(const DimVec& sizes, const DimVec& strides);
bool is_channels_last_3d_contiguous(const DimVec& sizes, const DimVec& strides);

// Whether strides order the dims as channels last, dense or not (PyTorch's is_channels_last_strides_2d/3d):
// ambiguous cases (a zero channel stride, N111-like shapes) count as contiguous.
bool is_channels_last_strides(const DimVec& sizes, const DimVec& strides);
bool is_channels_last_3d_strides(const DimVec& sizes, const DimVec& strides);

// Tensor.is_contiguous(memory_format=f); Preserve answers as Contiguous (as PyTorch).
bool is_contiguous_in(const Tensor& t, MemoryFormat f);

// PyTorch's suggest_memory_format: ChannelsLast(3d) when the strides look so (with exact_match, only
// when they are exactly the format's dense strides), else Contiguous.
MemoryFormat suggest_memory_format(const Tensor& t, bool exact_match = false);

// The dense strides of `sizes` in format f (Contiguous, ChannelsLast on rank 4, ChannelsLast3d on
// rank 5), with PyTorch's messages for a rank the format does not fit and for Preserve.
DimVec memory_format_strides(const DimVec& sizes, MemoryFormat f);

}  // namespace ember
