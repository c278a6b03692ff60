// Dict primitives over the [key0, value0, key1, value1, ...] layout (prims_extra.h): construction,
// lookup (KeyError naming the key, as Python's), get/keys/values/items/pop/update/copy/clear,
// `in`, len and item assignment. Insertion order is kept, as Python's dicts keep it.
#include "jit/prims_extra.h"
#include "jit/script_error.h"

namespace ember::jit {

namespace {

using Ins = std::vector<RValue>;
using Outs = std::vector<RValue>;

std::vector<RValue>& slots(RValue& d) {
  EMBER_CHECK(d.is_seq(), Type, "expected a dict, got ", d.v.tag_name());
  return *d.seq;
}

// The slot of key k, or -1.
int64_t find_key(const std::vector<RValue>& s, const RValue& k) {
  for (size_t i = 0; i < s.size(); i += 2)
    if (values_equal(s[i], k)) return int64_t(i);
  return -1;
}

[[noreturn]] void key_error(const RValue& k) { throw ScriptException("KeyError", value_str(k)); }

void set_item(std::vector<RValue>& s, const RValue& k, const RValue& v) {
  int64_t i = find_key(s, k);
  if (i >= 0) {
    s[i + 1] = v;
    return;
  }
  s.push_back(k);
  s.push_back(v);
}

// Every key (half 0) or every value (half 1) as a new list.
RValue half(const RValue& d, size_t which) {
  const auto& s = d.items();
  std::vector<RValue> out;
  for (size_t i = which; i < s.size(); i += 2) out.push_back(s[i]);
  return RValue::sequence(std::move(out), false);
}

}  // namespace

const PrimTable& dict_prims() {
  static const PrimTable table = {
      {"prim::DictConstruct",
       [](const Node&, Ins& in) -> Outs {
         std::vector<RValue> s;
         for (size_t i = 0; i + 1 < in.size(); i += 2) set_item(s, in[i], in[i + 1]);
         return {RValue::sequence(std::move(s), false)};
       }},
      {"prim::DictIndex",
       [](const Node&, Ins& in) -> Outs {
         const auto& s = in[0].items();
         int64_t i = find_key(s, in[1]);
         if (i < 0) key_error(in[1]);
         return {s[i + 1]};
       }},
      {"prim::DictGet",
       [](const Node&, Ins& in) -> Outs {
         const auto& s = in[0].items();
         int64_t i = find_key(s, in[1]);
         return {i < 0 ? in[2] : s[i + 1]};
       }},
      {"prim::DictContains",
       [](const Node&, Ins& in) -> Outs { return {RValue(IValue(find_key(in[0].items(), in[1]) >= 0))}; }},
      {"prim::DictLen",
       [](const Node&, Ins& in) -> Outs { return {RValue(IValue(int64_t(in[0].items().size() / 2)))}; }},
      {"prim::DictKeys", [](const Node&, Ins& in) -> Outs { return {half(in[0], 0)}; }},
      {"prim::DictValues", [](const Node&, Ins& in) -> Outs { return {half(in[0], 1)}; }},
      {"prim::DictItems",
       [](const Node&, Ins& in) -> Outs {
         const auto& s = in[0].items();
         std::vector<RValue> out;
         for (size_t i = 0; i < s.size(); i += 2) out.push_back(RValue::sequence({s[i], s[i + 1]}, true));
         return {RValue::sequence(std::move(out), false)};
       }},
      {"prim::DictCopy", [](const Node&, Ins& in) -> Outs { return {RValue::sequence(in[0].items(), false)}; }},
      {"prim::DictSetItem",
       [](const Node&, Ins& in) -> Outs {
         set_item(slots(in[0]), in[1], in[2]);
         return {};
       }},
      {"prim::DictPop",  // (d, key): KeyError when absent
       [](const Node&, Ins& in) -> Outs {
         auto& s = slots(in[0]);
         int64_t i = find_key(s, in[1]);
         if (i < 0) key_error(in[1]);
         RValue v = s[i + 1];
         s.erase(s.begin() + i, s.begin() + i + 2);
         return {v};
       }},
      {"prim::DictPopDefault",  // (d, key, default)
       [](const Node&, Ins& in) -> Outs {
         auto& s = slots(in[0]);
         int64_t i = find_key(s, in[1]);
         if (i < 0) return {in[2]};
         RValue v = s[i + 1];
         s.erase(s.begin() + i, s.begin() + i + 2);
         return {v};
       }},
      {"prim::DictUpdate",
       [](const Node&, Ins& in) -> Outs {
         std::vector<RValue> more = in[1].items();  // a copy: d.update(d) is d
         auto& s = slots(in[0]);
         for (size_t i = 0; i < more.size(); i += 2) set_item(s, more[i], more[i + 1]);
         return {};
       }},
      {"prim::DictClear",
       [](const Node&, Ins& in) -> Outs {
         slots(in[0]).clear();
         return {};
       }},
  };
  return table;
}

}  // namespace ember::jit
