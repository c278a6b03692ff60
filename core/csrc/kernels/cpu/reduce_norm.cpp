// norm (vector p-norms over dims: p = 2/'fro', 1, inf, -inf, 0, any other number) and logsumexp
// (a running max with the sum of exp rescaled as it moves, so no overflow and one pass).
#include <cmath>
#include <limits>

#include "generated/ops/logsumexp.h"
#include "generated/ops/norm.h"
#include "generated/ops/norm_p.h"
#include "kernels/cpu/reduce_common.h"
#include "kernels/functors.h"
#include "types/promotion.h"

namespace ember::ops {

namespace {

enum class NormKind { Two, One, Inf, NegInf, Zero, General };

template <class T>
struct NormAcc {
  double v;
  bool any;
};

template <class T>
struct NormOp : FoldOp<NormOp<T>, T, NormAcc<T>> {
  using Real = real_t<T>;
  using Acc = NormAcc<T>;
  Real* out;
  NormKind kind;
  double p;
  Acc init() const { return {kind == NormKind::NegInf ? std::numeric_limits<double>::infinity() : 0.0, false}; }
  void fold(Acc& a, T x, int64_t) const {
    double m;
    if constexpr (is_complex_v<T>)
      m = std::abs(complex128(x));
    else
      m = std::fabs(double(x));
    switch (kind) {
      case NormKind::Two:
        a.v += m * m;
        break;
      case NormKind::One:
        a.v += m;
        break;
      case NormKind::Zero:
        a.v += m != 0 ? 1.0 : 0.0;
        break;
      case NormKind::General:
        a.v += std::pow(m, p);
        break;
      case NormKind::Inf:
        if (!(a.v != a.v) && (m != m || m > a.v)) a.v = m;
        break;
      case NormKind::NegInf:
        if (!(a.v != a.v) && (m != m || m < a.v)) a.v = m;
        break;
    }
    a.any = true;
  }
  // A contiguous run of real values for the 2- and 1-norms: eight partial sums (so the loop
  // vectorizes without reassociating one sum), the element order otherwise as fold's.
  void run(Acc& a, const T* p, int64_t n, int64_t stride, int64_t idx0) const {
    if constexpr (!is_complex_v<T> && std::is_floating_point_v<T>) {
      if (stride == 1 && n >= 16 && (kind == NormKind::Two || kind == NormKind::One)) {
        double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int64_t k = 0;
        if (kind == NormKind::Two) {
          for (; k + 8 <= n; k += 8)
            for (int j = 0; j < 8; j++) part[j] += double(p[k + j]) * double(p[k + j]);
        } else {
          for (; k + 8 <= n; k += 8)
            for (int j = 0; j < 8; j++) part[j] += std::fabs(double(p[k + j]));
        }
        for (int j = 0; j < 8; j++) a.v += part[j];
        for (; k < n; k++) this->fold(a, p[k], idx0 + k);
        a.any = true;
        return;
      }
    }
    FoldOp<NormOp<T>, T, NormAcc<T>>::run(a, p, n, stride, idx0);
  }
  void merge(Acc& a, const Acc& b) const {
    if (!b.any) return;
    if (!a.any) {
      a = b;
      return;
    }
    if (kind == NormKind::Inf) {
      if (!(a.v != a.v) && (b.v != b.v || b.v > a.v)) a.v = b.v;
    } else if (kind == NormKind::NegInf) {
      if (!(a.v != a.v) && (b.v != b.v || b.v < a.v)) a.v = b.v;
    } else
      a.v += b.v;
  }
  void write(const Acc& a, int64_t o) const {
    double r = a.v;
    if (kind == NormKind::Two)
      r = std::sqrt(r);
    else if (kind == NormKind::General)
      r = std::pow(r, 1.0 / p);
    out[o] = Real(r);
  }
};

Tensor norm_impl(const Tensor& out, const Tensor& input, double p, const std::optional<DimVec>& dim, bool keepdim,
                 ScalarType dtype) {
  const ScalarType in = dtype != ScalarType::Undefined ? dtype : input.dtype();
  EMBER_CHECK(is_floating(in) || is_complex(in), Runtime,
              "norm(): input dtype should be either floating point or "
              "complex. Got ",
              dtype_name(in), " instead.");
  if (dtype != ScalarType::Undefined)
    EMBER_CHECK(is_floating(input.dtype()) || is_complex(input.dtype()), Runtime,
                "norm(): input dtype should be "
                "either floating point or complex. Got ",
                dtype_name(input.dtype()), " instead.");
  Tensor x = cast_for_dtype(input, dtype);
  const DimMask mask = reduce_mask(dim, x.dim(), "norm");
  NormKind kind = p == 2          ? NormKind::Two
                  : p == 1        ? NormKind::One
                  : p == 0        ? NormKind::Zero
                  : std::isinf(p) ? (p > 0 ? NormKind::Inf : NormKind::NegInf)
                                  : NormKind::General;
  if (kind == NormKind::Inf || kind == NormKind::NegInf) check_nonempty_reduction(x, mask, false, "norm");
  Tensor res = reduce_result(x, mask, keepdim, to_real(x.dtype()));
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<opmath_t<T>> || is_complex_v<T>) {
      launch_reduce(x, mask, res,
                    [&](const ReducePlan&) { return NormOp<T>{{}, res.data_as<typename NormOp<T>::Real>(), kind, p}; });
    }
  });
  if (out.defined() && dtype == ScalarType::Undefined) return write_out(out, cast_for_dtype(res, out.dtype()), "norm");
  return write_out(out, res, "norm");
}

