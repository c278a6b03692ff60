// cumsum, cumprod (integers and bool accumulate to int64, floats in double as PyTorch's CPU
// kernels do; dtype= casts first) and logcumsumexp (a running log-sum-exp in double).
#include <cmath>
#include <limits>

#include "generated/ops/cumprod.h"
#include "generated/ops/cumsum.h"
#include "generated/ops/logcumsumexp.h"
#include "iter/reduce_iter.h"
#include "kernels/cpu/scan_common.h"
#include "tensor/mem_overlap.h"

namespace ember::ops {

namespace {

template <class T>
using cum_acc_t =
    std::conditional_t<std::is_integral_v<T>, int64_t, std::conditional_t<is_complex_v<T>, complex128, double>>;

template <class T, bool IsProd>
struct CumOp {
  using in_t = T;
  using acc_t = cum_acc_t<T>;
  using Out = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
  Out* out;
  acc_t init() const { return acc_t(IsProd ? 1 : 0); }
  void step(acc_t& a, T v, int64_t) const {
    if constexpr (std::is_integral_v<acc_t>) {
      // wrap-around arithmetic without signed-overflow UB
      a = IsProd ? acc_t(uint64_t(a) * uint64_t(acc_t(v))) : acc_t(uint64_t(a) + uint64_t(acc_t(v)));
    } else {
      if constexpr (IsProd)
        a *= convert<acc_t>(v);
      else
        a += convert<acc_t>(v);
    }
  }
  void emit(const acc_t& a, int64_t o) const { out[o] = convert<Out>(a); }
};

template <bool IsProd>
Tensor cum_impl(const Tensor& input, int64_t dim, ScalarType dtype, const char* name) {
  const int64_t d = wrap_dim(dim, input.dim());
  Tensor x = input;
  if (dtype != ScalarType::Undefined && dtype != input.dtype())
    x = input.is_meta() ? empty(input.sizes(), dtype, input.device()) : to_dtype(input, dtype);
  const ScalarType rdt = is_integral(x.dtype(), true) ? ScalarType::Int64 : x.dtype();
  Tensor res = empty(x.sizes(), rdt, x.device());
  if (!x.is_meta() && x.numel()) {
    ScanPlan plan = make_scan_plan(x, x.dim() ? d : 0);
    visit_dtype(x.dtype(), [&](auto z) {
      using T = decltype(z);
      using Op = CumOp<T, IsProd>;
      run_scan(plan, Op{res.data_as<typename Op::Out>()});
    });
  }
  if (dtype != ScalarType::Undefined && res.dtype() != dtype)
    res = res.is_meta() ? empty(res.sizes(), dtype, res.device()) : to_dtype(res, dtype);
  (void)name;
  return res;
}

template <bool IsProd>
Tensor cum_out(const Tensor& out, const Tensor& input, int64_t dim, ScalarType dtype, const char* name) {
  if (dtype != ScalarType::Undefined) check_out_dtype(out, dtype, name);
  assert_no_internal_overlap(out, name);
  assert_no_partial_overlap(out, input, name);  // out=input is fine: each element is read before it is written
  Tensor res = cum_impl<IsProd>(input, dim, dtype == ScalarType::Undefined ? out.dtype() : dtype, name);
  return write_out(out, res, name);
}

template <bool IsProd>
Tensor cum_inplace(const Tensor& self, int64_t dim, ScalarType dtype, const char* name) {
  if (dtype != ScalarType::Undefined) check_out_dtype(self, dtype, name);
  Tensor res = cum_impl<IsProd>(self, dim, self.dtype(), name);
  if (!self.is_meta()) {
    copy_(self, res);
    self.bump_version();
  }
  return self;
}

struct LseAcc {
  double m, s;
};

template <class T>
struct LogCumOp {
  using in_t = T;
  using acc_t = LseAcc;
  T* out;
  acc_t init() const { return {-std::numeric_limits<double>::infinity(), 0.0}; }
  void step(acc_t& a, T x, int64_t) const {
    const double v = double(x);
    if (v > a.m) {
      a.s = a.s * std::exp(a.m - v) + 1.0;
      a.m = v;
    } else if (v == a.m) {
      a.s += 1.0;
    } else {
      a.s += std::exp(v - a.m);
    }
  }
  void emit(const acc_t& a, int64_t o) const { out[o] = T(a.m + std::log(a.s)); }
};

Tensor logcumsumexp_impl(const Tensor& input, int64_t dim) {
  EMBER_CHECK(is_floating(input.dtype()), Runtime, "logcumsumexp(): expected a floating point input, got ",
              dtype_name(input.dtype()));
  const int64_t d = wrap_dim(dim, input.dim());
  Tensor res = empty(input.sizes(), input.dtype(), input.device());
  if (!input.is_meta() && input.numel()) {
    ScanPlan plan = make_scan_plan(input, input.dim() ? d : 0);
    visit_dtype(input.dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (std::is_floating_point_v<opmath_t<T>>) run_scan(plan, LogCumOp<T>{res.data_as<T>()});
    });
  }
  return res;
}

}  // namespace

Tensor cumsum(const Tensor& input, int64_t dim, ScalarType dtype) {
  return cum_impl<false>(input, dim, dtype, "cumsum");
}
Tensor cumsum_(const Tensor& input, int64_t dim, ScalarType dtype) {
  return cum_inplace<false>(input, dim, dtype, "cumsum_");
}
Tensor cumsum_out(const Tensor& out, const Tensor& input, int64_t dim, ScalarType dtype) {
  return cum_out<false>(out, input, dim, dtype, "cumsum");
}
Tensor cumprod(const Tensor& input, int64_t dim, ScalarType dtype) {
  return cum_impl<true>(input, dim, dtype, "cumprod");
}
Tensor cumprod_(const Tensor& input, int64_t dim, ScalarType dtype) {
  return cum_inplace<true>(input, dim, dtype, "cumprod_");
}
Tensor cumprod_out(const Tensor& out, const Tensor& input, int64_t dim, ScalarType dtype) {
  return cum_out<true>(out, input, dim, dtype, "cumprod");
}
Tensor logcumsumexp(const Tensor& input, int64_t dim) { return logcumsumexp_impl(input, dim); }
Tensor logcumsumexp_out(const Tensor& out, const Tensor& input, int64_t dim) {
  return write_out(out, logcumsumexp_impl(input, dim), "logcumsumexp");
}

}  // namespace ember::ops
