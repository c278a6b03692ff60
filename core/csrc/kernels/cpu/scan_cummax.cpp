// cummax, cummin: the running extreme and its index. As in PyTorch, an equal value moves the index
// to the later element, and a NaN wins from where it appears (each later NaN taking the index).
#include "generated/ops/cummax.h"
#include "generated/ops/cummin.h"
#include "iter/reduce_iter.h"
#include "kernels/cpu/scan_common.h"

namespace ember::ops {

namespace {

template <class V>
struct RunAcc {
  V v;
  int64_t i;
};

template <class T, bool IsMax>
struct CumExtremeOp {
  using V = opmath_t<T>;
  using in_t = T;
  using acc_t = RunAcc<V>;
  T* vals;
  int64_t* idx;
  acc_t init() const { return {V(), -1}; }
  static bool isnan_(V v) {
    if constexpr (std::is_floating_point_v<V>)
      return v != v;
    else
      return false;
  }
  void step(acc_t& a, T x, int64_t l) const {
    const V v = V(x);
    if (a.i < 0 || isnan_(v) || (!isnan_(a.v) && (IsMax ? v >= a.v : v <= a.v))) a = {v, l};
  }
  void emit(const acc_t& a, int64_t o) const {
    vals[o] = convert<T>(a.v);
    idx[o] = a.i;
  }
};

template <bool IsMax>
std::tuple<Tensor, Tensor> cum_extreme(const Tensor& input, int64_t dim, const char* name) {
  EMBER_CHECK(!is_complex(input.dtype()), Runtime, name, "(): does not support complex input (",
              dtype_name(input.dtype()), ")");
  const int64_t d = wrap_dim(dim, input.dim());
  Tensor vals = empty(input.sizes(), input.dtype(), input.device());
  Tensor idx = empty(input.sizes(), ScalarType::Int64, input.device());
  if (!input.is_meta() && input.numel()) {
    ScanPlan plan = make_scan_plan(input, input.dim() ? d : 0);
    visit_dtype(input.dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (!is_complex_v<T>) run_scan(plan, CumExtremeOp<T, IsMax>{vals.data_as<T>(), idx.data_as<int64_t>()});
    });
  }
  return {vals, idx};
}

template <bool IsMax>
std::tuple<Tensor, Tensor> cum_extreme_out(const Tensor& values, const Tensor& indices, const Tensor& input,
                                           int64_t dim, const char* name) {
  check_out_dtype(values, input.dtype(), name);
  check_out_dtype(indices, ScalarType::Int64, name);
  auto [v, i] = cum_extreme<IsMax>(input, dim, name);
  write_out(values, v, name);
  write_out(indices, i, name);
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> cummax(const Tensor& input, int64_t dim) { return cum_extreme<true>(input, dim, "cummax"); }
std::tuple<Tensor, Tensor> cummax_out(const Tensor& values, const Tensor& indices, const Tensor& input, int64_t dim) {
  return cum_extreme_out<true>(values, indices, input, dim, "cummax");
}
std::tuple<Tensor, Tensor> cummin(const Tensor& input, int64_t dim) { return cum_extreme<false>(input, dim, "cummin"); }
std::tuple<Tensor, Tensor> cummin_out(const Tensor& values, const Tensor& indices, const Tensor& input, int64_t dim) {
  return cum_extreme_out<false>(values, indices, input, dim, "cummin");
}

}  // namespace ember::ops