double parse_p(const std::string& p, const std::optional<DimVec>& dim) {
  EMBER_CHECK(p != "nuc", NotImplemented,
              "norm(): p='nuc' (the nuclear norm) needs a singular value decomposition, "
              "which ember does not provide yet");
  EMBER_CHECK(p == "fro", Runtime, "norm(): unknown norm type '", p, "'; expected a number, 'fro' or 'nuc'");
  EMBER_CHECK(!dim || dim->size() <= 2, Runtime, "norm(): the Frobenius norm takes at most 2 dims, got ", dim->size());
  return 2.0;
}

struct Lse {
  double m, s;
};

template <class T>
struct LseOp : FoldOp<LseOp<T>, T, Lse> {
  T* out;
  Lse init() const { return {-std::numeric_limits<double>::infinity(), 0.0}; }
  static void add(Lse& a, double m, double s) {
    if (m > a.m) {
      a.s = a.s * std::exp(a.m - m) + s;
      a.m = m;
    } else if (m == a.m) {
      a.s += s;  // equal maxima (also both infinite) add without exp(inf - inf)
    } else {
      a.s += s * std::exp(m - a.m);  // a NaN m lands here and makes s NaN
    }
  }
  void fold(Lse& a, T x, int64_t) const { add(a, double(x), 1.0); }
  void merge(Lse& a, const Lse& b) const { add(a, b.m, b.s); }
  void write(const Lse& a, int64_t o) const {
    out[o] = T(std::isinf(a.m) && a.s > 0 && !std::isnan(a.s) ? a.m : a.m + std::log(a.s));
  }
};

}  // namespace

Tensor norm(const Tensor& input, const std::string& p, const std::optional<DimVec>& dim, bool keepdim,
            ScalarType dtype) {
  return norm_impl(Tensor(), input, parse_p(p, dim), dim, keepdim, dtype);
}
Tensor norm_out(const Tensor& out, const Tensor& input, const std::string& p, const std::optional<DimVec>& dim,
                bool keepdim, ScalarType dtype) {
  return norm_impl(out, input, parse_p(p, dim), dim, keepdim, dtype);
}
Tensor norm_p(const Tensor& input, const std::optional<Scalar>& p, const std::optional<DimVec>& dim, bool keepdim,
              ScalarType dtype) {
  return norm_impl(Tensor(), input, p ? p->to_double() : 2.0, dim, keepdim, dtype);
}
Tensor norm_p_out(const Tensor& out, const Tensor& input, const std::optional<Scalar>& p,
                  const std::optional<DimVec>& dim, bool keepdim, ScalarType dtype) {
  return norm_impl(out, input, p ? p->to_double() : 2.0, dim, keepdim, dtype);
}

Tensor logsumexp(const Tensor& input, const DimVec& dim, bool keepdim) {
  EMBER_CHECK(!is_complex(input.dtype()), NotImplemented, "logsumexp(): complex inputs are not supported");
  Tensor x = is_integral(input.dtype(), true) ? cast_for_dtype(input, default_dtype()) : input;
  const DimMask mask = reduce_mask(dim, x.dim(), "logsumexp");
  Tensor res = reduce_result(x, mask, keepdim, x.dtype());
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<opmath_t<T>>)
      launch_reduce(x, mask, res, [&](const ReducePlan&) { return LseOp<T>{{}, res.data_as<T>()}; });
  });
  return res;
}
Tensor logsumexp_out(const Tensor& out, const Tensor& input, const DimVec& dim, bool keepdim) {
  Tensor res = logsumexp(input, dim, keepdim);
  return write_out(out, res, "logsumexp");
}

}  // namespace ember::ops
