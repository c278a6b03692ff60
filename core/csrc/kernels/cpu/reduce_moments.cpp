// var, std, var_mean, std_mean: Welford's update in double (Chan's formula to merge partials),
// divided by max(0, N - correction); complex inputs give a real variance (both parts' spread).
#include "generated/ops/std.h"
#include "generated/ops/std_mean.h"
#include "generated/ops/var.h"
#include "generated/ops/var_mean.h"
#include "kernels/cpu/reduce_common.h"
#include "kernels/functors.h"

namespace ember::ops {

namespace {

template <class C>
struct Moments {
  double n;
  C mean;
  double m2;
};

inline double sq_abs(double v) { return v * v; }
inline double sq_abs(complex128 v) { return std::norm(v); }
inline double re_mul_conj(double a, double b) { return a * b; }
inline double re_mul_conj(complex128 a, complex128 b) { return (std::conj(a) * b).real(); }

// T the input type; writes the variance or std (Real) and optionally the mean (T).
template <class T>
struct MomentsOp : FoldOp<MomentsOp<T>, T, Moments<std::conditional_t<is_complex_v<T>, complex128, double>>> {
  using C = std::conditional_t<is_complex_v<T>, complex128, double>;
  using Real = real_t<T>;
  using Acc = Moments<C>;
  Real* var = nullptr;
  T* mean = nullptr;
  double correction = 1;
  bool take_sqrt = false;
  Acc init() const { return {0, C(0), 0}; }
  void fold(Acc& a, T x, int64_t) const {
    const C v = convert<C>(x);
    a.n += 1;
    const C delta = v - a.mean;
    a.mean += delta / a.n;
    a.m2 += re_mul_conj(delta, v - a.mean);
  }
  void merge(Acc& a, const Acc& b) const {
    if (b.n == 0) return;
    if (a.n == 0) {
      a = b;
      return;
    }
    const double n = a.n + b.n;
    const C delta = b.mean - a.mean;
    a.mean += delta * (b.n / n);
    a.m2 += b.m2 + sq_abs(delta) * (a.n * b.n / n);
    a.n = n;
  }
  void write(const Acc& a, int64_t o) const {
    const double denom = std::max(0.0, a.n - correction);
    double v = a.m2 / denom;
    if (take_sqrt) v = std::sqrt(v);
    var[o] = convert<Real>(v);
    if (mean) mean[o] = a.n == 0 ? convert<T>(std::nan("")) : convert<T>(a.mean);
  }
};

double pick_correction(const char* name, std::optional<bool> unbiased, const std::optional<Scalar>& correction) {
  EMBER_CHECK(!(unbiased && correction), Runtime, name, "(): Cannot specify both unbiased and correction");
  if (correction) return correction->to_double();
  return unbiased && !*unbiased ? 0.0 : 1.0;
}

// Returns {var or std, mean (undefined unless with_mean)}.
std::vector<Tensor> moments(const Tensor& input, const std::optional<DimVec>& dim, std::optional<bool> unbiased,
                            bool keepdim, const std::optional<Scalar>& correction, bool take_sqrt, bool with_mean,
                            const char* name) {
  EMBER_CHECK(is_floating(input.dtype()) || is_complex(input.dtype()), Runtime, name,
              "(): std and var only support floating point and complex dtypes, got ", dtype_name(input.dtype()));
  const double corr = pick_correction(name, unbiased, correction);
  const DimMask mask = reduce_mask(dim, input.dim(), name);
  Tensor var = reduce_result(input, mask, keepdim, to_real(input.dtype()));
  Tensor mean = with_mean ? reduce_result(input, mask, keepdim, input.dtype()) : Tensor();
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<opmath_t<T>> || is_complex_v<T>) {
      launch_reduce(input, mask, var, [&](const ReducePlan&) {
        MomentsOp<T> op;
        op.var = var.data_as<typename MomentsOp<T>::Real>();
        op.mean = with_mean ? mean.data_as<T>() : nullptr;
        op.correction = corr;
        op.take_sqrt = take_sqrt;
        return op;
      });
    }
  });
  return {var, mean};
}

}  // namespace

Tensor var(const Tensor& input, const std::optional<DimVec>& dim, std::optional<bool> unbiased, bool keepdim,
           const std::optional<Scalar>& correction) {
  return moments(input, dim, unbiased, keepdim, correction, false, false, "var")[0];
}
Tensor var_out(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, std::optional<bool> unbiased,
               bool keepdim, const std::optional<Scalar>& correction) {
  return write_out(out, var(input, dim, unbiased, keepdim, correction), "var");
}
Tensor std(const Tensor& input, const std::optional<DimVec>& dim, std::optional<bool> unbiased, bool keepdim,
           const std::optional<Scalar>& correction) {
  return moments(input, dim, unbiased, keepdim, correction, true, false, "std")[0];
}
Tensor std_out(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, std::optional<bool> unbiased,
               bool keepdim, const std::optional<Scalar>& correction) {
  return write_out(out, ops::std(input, dim, unbiased, keepdim, correction), "std");
}
std::vector<Tensor> var_mean(const Tensor& input, const std::optional<DimVec>& dim, std::optional<bool> unbiased,
                             bool keepdim, const std::optional<Scalar>& correction) {
  return moments(input, dim, unbiased, keepdim, correction, false, true, "var_mean");
}
std::vector<Tensor> std_mean(const Tensor& input, const std::optional<DimVec>& dim, std::optional<bool> unbiased,
                             bool keepdim, const std::optional<Scalar>& correction) {
  return moments(input, dim, unbiased, keepdim, correction, true, true, "std_mean");
}

}  // namespace ember::ops
