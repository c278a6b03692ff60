// max/min (whole tensor, along a dim with indices, and the binary overload), amax, amin, aminmax,
// argmax, argmin. NaN propagates (its first occurrence wins); ties give the first index.
#include "kernels/cpu/reduce_minmax.h"

#include "generated/ops/amax.h"
#include "generated/ops/amin.h"
#include "generated/ops/aminmax.h"
#include "generated/ops/argmax.h"
#include "generated/ops/argmin.h"
#include "generated/ops/max.h"
#include "generated/ops/max_dim.h"
#include "generated/ops/max_other.h"
#include "generated/ops/maximum.h"
#include "generated/ops/min.h"
#include "generated/ops/min_dim.h"
#include "generated/ops/min_other.h"
#include "generated/ops/minimum.h"

namespace ember::ops {

namespace {

void check_real(const Tensor& x, const char* name) {
  EMBER_CHECK(!is_complex(x.dtype()), Runtime, name, "(): does not support complex input (", dtype_name(x.dtype()),
              ")");
}

// Values and/or indices of the max (IsMax) or min over mask; a tensor is undefined when not wanted.
template <bool IsMax>
void extreme(const Tensor& x, const DimMask& mask, const Tensor& vals, const Tensor& idx) {
  const Tensor& res = vals.defined() ? vals : idx;
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (!is_complex_v<T>) {
      launch_reduce(
          x, mask, res,
          [&](const ReducePlan&) {
            ExtremeOp<T, IsMax> op;
            op.vals = vals.defined() ? vals.data_as<T>() : nullptr;
            op.idx = idx.defined() ? idx.data_as<int64_t>() : nullptr;
            return op;
          },
          idx.defined());
    }
  });
}

template <bool IsMax>
Tensor full_extreme(const Tensor& input, const char* name) {
  check_real(input, name);
  DimMask mask = reduce_mask(std::nullopt, input.dim(), name);
  check_nonempty_reduction(input, mask, true, name);
  Tensor vals = reduce_result(input, mask, false, input.dtype());
  extreme<IsMax>(input, mask, vals, Tensor());
  return vals;
}

template <bool IsMax>
std::tuple<Tensor, Tensor> dim_extreme(const Tensor& input, int64_t dim, bool keepdim, const char* name) {
  check_real(input, name);
  DimMask mask = reduce_mask_one(dim, input.dim());
  check_nonempty_reduction(input, mask, false, name);
  Tensor vals = reduce_result(input, mask, keepdim, input.dtype());
  Tensor idx = reduce_result(input, mask, keepdim, ScalarType::Int64);
  extreme<IsMax>(input, mask, vals, idx);
  return {vals, idx};
}

template <bool IsMax>
std::tuple<Tensor, Tensor> dim_extreme_out(const Tensor& values, const Tensor& indices, const Tensor& input,
                                           int64_t dim, bool keepdim, const char* name) {
  check_out_dtype(values, input.dtype(), name);
  check_out_dtype(indices, ScalarType::Int64, name);
  auto [v, i] = dim_extreme<IsMax>(input, dim, keepdim, name);
  write_out(values, v, name);
  write_out(indices, i, name);
  return {values, indices};
}

template <bool IsMax>
Tensor a_extreme(const Tensor& out, const Tensor& input, const DimVec& dim, bool keepdim, const char* name) {
  check_real(input, name);
  if (out.defined())
    EMBER_CHECK(out.dtype() == input.dtype(), Runtime, "Expected the dtype for input and out to match, but got ",
                dtype_name(input.dtype()), " for input's dtype and ", dtype_name(out.dtype()), " for out's dtype.");
  DimMask mask = reduce_mask(dim, input.dim(), name);
  check_nonempty_reduction(input, mask, false, name);
  Tensor vals = reduce_result(input, mask, keepdim, input.dtype());
  extreme<IsMax>(input, mask, vals, Tensor());
  return write_out(out, vals, name);
}

template <bool IsMax>
Tensor arg_extreme(const Tensor& out, const Tensor& input, std::optional<int64_t> dim, bool keepdim, const char* name) {
  EMBER_CHECK(!is_complex(input.dtype()) && input.dtype() != ScalarType::Bool, Runtime, "\"", name,
              "\" not implemented for '", dtype_name(input.dtype()), "'");
  if (out.defined()) check_out_dtype(out, ScalarType::Int64, name);
  DimMask mask = dim ? reduce_mask_one(*dim, input.dim()) : reduce_mask(std::nullopt, input.dim(), name);
  check_nonempty_reduction(input, mask, !dim, name);
  Tensor idx = reduce_result(input, mask, keepdim, ScalarType::Int64);
  extreme<IsMax>(input, mask, Tensor(), idx);
  return write_out(out, idx, name);
}

