// sum, nansum, mean, nanmean: PyTorch's dtype rules (integers sum to int64, dtype= casts first,
// mean needs a floating or complex dtype) over the engine's pairwise float sums.
#include "generated/ops/div.h"
#include "generated/ops/mean.h"
#include "generated/ops/nanmean.h"
#include "generated/ops/nansum.h"
#include "generated/ops/sum.h"
#include "kernels/cpu/reduce_common.h"

namespace ember::ops {

namespace {

// Sum over mask of x (already in its compute dtype); the result has sum_result_dtype(x.dtype()).
template <bool SkipNan>
Tensor sum_impl(const Tensor& x, const DimMask& mask, bool keepdim, bool mean) {
  Tensor res = reduce_result(x, mask, keepdim, sum_result_dtype(x.dtype()));
  const double count = double(reduced_numel(x.sizes(), mask));
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    using Acc = sum_acc_t<T>;
    using Out = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
    if constexpr (SkipNan && is_complex_v<T>) {
      EMBER_FAIL(Runtime, "nansum does not support complex inputs");
    } else {
      launch_reduce(x, mask, res,
                    [&](const ReducePlan&) { return SumOp<T, Acc, Out, SkipNan>{res.data_as<Out>(), count, mean}; });
    }
  });
  return res;
}

// The dtype sum/nansum produce: dtype= when given, else out='s, else PyTorch's default rule.
ScalarType sum_dtype(const Tensor& input, ScalarType dtype, const Tensor& out, const char* name) {
  if (dtype != ScalarType::Undefined) {
    if (out.defined()) check_out_dtype(out, dtype, name);
    return dtype;
  }
  return out.defined() ? out.dtype() : sum_result_dtype(input.dtype());
}

template <bool SkipNan>
Tensor sum_like(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim,
                ScalarType dtype, const char* name) {
  const DimMask mask = reduce_mask(dim, input.dim(), name);
  const ScalarType want = sum_dtype(input, dtype, out, name);
  if (SkipNan && is_complex(input.dtype())) EMBER_FAIL(Runtime, "nansum does not support complex inputs");
  // Integers cast to a wider integer are summed in int64 anyway (same wrap-around result).
  const bool cast_first = want != input.dtype() && !(is_integral(want, true) && is_integral(input.dtype(), true));
  Tensor x = cast_first ? cast_for_dtype(input, want) : input;
  Tensor res = sum_impl<SkipNan>(x, mask, keepdim, false);
  if (res.dtype() != want) res = cast_for_dtype(res, want);
  return write_out(out, res, name);
}

ScalarType mean_dtype(const Tensor& input, ScalarType dtype, const Tensor& out, const char* name) {
  const ScalarType in = dtype != ScalarType::Undefined ? dtype : input.dtype();
  EMBER_CHECK(is_floating(in) || is_complex(in), Runtime, name, "(): could not infer output dtype. ",
              dtype != ScalarType::Undefined ? "Optional" : "Input",
              " dtype must be either a floating point or complex dtype. Got: ", dtype_name(in));
  if (dtype != ScalarType::Undefined && out.defined()) check_out_dtype(out, dtype, name);
  return dtype != ScalarType::Undefined ? dtype : out.defined() ? out.dtype() : input.dtype();
}

Tensor mean_like(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim,
                 ScalarType dtype, const char* name) {
  const DimMask mask = reduce_mask(dim, input.dim(), name);
  const ScalarType want = mean_dtype(input, dtype, out, name);
  Tensor x = cast_for_dtype(input, want);
  Tensor res = sum_impl<false>(x, mask, keepdim, true);
  return write_out(out, res, name);
}

Tensor nanmean_impl(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim,
                    ScalarType dtype) {
  EMBER_CHECK(is_floating(input.dtype()), Runtime, "nanmean(): expected input to have floating point dtype but got ",
              dtype_name(input.dtype()));
  const DimMask mask = reduce_mask(dim, input.dim(), "nanmean");
  const ScalarType want = mean_dtype(input, dtype, out, "nanmean");
  Tensor x = cast_for_dtype(input, want);
  Tensor total = sum_impl<true>(x, mask, keepdim, false);
  if (x.is_meta()) return write_out(out, total, "nanmean");
  // The count of non-NaN elements per output, as the sum of a 0/1 tensor.
  Tensor notnan = empty(x.sizes(), ScalarType::Float64, x.device());
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      Tensor xc = contiguous(x);
      const T* p = xc.data_as<T>();
      double* q = notnan.data_as<double>();
      parallel_for(x.numel(), 32768, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; k++) q[k] = float(p[k]) == float(p[k]) ? 1.0 : 0.0;
      });
    }
  });
  Tensor count = sum_impl<false>(notnan, mask, keepdim, false);
  Tensor res = cast_for_dtype(ops::div(to_dtype(total, ScalarType::Float64), count, std::nullopt), want);
  return write_out(out, res, "nanmean");
}

}  // namespace

Tensor sum(const Tensor& input, const std::optional<DimVec>& dim, bool keepdim, ScalarType dtype) {
  return sum_like<false>(Tensor(), input, dim, keepdim, dtype, "sum");
}
Tensor sum_out(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim,
               ScalarType dtype) {
  return sum_like<false>(out, input, dim, keepdim, dtype, "sum");
}
Tensor nansum(const Tensor& input, const std::optional<DimVec>& dim, bool keepdim, ScalarType dtype) {
  return sum_like<true>(Tensor(), input, dim, keepdim, dtype, "nansum");
}
Tensor nansum_out(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim,
                  ScalarType dtype) {
  return sum_like<true>(out, input, dim, keepdim, dtype, "nansum");
}
Tensor mean(const Tensor& input, const std::optional<DimVec>& dim, bool keepdim, ScalarType dtype) {
  return mean_like(Tensor(), input, dim, keepdim, dtype, "mean");
}
Tensor mean_out(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim,
                ScalarType dtype) {
  return mean_like(out, input, dim, keepdim, dtype, "mean");
}
Tensor nanmean(const Tensor& input, const std::optional<DimVec>& dim, bool keepdim, ScalarType dtype) {
  return nanmean_impl(Tensor(), input, dim, keepdim, dtype);
}
Tensor nanmean_out(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim,
                   ScalarType dtype) {
  return nanmean_impl(out, input, dim, keepdim, dtype);
}

}  // namespace ember::ops
