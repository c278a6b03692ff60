// Memory-format rules (see memory_format.h); each follows the PyTorch function it names.
#include "tensor/memory_format.h"

#include <initializer_list>

#include "base/error.h"

namespace ember {

namespace {

// Dense in the dim order `order` (innermost first), size-1 dims skipped.
bool dense_in_order(const DimVec& sizes, const DimVec& strides, std::initializer_list<int> order) {
  int64_t expected = 1;
  for (int d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// Strides that order the dims as `order` (innermost first), not necessarily dense.
bool strides_in_order(const DimVec& sizes, const DimVec& strides, std::initializer_list<int> order) {
  if (strides[1] == 0) return false;  // a broadcast channel dim: NCHW by default
  int64_t min = 0;
  for (int d : order) {
    if (sizes[d] == 0 || strides[d] < min) return false;
    // N111-like shapes with equal strides (an N111 tensor, or N11W sliced on W) are ambiguous: NCHW.
    if (d == 0 && min == strides[1]) return false;
    // Set past a size-1 dim too, so N1H1 and transposed 1C1W shapes are not taken for channels last.
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

}  // namespace

bool is_channels_last_contiguous(const DimVec& sizes, const DimVec& strides) {
  return sizes.size() == 4 && dense_in_order(sizes, strides, {1, 3, 2, 0});
}

bool is_channels_last_3d_contiguous(const DimVec& sizes, const DimVec& strides) {
  return sizes.size() == 5 && dense_in_order(sizes, strides, {1, 4, 3, 2, 0});
}

bool is_channels_last_strides(const DimVec& sizes, const DimVec& strides) {
  return sizes.size() == 4 && strides_in_order(sizes, strides, {1, 3, 2, 0});
}

bool is_channels_last_3d_strides(const DimVec& sizes, const DimVec& strides) {
  return sizes.size() == 5 && strides_in_order(sizes, strides, {1, 4, 3, 2, 0});
}

bool is_contiguous_in(const Tensor& t, MemoryFormat f) {
  switch (f) {
    case MemoryFormat::ChannelsLast:
      return is_channels_last_contiguous(t.sizes(), t.strides());
    case MemoryFormat::ChannelsLast3d:
      return is_channels_last_3d_contiguous(t.sizes(), t.strides());
    default:
      return t.is_contiguous();
  }
}

MemoryFormat suggest_memory_format(const Tensor& t, bool exact_match) {
  if (is_channels_last_strides(t.sizes(), t.strides())) {
    if (!exact_match || memory_format_strides(t.sizes(), MemoryFormat::ChannelsLast) == t.strides())
      return MemoryFormat::ChannelsLast;
  } else if (is_channels_last_3d_strides(t.sizes(), t.strides())) {
    if (!exact_match || memory_format_strides(t.sizes(), MemoryFormat::ChannelsLast3d) == t.strides())
      return MemoryFormat::ChannelsLast3d;
  }
  return MemoryFormat::Contiguous;
}

DimVec memory_format_strides(const DimVec& sizes, MemoryFormat f) {
  switch (f) {
    case MemoryFormat::ChannelsLast: {
      EMBER_CHECK(sizes.size() == 4, Runtime, "required rank 4 tensor to use channels_last format");
      DimVec s(4);  // PyTorch's get_channels_last_strides_2d: no max(size, 1)
      s[1] = 1;
      s[3] = sizes[1];
      s[2] = s[3] * sizes[3];
      s[0] = s[2] * sizes[2];
      return s;
    }
    case MemoryFormat::ChannelsLast3d: {
      EMBER_CHECK(sizes.size() == 5, Runtime, "required rank 5 tensor to use channels_last_3d format");
      DimVec s(5);
      s[1] = 1;
      s[4] = sizes[1];
      s[3] = s[4] * sizes[4];
      s[2] = s[3] * sizes[3];
      s[0] = s[2] * sizes[2];
      return s;
    }
    case MemoryFormat::Preserve:
      EMBER_FAIL(Runtime, "unsupported memory format Preserve");
    default:
      return contiguous_strides(sizes);
  }
}

}  // namespace ember
