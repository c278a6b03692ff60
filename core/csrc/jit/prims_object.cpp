// Object primitives (jit/object.h): a scripted class's construction and attribute reads and writes (by
// slot index, a constant input), and a C++ class's construction and method calls through its boxed
// methods.
#include "jit/object.h"
#include "jit/prims_extra.h"

namespace ember::jit {

namespace {

using Ins = std::vector<RValue>;
using Outs = std::vector<RValue>;

Object& object_of(const RValue& r) {
  EMBER_CHECK(r.obj, Runtime, "expected an object, got ", r.is_none() ? "None" : "a value of another type");
  return *r.obj;
}

size_t slot_of(Object& o, const RValue& index) {
  int64_t i = index.v.to_int();
  EMBER_CHECK(i >= 0 && size_t(i) < o.slots.size(), Runtime, "attribute slot ", i, " out of range for ", o.cls->name);
  return size_t(i);
}

bool matches(const RValue& r, const Type& t);

// Whether r's run-time value is of the script type (or bare container kind) `name`. Run-time lists carry
// no element type, so List[T] asks each element (an empty list is a List of every T).
bool is_instance(const RValue& r, const std::string& name) {
  if (r.is_seq() && (name == "List" || name == "Tuple" || name == "Dict"))
    return name == (r.tuple ? "Tuple" : "List") || (!r.tuple && name == "Dict");
  if (name.find('[') != std::string::npos) return matches(r, *Type::parse(name));
  if (r.obj) return name == r.obj->cls->name;
  if (r.is_seq()) return false;
  switch (r.v.tag()) {
    case IValue::Tag::None:
      return name == "NoneType";
    case IValue::Tag::Tensor:
      return name == "Tensor";
    case IValue::Tag::Int:
      return name == "int";
    case IValue::Tag::Double:
      return name == "float";
    case IValue::Tag::Bool:
      return name == "bool";
    case IValue::Tag::Str:
      return name == "str";
    default:
      return false;
  }
}

bool matches(const RValue& r, const Type& t) {
  using K = Type::Kind;
  switch (t.kind) {
    case K::Any:
      return true;
    case K::Optional:
      return r.is_none() || matches(r, *t.elems[0]);
    case K::Union:
      for (const auto& e : t.elems)
        if (matches(r, *e)) return true;
      return false;
    case K::List:
      if (!r.is_seq() || r.tuple) return false;
      for (const RValue& x : *r.seq)
        if (!matches(x, *t.elems[0])) return false;
      return true;
    case K::Tuple:
      if (!r.is_seq() || !r.tuple || r.seq->size() != t.elems.size()) return false;
      for (size_t i = 0; i < t.elems.size(); i++)
        if (!matches((*r.seq)[i], *t.elems[i])) return false;
      return true;
    case K::Dict:
      if (!r.is_seq() || r.tuple) return false;
      for (size_t i = 0; i + 1 < r.seq->size(); i += 2)
        if (!matches((*r.seq)[i], *t.elems[0]) || !matches((*r.seq)[i + 1], *t.elems[1])) return false;
      return true;
    case K::Future:
      return bool(r.future);
    default:
      return is_instance(r, t.str());
  }
}

const MethodDef& method_of(const ClassDef& c, const std::string& name) {
  const MethodDef* m = c.method(name);
  EMBER_CHECK(m, Runtime, "the C++ class ", c.name, " has no method '", name, "'");
  return *m;
}

}  // namespace

const PrimTable& object_prims() {
  static const PrimTable table = {
      // (value, "T1|T2|..."): isinstance of a Union or Any value, by its run-time kind
      {"prim::IsInstance",
       [](const Node&, Ins& in) -> Outs {
         const std::string& names = in[1].v.to_str();
         size_t start = 0;
         while (start <= names.size()) {
           size_t bar = names.find('|', start);
           if (bar == std::string::npos) bar = names.size();
           if (is_instance(in[0], names.substr(start, bar - start))) return {RValue(IValue(true))};
           start = bar + 1;
         }
         return {RValue(IValue(false))};
       }},
      {"prim::CreateObject",
       [](const Node& n, Ins&) -> Outs { return {new_object(get_class(n.outputs[0]->type->name))}; }},
      {"prim::GetAttr",
       [](const Node&, Ins& in) -> Outs {
         Object& o = object_of(in[0]);
         return {o.slots[slot_of(o, in[1])]};
       }},
      {"prim::SetAttr",
       [](const Node&, Ins& in) -> Outs {
         Object& o = object_of(in[0]);
         o.slots[slot_of(o, in[1])] = in[2];
         return {};
       }},
      // (args...) -> a new object of the output's C++ class, by its __init__
      {"prim::CustomNew",
       [](const Node& n, Ins& in) -> Outs {
         auto cls = get_class(n.outputs[0]->type->name);
         return {method_of(*cls, "__init__").fn(in)};
       }},
      // (method name, self, args...): the method's result, None for a void one
      {"prim::CallCustom",
       [](const Node& n, Ins& in) -> Outs {
         const Object& o = object_of(in[1]);
         const MethodDef& m = method_of(*o.cls, in[0].v.to_str());
         std::vector<RValue> args(in.begin() + 1, in.end());
         RValue out = m.fn(args);
         if (n.outputs.empty()) return {};
         return {std::move(out)};
       }},
  };
  return table;
}

}  // namespace ember::jit