std::tuple<Tensor, Tensor> aminmax_impl(const Tensor& input, std::optional<int64_t> dim, bool keepdim) {
  check_real(input, "aminmax");
  DimMask mask = dim ? reduce_mask_one(*dim, input.dim()) : reduce_mask(std::nullopt, input.dim(), "aminmax");
  if (input.numel() == 0) {
    EMBER_CHECK(dim, Runtime,
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                "no identity.");
    check_nonempty_reduction(input, mask, false, "aminmax");
  }
  Tensor lo = reduce_result(input, mask, keepdim, input.dtype());
  Tensor hi = reduce_result(input, mask, keepdim, input.dtype());
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (!is_complex_v<T>) {
      launch_reduce(input, mask, lo, [&](const ReducePlan&) {
        MinMaxOp<T> op;
        op.lo = lo.data_as<T>();
        op.hi = hi.data_as<T>();
        return op;
      });
    }
  });
  return {lo, hi};
}

}  // namespace

Tensor max(const Tensor& input) { return full_extreme<true>(input, "max"); }
Tensor min(const Tensor& input) { return full_extreme<false>(input, "min"); }

std::tuple<Tensor, Tensor> max_dim(const Tensor& input, int64_t dim, bool keepdim) {
  return dim_extreme<true>(input, dim, keepdim, "max");
}
std::tuple<Tensor, Tensor> max_dim_out(const Tensor& values, const Tensor& indices, const Tensor& input, int64_t dim,
                                       bool keepdim) {
  return dim_extreme_out<true>(values, indices, input, dim, keepdim, "max");
}
std::tuple<Tensor, Tensor> min_dim(const Tensor& input, int64_t dim, bool keepdim) {
  return dim_extreme<false>(input, dim, keepdim, "min");
}
std::tuple<Tensor, Tensor> min_dim_out(const Tensor& values, const Tensor& indices, const Tensor& input, int64_t dim,
                                       bool keepdim) {
  return dim_extreme_out<false>(values, indices, input, dim, keepdim, "min");
}

Tensor max_other(const Tensor& input, const Tensor& other) { return ops::maximum(input, other); }
Tensor max_other_out(const Tensor& out, const Tensor& input, const Tensor& other) {
  return ops::maximum_out(out, input, other);
}
Tensor min_other(const Tensor& input, const Tensor& other) { return ops::minimum(input, other); }
Tensor min_other_out(const Tensor& out, const Tensor& input, const Tensor& other) {
  return ops::minimum_out(out, input, other);
}

Tensor amax(const Tensor& input, const DimVec& dim, bool keepdim) {
  return a_extreme<true>(Tensor(), input, dim, keepdim, "amax");
}
Tensor amax_out(const Tensor& out, const Tensor& input, const DimVec& dim, bool keepdim) {
  return a_extreme<true>(out, input, dim, keepdim, "amax");
}
Tensor amin(const Tensor& input, const DimVec& dim, bool keepdim) {
  return a_extreme<false>(Tensor(), input, dim, keepdim, "amin");
}
Tensor amin_out(const Tensor& out, const Tensor& input, const DimVec& dim, bool keepdim) {
  return a_extreme<false>(out, input, dim, keepdim, "amin");
}

Tensor argmax(const Tensor& input, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme<true>(Tensor(), input, dim, keepdim, "argmax");
}
Tensor argmax_out(const Tensor& out, const Tensor& input, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme<true>(out, input, dim, keepdim, "argmax");
}
Tensor argmin(const Tensor& input, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme<false>(Tensor(), input, dim, keepdim, "argmin");
}
Tensor argmin_out(const Tensor& out, const Tensor& input, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme<false>(out, input, dim, keepdim, "argmin");
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& input, std::optional<int64_t> dim, bool keepdim) {
  return aminmax_impl(input, dim, keepdim);
}
std::tuple<Tensor, Tensor> aminmax_out(const Tensor& min, const Tensor& max, const Tensor& input,
                                       std::optional<int64_t> dim, bool keepdim) {
  check_out_dtype(min, input.dtype(), "aminmax");
  check_out_dtype(max, input.dtype(), "aminmax");
  auto [lo, hi] = aminmax_impl(input, dim, keepdim);
  write_out(min, lo, "aminmax");
  write_out(max, hi, "aminmax");
  return {min, max};
}

}  // namespace ember::ops
