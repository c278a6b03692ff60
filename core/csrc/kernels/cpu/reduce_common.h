// Shared by the reduction kernels: the result dtype rules, allocating the result, running an op
// through the engine (skipped for meta tensors and empty results), and the float sum folds
// (pairwise, AVX2 when the CPU has it) that sum, mean, var and norm build on.
#pragma once
#include <cmath>
#include <optional>

#include "iter/copy.h"
#include "iter/loops.h"
#include "iter/reduce_iter.h"
#include "kernels/convert.h"

namespace ember {

// PyTorch's sum/prod result dtype: bool and integers accumulate in int64, the rest keep theirs.
inline ScalarType sum_result_dtype(ScalarType t) { return is_integral(t, true) ? ScalarType::Int64 : t; }

// The accumulation type of a sum: float for the 16-bit floats, int64 for bool/integers.
template <class T>
using sum_acc_t = std::conditional_t<std::is_integral_v<T>, int64_t, opmath_t<T>>;

// Allocates a C-contiguous result of the reduced shape on x's device.
inline Tensor reduce_result(const Tensor& x, const DimMask& mask, bool keepdim, ScalarType dtype) {
  return empty(reduced_shape(x.sizes(), mask, keepdim), dtype, x.device());
}

// Runs the op that make_op(plan) returns, unless there is nothing to compute.
template <class MakeOp>
void launch_reduce(const Tensor& x, const DimMask& mask, const Tensor& result, const MakeOp& make_op,
                   bool ordered = false) {
  if (x.is_meta() || result.numel() == 0) return;
  ReducePlan plan = make_reduce_plan(x, mask, ordered);
  run_reduce(plan, make_op(plan));
}

// The input cast to `dtype` when one was asked for (PyTorch casts before reducing).
inline Tensor cast_for_dtype(const Tensor& x, ScalarType dtype) {
  if (dtype == ScalarType::Undefined || dtype == x.dtype()) return x;
  if (x.is_meta()) return empty(x.sizes(), dtype, x.device());
  return to_dtype(x, dtype);
}

namespace sumk {

constexpr int64_t kLeaf = 1024;

// Contiguous float/double leaves: four vector accumulators, so each lane adds at most kLeaf/32 values.
EMBER_AVX2 float leaf_f32_avx2(const float* p, int64_t n, bool skip_nan);
EMBER_AVX2 double leaf_f64_avx2(const double* p, int64_t n, bool skip_nan);
// acc[i] += p[i] for m contiguous elements.
EMBER_AVX2 void add_rows_f32_avx2(float* acc, const float* p, int64_t m);
EMBER_AVX2 void add_rows_f64_avx2(double* acc, const double* p, int64_t m);

template <bool SkipNan, class In, class Acc>
inline Acc leaf(const In* p, int64_t n, int64_t stride) {
  if constexpr (!SkipNan && std::is_same_v<In, float> && std::is_same_v<Acc, float>) {
    if (stride == 1 && cpu_has_avx2()) return leaf_f32_avx2(p, n, false);
  } else if constexpr (!SkipNan && std::is_same_v<In, double>) {
    if (stride == 1 && cpu_has_avx2()) return leaf_f64_avx2(p, n, false);
  } else if constexpr (SkipNan && std::is_same_v<In, float>) {
    if (stride == 1 && cpu_has_avx2()) return leaf_f32_avx2(p, n, true);
  } else if constexpr (SkipNan && std::is_same_v<In, double>) {
    if (stride == 1 && cpu_has_avx2()) return leaf_f64_avx2(p, n, true);
  }
  Acc s0 = Acc(0), s1 = Acc(0), s2 = Acc(0), s3 = Acc(0);
  int64_t k = 0;
  auto get = [&](int64_t j) -> Acc {
    const Acc v = convert<Acc>(p[j * stride]);
    if constexpr (SkipNan) {
      if constexpr (is_complex_v<Acc>)
        return v;
      else
        return v != v ? Acc(0) : v;
    } else {
      return v;
    }
  };
  for (; k + 4 <= n; k += 4) {
    s0 += get(k), s1 += get(k + 1), s2 += get(k + 2), s3 += get(k + 3);
  }
  for (; k < n; k++) s0 += get(k);
  return (s0 + s1) + (s2 + s3);
}

// Pairwise sum of p[0, n) (stride in elements): halves down to leaves of kLeaf.
template <bool SkipNan, class In, class Acc>
Acc pairwise(const In* p, int64_t n, int64_t stride) {
  if (n <= kLeaf) return leaf<SkipNan, In, Acc>(p, n, stride);
  const int64_t h = ((n / 2) + 31) / 32 * 32;
  return pairwise<SkipNan, In, Acc>(p, h, stride) + pairwise<SkipNan, In, Acc>(p + h * stride, n - h, stride);
}

}  // namespace sumk

// Sum (or NaN-skipping sum) of In accumulated in Acc, written as Out after `finish`.
template <class In, class Acc, class Out, bool SkipNan = false>
struct SumOp {
  using in_t = In;
  using acc_t = Acc;
  Out* out;
  double divisor = 1;  // mean: the reduced count
  bool divide = false;
  Acc init() const { return Acc(0); }
  void run(Acc& acc, const In* p, int64_t n, int64_t stride, int64_t) const {
    if constexpr (std::is_integral_v<Acc>) {
      Acc s = 0;
      if (stride == 1)
        for (int64_t k = 0; k < n; k++) s += Acc(p[k]);
      else
        for (int64_t k = 0; k < n; k++) s += Acc(p[k * stride]);
      acc += s;
    } else {
      acc += sumk::pairwise<SkipNan, In, Acc>(p, n, stride);
    }
  }
  void rows(Acc* acc, const In* p, int64_t m, int64_t si, int64_t) const {
    if constexpr (!SkipNan && std::is_same_v<In, float> && std::is_same_v<Acc, float>) {
      if (si == 1 && cpu_has_avx2()) return sumk::add_rows_f32_avx2(acc, p, m);
    } else if constexpr (!SkipNan && std::is_same_v<In, double>) {
      if (si == 1 && cpu_has_avx2()) return sumk::add_rows_f64_avx2(acc, p, m);
    }
    for (int64_t i = 0; i < m; i++) {
      const Acc v = convert<Acc>(p[i * si]);
      if constexpr (SkipNan && !is_complex_v<Acc> && !std::is_integral_v<Acc>)
        acc[i] += v != v ? Acc(0) : v;
      else
        acc[i] += v;
    }
  }
  void merge(Acc& a, const Acc& b) const { a += b; }
  void write(const Acc& acc, int64_t o) const {
    if (divide) {
      if constexpr (is_complex_v<Acc>)
        out[o] = convert<Out>(acc / typename Acc::value_type(divisor));
      else if constexpr (std::is_floating_point_v<Acc>)
        out[o] = convert<Out>(acc / Acc(divisor));
      else
        out[o] = convert<Out>(acc);
    } else {
      out[o] = convert<Out>(acc);
    }
  }
};

}  // namespace ember
