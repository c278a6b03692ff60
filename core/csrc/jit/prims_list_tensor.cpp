// prim::tensor: ember.tensor(data, dtype) in scripted code, for data that is a number or a (nested,
// rectangular) list of numbers: the dtype inferred as eager ember.tensor infers it (bools -> bool, ints ->
// int64, any float -> the default dtype) unless given.
#include "generated/ops/_to_copy.h"
#include "jit/prims_extra.h"
#include "tensor/factory.h"
#include "types/promotion.h"

namespace ember::jit {

namespace {

struct Flat {
  DimVec sizes;
  std::vector<double> values;
  bool any_float = false, all_bool = true;
};

void walk(const RValue& r, size_t dim, Flat& f) {
  if (r.is_seq()) {
    const auto& items = r.items();
    if (dim == f.sizes.size()) {
      EMBER_CHECK(f.values.empty() || dim > 0, Value, "tensor(): ragged nested sequence");
      f.sizes.push_back(int64_t(items.size()));
    }
    EMBER_CHECK(dim < f.sizes.size() && f.sizes[dim] == int64_t(items.size()), Value, "expected sequence of length ",
                dim < f.sizes.size() ? f.sizes[dim] : 0, " at dim ", dim, " (got ", items.size(), ")");
    for (const RValue& x : items) walk(x, dim + 1, f);
    return;
  }
  EMBER_CHECK(dim == f.sizes.size(), Value, "tensor(): ragged nested sequence (a number where a list of length ",
              dim < f.sizes.size() ? f.sizes[dim] : 0, " was expected at dim ", dim, ")");
  switch (r.v.tag()) {
    case IValue::Tag::Bool:
      f.values.push_back(r.v.to_bool() ? 1.0 : 0.0);
      return;
    case IValue::Tag::Int:
      f.all_bool = false;
      f.values.push_back(double(r.v.to_int()));
      return;
    case IValue::Tag::Double:
      f.all_bool = false;
      f.any_float = true;
      f.values.push_back(r.v.to_double());
      return;
    default:
      EMBER_FAIL(Type, "tensor(): expected numbers or lists of numbers, got ", r.v.tag_name());
  }
}

}  // namespace

const PrimTable& list_tensor_prims() {
  static const PrimTable table = {
      {"prim::tensor",
       [](const Node&, std::vector<RValue>& in) -> std::vector<RValue> {
         Flat f;
         walk(in[0], 0, f);
         ScalarType inferred = f.any_float           ? default_dtype()
                               : f.all_bool && !f.values.empty() ? ScalarType::Bool
                               : f.values.empty()    ? default_dtype()
                                                     : ScalarType::Int64;
         // exact for ints up to 2^53, as the values pass through doubles
         Tensor t = empty(f.sizes, ScalarType::Float64);
         std::copy(f.values.begin(), f.values.end(), t.data_as<double>());
         ScalarType want = in[1].is_none() ? inferred : ScalarType(in[1].v.to_int());
         return {RValue(IValue(ops::_to_copy(t, want, std::nullopt)))};
       }},
  };
  return table;
}

}  // namespace ember::jit
