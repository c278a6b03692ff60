// prod: the product over one dim or all, with PyTorch's sum-like dtype rules (integers and bool
// multiply in int64; dtype= casts the input first; the product of no elements is 1).
#include "generated/ops/prod.h"
#include "kernels/cpu/reduce_common.h"

namespace ember::ops {

namespace {

template <class T, class Acc, class Out>
struct ProdOp : FoldOp<ProdOp<T, Acc, Out>, T, Acc> {
  Out* out;
  Acc init() const { return Acc(1); }
  void fold(Acc& a, T v, int64_t) const {
    if constexpr (std::is_integral_v<Acc>)
      a = Acc(uint64_t(a) * uint64_t(Acc(v)));  // wraps like PyTorch, no UB
    else
      a *= convert<Acc>(v);
  }
  void merge(Acc& a, const Acc& b) const {
    if constexpr (std::is_integral_v<Acc>)
      a = Acc(uint64_t(a) * uint64_t(b));
    else
      a *= b;
  }
  void write(const Acc& a, int64_t o) const { out[o] = convert<Out>(a); }
};

Tensor prod_impl(const Tensor& out, const Tensor& input, std::optional<int64_t> dim, bool keepdim, ScalarType dtype) {
  ScalarType want = dtype;
  if (want == ScalarType::Undefined)
    want = out.defined() ? out.dtype() : sum_result_dtype(input.dtype());
  else if (out.defined())
    check_out_dtype(out, want, "prod");
  const bool cast_first = want != input.dtype() && !(is_integral(want, true) && is_integral(input.dtype(), true));
  Tensor x = cast_first ? cast_for_dtype(input, want) : input;
  const DimMask mask = dim ? reduce_mask_one(*dim, x.dim()) : reduce_mask(std::nullopt, x.dim(), "prod");
  Tensor res = reduce_result(x, mask, keepdim, sum_result_dtype(x.dtype()));
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    using Acc = sum_acc_t<T>;
    using Out = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
    launch_reduce(x, mask, res, [&](const ReducePlan&) { return ProdOp<T, Acc, Out>{{}, res.data_as<Out>()}; });
  });
  if (res.dtype() != want) res = cast_for_dtype(res, want);
  return write_out(out, res, "prod");
}

}  // namespace

Tensor prod(const Tensor& input, std::optional<int64_t> dim, bool keepdim, ScalarType dtype) {
  return prod_impl(Tensor(), input, dim, keepdim, dtype);
}
Tensor prod_out(const Tensor& out, const Tensor& input, std::optional<int64_t> dim, bool keepdim, ScalarType dtype) {
  return prod_impl(out, input, dim, keepdim, dtype);
}

}  // namespace ember::ops
