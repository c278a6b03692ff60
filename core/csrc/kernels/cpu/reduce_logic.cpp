// all, any (bool results; uint8 in, uint8 out as in PyTorch) and count_nonzero (int64).
#include "generated/ops/all.h"
#include "generated/ops/any.h"
#include "generated/ops/count_nonzero.h"
#include "kernels/cpu/reduce_common.h"

namespace ember::ops {

namespace {

// IsAll: every element nonzero; else some element nonzero. Out is bool or uint8.
template <class T, class Out, bool IsAll>
struct LogicOp : FoldOp<LogicOp<T, Out, IsAll>, T, uint8_t> {  // uint8_t: no vector<bool> in the engine
  Out* out;
  uint8_t init() const { return IsAll; }
  void fold(uint8_t& a, T v, int64_t) const {
    if constexpr (IsAll)
      a = a && convert<bool>(v);
    else
      a = a || convert<bool>(v);
  }
  void merge(uint8_t& a, const uint8_t& b) const { a = IsAll ? (a && b) : (a || b); }
  void write(const uint8_t& a, int64_t o) const { out[o] = Out(a != 0); }
};

template <class T>
struct CountOp : FoldOp<CountOp<T>, T, int64_t> {
  int64_t* out;
  int64_t init() const { return 0; }
  void fold(int64_t& a, T v, int64_t) const { a += convert<bool>(v) ? 1 : 0; }
  void merge(int64_t& a, const int64_t& b) const { a += b; }
  void write(const int64_t& a, int64_t o) const { out[o] = a; }
};

template <bool IsAll>
Tensor logic(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim, const char* name) {
  const ScalarType rdt = input.dtype() == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Bool;
  if (out.defined())
    EMBER_CHECK(out.dtype() == ScalarType::Bool || out.dtype() == ScalarType::UInt8, Runtime, name,
                "(): output dtype should be either Bool or UInt8 (Byte), got ", dtype_name(out.dtype()));
  const DimMask mask = reduce_mask(dim, input.dim(), name);
  Tensor res = reduce_result(input, mask, keepdim, out.defined() ? out.dtype() : rdt);
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    if (res.dtype() == ScalarType::UInt8)
      launch_reduce(input, mask, res,
                    [&](const ReducePlan&) { return LogicOp<T, uint8_t, IsAll>{{}, res.data_as<uint8_t>()}; });
    else
      launch_reduce(input, mask, res,
                    [&](const ReducePlan&) { return LogicOp<T, bool, IsAll>{{}, res.data_as<bool>()}; });
  });
  return write_out(out, res, name);
}

}  // namespace

Tensor all(const Tensor& input, const std::optional<DimVec>& dim, bool keepdim) {
  return logic<true>(Tensor(), input, dim, keepdim, "all");
}
Tensor all_out(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim) {
  return logic<true>(out, input, dim, keepdim, "all");
}
Tensor any(const Tensor& input, const std::optional<DimVec>& dim, bool keepdim) {
  return logic<false>(Tensor(), input, dim, keepdim, "any");
}
Tensor any_out(const Tensor& out, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim) {
  return logic<false>(out, input, dim, keepdim, "any");
}

Tensor count_nonzero(const Tensor& input, const std::optional<DimVec>& dim) {
  const DimMask mask = reduce_mask(dim, input.dim(), "count_nonzero");
  Tensor res = reduce_result(input, mask, false, ScalarType::Int64);
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    launch_reduce(input, mask, res, [&](const ReducePlan&) { return CountOp<T>{{}, res.data_as<int64_t>()}; });
  });
  return res;
}

}  // namespace ember::ops
