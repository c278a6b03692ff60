// What every process group's collectives take: a raw contiguous buffer (the Python layer passes a tensor's
// data pointer and keeps the tensor alive), its element type, and the reduction.
#pragma once

#include <cstddef>

namespace ember::distributed {

enum class ReduceOp { SUM, PRODUCT, MIN, MAX, BAND, BOR, BXOR };
enum class ElemType { Float32, Float64, Int32, Int64, Int8, UInt8, Float16, BFloat16, Bool };

struct Buffer {
  void* data;
  size_t count;  // elements
  ElemType type;
};

}  // namespace ember::distributed
