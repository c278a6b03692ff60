// prim::tensor: ember.tensor(data, dtype) in scripted code, for data that is a number or a (nested,
// rectangular) list of numbers: the dtype inferred as eager ember.tensor infers it (bools -> bool, ints ->
// int64, any float -> the default dtype) unless given. prim::StrToInt: int(s) of a str.
#include "generated/ops/_to_copy.h"
#include "jit/prims_extra.h"
#include "jit/script_error.h"
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

// Python's int(s) for a str s: surrounding white space, a sign, digits with single underscores between them.
int64_t parse_int(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && isspace(static_cast<unsigned char>(s[b]))) b++;
  while (e > b && isspace(static_cast<unsigned char>(s[e - 1]))) e--;
  size_t i = b;
  bool negative = i < e && s[i] == '-';
  if (i < e && (s[i] == '-' || s[i] == '+')) i++;
  bool ok = i < e && isdigit(static_cast<unsigned char>(s[i]));
  int64_t v = 0;
  for (; ok && i < e; i++) {
    if (s[i] == '_' && i + 1 < e && isdigit(static_cast<unsigned char>(s[i + 1])) && i > b &&
        isdigit(static_cast<unsigned char>(s[i - 1])))
      continue;
    if (!isdigit(static_cast<unsigned char>(s[i])))
      ok = false;
    else
      v = v * 10 + (s[i] - '0');
  }
  if (!ok) throw ScriptException("ValueError", "invalid literal for int() with base 10: '" + s + "'");
  return negative ? -v : v;
}

}  // namespace

const PrimTable& list_tensor_prims() {
  static const PrimTable table = {
      {"prim::StrToInt",
       [](const Node&, std::vector<RValue>& in) -> std::vector<RValue> {
         return {RValue(IValue(parse_int(in[0].v.to_str())))};
       }},
      {"prim::tensor",
       [](const Node&, std::vector<RValue>& in) -> std::vector<RValue> {
         Flat f;
         walk(in[0], 0, f);
         ScalarType inferred = f.any_float                       ? default_dtype()
                               : f.all_bool && !f.values.empty() ? ScalarType::Bool
                               : f.values.empty()                ? default_dtype()
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
