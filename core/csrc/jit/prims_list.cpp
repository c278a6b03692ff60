// List primitives: slicing (also the bounds tensor slicing uses), concatenation and repetition, the
// list methods (extend/insert/pop/remove/index/count/reverse/sort/copy/clear), `in` and item assignment.
// Each raises Python's exception type and message for bad input.
#include <algorithm>

#include "jit/prims_extra.h"
#include "jit/script_error.h"

namespace ember::jit {

namespace {

using Ins = std::vector<RValue>;
using Outs = std::vector<RValue>;

RValue int_value(int64_t i) { return RValue(IValue(i)); }

std::vector<RValue>& items_of(RValue& r) {
  EMBER_CHECK(r.is_seq(), Type, "expected a list, got ", r.v.tag_name());
  return *r.seq;
}

int64_t wrap_index(int64_t i, size_t size, const char* what) {
  int64_t n = int64_t(size);
  EMBER_CHECK(i >= -n && i < n, Index, what);
  return i < 0 ? i + n : i;
}

struct SliceBounds {
  int64_t start, step, count;
};

// Python's slice.indices(len) followed by the element count (PySlice_AdjustIndices).
SliceBounds slice_bounds(int64_t len, const RValue& start, const RValue& stop, const RValue& step) {
  int64_t st = step.v.is_none() ? 1 : step.v.to_int();
  EMBER_CHECK(st != 0, Value, "slice step cannot be zero");
  auto clamp = [&](const RValue& r, int64_t dflt) {
    if (r.v.is_none()) return dflt;
    int64_t i = r.v.to_int();
    if (i < 0) {
      i += len;
      if (i < 0) i = st < 0 ? -1 : 0;
    } else if (i >= len) {
      i = st < 0 ? len - 1 : len;
    }
    return i;
  };
  int64_t a = clamp(start, st < 0 ? len - 1 : 0), b = clamp(stop, st < 0 ? -1 : len);
  int64_t count = 0;
  if (st > 0 && a < b) count = (b - a - 1) / st + 1;
  if (st < 0 && b < a) count = (a - b - 1) / (-st) + 1;
  return {a, st, count};
}

bool less(const RValue& a, const RValue& b) {
  const IValue &x = a.v, &y = b.v;
  if (x.tag() == IValue::Tag::Str && y.tag() == IValue::Tag::Str) return x.to_str() < y.to_str();
  if (x.tag() == IValue::Tag::Double || y.tag() == IValue::Tag::Double) return x.to_double() < y.to_double();
  EMBER_CHECK(!a.is_seq() && !b.is_seq() && !x.is_tensor() && !x.is_none(), Runtime,
              "sort() supports lists of int, float, bool and str");
  return x.to_int() < y.to_int();
}

}  // namespace

const PrimTable& list_prims() {
  static const PrimTable table = {
      // (len, start?, stop?, step?) -> (start, span): the narrowed range holding every picked position, for a
      // positive step (tensors take no other)
      {"prim::slice_bounds",
       [](const Node&, Ins& in) -> Outs {
         SliceBounds b = slice_bounds(in[0].v.to_int(), in[1], in[2], in[3]);
         EMBER_CHECK(b.step > 0, Value, "step must be greater than zero");
         int64_t start = b.count ? b.start : std::min<int64_t>(b.start, in[0].v.to_int());
         return {int_value(start), int_value(b.count ? (b.count - 1) * b.step + 1 : 0)};
       }},
      {"prim::ListSlice",
       [](const Node&, Ins& in) -> Outs {
         const auto& items = in[0].items();
         SliceBounds b = slice_bounds(int64_t(items.size()), in[1], in[2], in[3]);
         std::vector<RValue> out;
         out.reserve(b.count);
         for (int64_t k = 0, i = b.start; k < b.count; k++, i += b.step) out.push_back(items[i]);
         return {RValue::sequence(std::move(out), false)};
       }},
      {"prim::ListAdd",
       [](const Node&, Ins& in) -> Outs {
         std::vector<RValue> out = in[0].items();
         const auto& more = in[1].items();
         out.insert(out.end(), more.begin(), more.end());
         return {RValue::sequence(std::move(out), false)};
       }},
      {"prim::ListMul",
       [](const Node&, Ins& in) -> Outs {
         const auto& items = in[0].items();
         std::vector<RValue> out;
         for (int64_t k = 0; k < in[1].v.to_int(); k++) out.insert(out.end(), items.begin(), items.end());
         return {RValue::sequence(std::move(out), false)};
       }},
      {"prim::list_min",
       [](const Node&, Ins& in) -> Outs {
         const auto& items = in[0].items();
         EMBER_CHECK(!items.empty(), Value, "min() arg is an empty sequence");
         RValue best = items[0];
         for (const RValue& x : items)
           if (less(x, best)) best = x;
         return {best};
       }},
      {"prim::list_max",
       [](const Node&, Ins& in) -> Outs {
         const auto& items = in[0].items();
         EMBER_CHECK(!items.empty(), Value, "max() arg is an empty sequence");
         RValue best = items[0];
         for (const RValue& x : items)
           if (less(best, x)) best = x;
         return {best};
       }},
      {"prim::ListCopy", [](const Node&, Ins& in) -> Outs { return {RValue::sequence(in[0].items(), false)}; }},
      {"prim::ListContains",
       [](const Node&, Ins& in) -> Outs {
         for (const RValue& x : in[0].items())
           if (values_equal(x, in[1])) return {RValue(IValue(true))};
         return {RValue(IValue(false))};
       }},
      {"prim::ListCount",
       [](const Node&, Ins& in) -> Outs {
         int64_t n = 0;
         for (const RValue& x : in[0].items()) n += values_equal(x, in[1]);
         return {int_value(n)};
       }},
      {"prim::ListIndexOf",
       [](const Node&, Ins& in) -> Outs {
         const auto& items = in[0].items();
         for (size_t i = 0; i < items.size(); i++)
           if (values_equal(items[i], in[1])) return {int_value(int64_t(i))};
         EMBER_FAIL(Value, value_str(in[1], true), " is not in list");
       }},
      {"prim::ListExtend",
       [](const Node&, Ins& in) -> Outs {
         std::vector<RValue> more = in[1].items();  // a copy: l.extend(l) doubles l
         auto& items = items_of(in[0]);
         items.insert(items.end(), more.begin(), more.end());
         return {};
       }},
      {"prim::ListInsert",
       [](const Node&, Ins& in) -> Outs {
         auto& items = items_of(in[0]);
         int64_t n = int64_t(items.size()), i = in[1].v.to_int();
         if (i < 0) i = std::max<int64_t>(i + n, 0);
         items.insert(items.begin() + std::min(i, n), in[2]);
         return {};
       }},
      {"prim::ListPop",
       [](const Node&, Ins& in) -> Outs {
         auto& items = items_of(in[0]);
         EMBER_CHECK(!items.empty(), Index, "pop from empty list");
         int64_t i = wrap_index(in[1].v.to_int(), items.size(), "pop index out of range");
         RValue out = items[i];
         items.erase(items.begin() + i);
         return {out};
       }},
      {"prim::ListRemove",
       [](const Node&, Ins& in) -> Outs {
         auto& items = items_of(in[0]);
         for (size_t i = 0; i < items.size(); i++) {
           if (!values_equal(items[i], in[1])) continue;
           items.erase(items.begin() + i);
           return {};
         }
         EMBER_FAIL(Value, "list.remove(x): x not in list");
       }},
      {"prim::ListReverse",
       [](const Node&, Ins& in) -> Outs {
         auto& items = items_of(in[0]);
         std::reverse(items.begin(), items.end());
         return {};
       }},
      {"prim::ListSort",
       [](const Node&, Ins& in) -> Outs {
         auto& items = items_of(in[0]);
         bool reverse = in[1].v.to_bool();
         // stable, and reverse=True keeps equal items in their order, as Python's sort does
         std::stable_sort(items.begin(), items.end(),
                          [&](const RValue& a, const RValue& b) { return reverse ? less(b, a) : less(a, b); });
         return {};
       }},
      {"prim::ListClear",
       [](const Node&, Ins& in) -> Outs {
         items_of(in[0]).clear();
         return {};
       }},
      {"prim::ListSetItem",
       [](const Node&, Ins& in) -> Outs {
         auto& items = items_of(in[0]);
         items[wrap_index(in[1].v.to_int(), items.size(), "list assignment index out of range")] = in[2];
         return {};
       }},
  };
  return table;
}

}  // namespace ember::jit
