// The two loops every indexing op is built on: gather (out = src[idx * scale]) and scatter
// (dst[idx * scale] op= src), over an N-d iteration shape where each operand has its own strides.
// Ops describe themselves as strided views in that shape; the loops never see broadcasting.
#pragma once
#include <cstdint>

#include "iter/out_arg.h"
#include "tensor/factory.h"

namespace ember {

// One operand of an index loop: a base pointer and byte strides over the iteration shape.
struct IndexOperand {
  char* base = nullptr;
  DimVec strides;  // bytes, one per iteration dim (0 where the operand does not move)
};

// An operand from a tensor whose (element) strides are given per iteration dim.
IndexOperand index_operand(const Tensor& t, const DimVec& elem_strides);
// A tensor already shaped like the iteration (its own strides, 0 where it is size 1 and broadcast).
IndexOperand index_operand(const Tensor& t, const DimVec& iter_shape, bool broadcast);

// What the index values mean: idx in [-size, size) wraps once, then moves the src/dst pointer by
// idx * scale bytes. `dim` and `size` name the dimension in the IndexError for a bad index.
struct IndexSpec {
  int64_t size = 0;
  int64_t scale = 0;  // bytes per index step
  int64_t dim = 0;
  bool check = true;  // false: idx are ready-made offsets (already checked), used as is
};

// out[i] = src[i + idx[i] * scale]; out, src of `itemsize` bytes, idx int64.
void gather_loop(const DimVec& shape, const IndexOperand& out, const IndexOperand& src, const IndexOperand& idx,
                 int64_t itemsize, const IndexSpec& spec);

enum class ScatterMode { Assign, Add, Mul, Max, Min };
// dst[i + idx[i] * scale] (op)= src[i]. Assign copies bytes and may run in parallel (duplicate
// indices then keep one of the values, as in PyTorch); the reductions run in index order on one
// thread, so duplicates accumulate deterministically. dtype is the element type of dst and src.
void scatter_loop(const DimVec& shape, const IndexOperand& dst, const IndexOperand& src, const IndexOperand& idx,
                  ScalarType dtype, ScatterMode mode, const IndexSpec& spec);

// Checks that every index in `idx` (int64) lies in [-size, size); raises the IndexError otherwise.
void check_index_range(const Tensor& idx, int64_t size, int64_t dim);
// An index tensor as int64 (int32 is widened when allowed; any other dtype raises `kind` naming `op`).
Tensor index_as_int64(const Tensor& idx, const char* op, bool allow_int32, ErrorKind kind = ErrorKind::Runtime);
// An operand that reads the same element everywhere (a 0-dim tensor's data, every stride 0).
IndexOperand scalar_operand(const Tensor& t0, size_t ndim);
// `t` with at least one dim (a 0-dim tensor as a 1-element 1-D view), for ops that treat scalars as vectors.
Tensor atleast_1d_view(const Tensor& t);
// Strides of t with the one at `dim` set to 0.
DimVec strides_without(const Tensor& t, int64_t dim);
// The error raised for a bad index value.
[[noreturn]] void raise_index_error(int64_t v, int64_t dim, int64_t size);

}  // namespace ember
