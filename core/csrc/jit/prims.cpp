// The language's primitives (every node kind but If, Loop, Constant and op-table ops): containers,
// Python's int/float/bool arithmetic and comparisons, casts, Optional checks and raise.
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "base/trace.h"
#include "jit/ir.h"
#include "jit/prims_extra.h"
#include "jit/script_error.h"
#include "types/dtype.h"

namespace ember::jit {

namespace {

using Ins = std::vector<RValue>;
using Outs = std::vector<RValue>;

bool is_float(const RValue& r) { return !r.is_seq() && r.v.tag() == IValue::Tag::Double; }
int64_t as_int(const RValue& r) { return r.v.to_int(); }
double as_double(const RValue& r) { return r.v.to_double(); }

// Python's floor division and modulo for ints; ZeroDivisionError on a zero divisor, as Python raises.
int64_t floordiv(int64_t a, int64_t b) {
  EMBER_CHECK(b != 0, ZeroDivision, "integer division or modulo by zero");
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t pymod(int64_t a, int64_t b) { return a - floordiv(a, b) * b; }
double fmod_py(double a, double b) {
  EMBER_CHECK(b != 0, ZeroDivision, "float modulo");
  double m = std::fmod(a, b);
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

template <class IntOp, class FloatOp>
RValue arith(const Ins& in, IntOp fi, FloatOp ff) {
  if (is_float(in[0]) || is_float(in[1])) return RValue(IValue(ff(as_double(in[0]), as_double(in[1]))));
  return RValue(IValue(fi(as_int(in[0]), as_int(in[1]))));
}

template <class Cmp>
RValue compare(const Ins& in, Cmp c) {
  if (is_float(in[0]) || is_float(in[1])) return RValue(IValue(c(as_double(in[0]), as_double(in[1]))));
  return RValue(IValue(c(as_int(in[0]), as_int(in[1]))));
}

bool equal(const RValue& a, const RValue& b) {
  if (a.is_seq() || b.is_seq()) {
    if (!a.is_seq() || !b.is_seq() || a.seq->size() != b.seq->size()) return false;
    for (size_t i = 0; i < a.seq->size(); i++)
      if (!equal((*a.seq)[i], (*b.seq)[i])) return false;
    return true;
  }
  if (a.v.is_none() || b.v.is_none()) return a.v.is_none() && b.v.is_none();
  if (a.v.tag() == IValue::Tag::Str || b.v.tag() == IValue::Tag::Str)
    return a.v.tag() == b.v.tag() && a.v.to_str() == b.v.to_str();
  if (is_float(a) || is_float(b)) return as_double(a) == as_double(b);
  return as_int(a) == as_int(b);
}

int64_t checked_index(int64_t i, size_t size, const char* what) {
  int64_t n = int64_t(size);
  EMBER_CHECK(i >= -n && i < n, Index, what, " index out of range");
  return i < 0 ? i + n : i;
}

// A number from a number, or from a one-element tensor (int(t), float(t), bool(t) in Python).
Scalar number(const RValue& r, const char* to) {
  if (r.v.is_tensor()) {
    const Tensor& t = r.v.to_tensor();
    EMBER_CHECK(t.numel() == 1, Runtime, "a Tensor with ", t.numel(), " elements cannot be converted to ", to);
    EMBER_CHECK(!t.is_meta(), Runtime, "cannot convert a meta tensor to a number (it has no data)");
    return visit_dtype(t.dtype(), [&](auto z) -> Scalar {
      using T = decltype(z);
      T v = *t.data_as<T>();
      if constexpr (std::is_same_v<T, bool>)
        return Scalar(v);
      else if constexpr (is_complex_v<T>)
        return Scalar(double(v.real()));
      else if constexpr (std::is_integral_v<T>)
        return Scalar(int64_t(v));
      else
        return Scalar(double(v));
    });
  }
  return r.v.to_scalar();
}

const PrimTable& prims() {
  static const PrimTable table = {
      {"prim::ListConstruct", [](const Node&, Ins& in) -> Outs { return {RValue::sequence(in, false)}; }},
      {"prim::TupleConstruct", [](const Node&, Ins& in) -> Outs { return {RValue::sequence(in, true)}; }},
      {"prim::TupleUnpack", [](const Node& n, Ins& in) -> Outs { return in[0].items(); }},
      {"prim::ListUnpack",
       [](const Node& n, Ins& in) -> Outs {
         const auto& items = in[0].items();
         EMBER_CHECK(items.size() == n.outputs.size(), Value, "cannot unpack a list of ", items.size(),
                     " elements into ", n.outputs.size(), " values");
         return items;
       }},
      {"prim::TupleIndex",
       [](const Node&, Ins& in) -> Outs {
         const auto& items = in[0].items();
         return {items[checked_index(as_int(in[1]), items.size(), "tuple")]};
       }},
      {"prim::ListIndex",
       [](const Node&, Ins& in) -> Outs {
         const auto& items = in[0].items();
         return {items[checked_index(as_int(in[1]), items.size(), "list")]};
       }},
      {"prim::ListAppend",
       [](const Node&, Ins& in) -> Outs {
         in[0].seq->push_back(in[1]);
         return {};
       }},
      {"prim::len", [](const Node&, Ins& in) -> Outs { return {RValue(IValue(int64_t(in[0].items().size())))}; }},
      // The outputs of an If branch that always raises: never read.
      {"prim::Uninitialized", [](const Node&, Ins&) -> Outs { return {RValue()}; }},
      // `with record_function(name):` in scripted code: a range on the profiler's timeline (or -1
      // when no profile is recording), closed by its handle
      {"prim::record_function_enter",
       [](const Node&, Ins& in) -> Outs {
         return {
             RValue(IValue(trace::on(trace::kOps) ? trace::begin(in[0].v.to_str(), trace::kUserScope) : int64_t(-1)))};
       }},
      {"prim::record_function_exit",
       [](const Node&, Ins& in) -> Outs {
         trace::end(in[0].v.to_int());
         return {};
       }},
      {"prim::unchecked_cast", [](const Node&, Ins& in) -> Outs { return {in[0]}; }},
      {"prim::isNone", [](const Node&, Ins& in) -> Outs { return {RValue(IValue(in[0].is_none()))}; }},
      {"prim::RaiseException",
       [](const Node&, Ins& in) -> Outs { throw ScriptException(in[1].v.to_str(), in[0].v.to_str()); }},
      {"prim::add",
       [](const Node&, Ins& in) -> Outs {
         return {arith(in, [](int64_t a, int64_t b) { return a + b; }, [](double a, double b) { return a + b; })};
       }},
      {"prim::sub",
       [](const Node&, Ins& in) -> Outs {
         return {arith(in, [](int64_t a, int64_t b) { return a - b; }, [](double a, double b) { return a - b; })};
       }},
      {"prim::mul",
       [](const Node&, Ins& in) -> Outs {
         return {arith(in, [](int64_t a, int64_t b) { return a * b; }, [](double a, double b) { return a * b; })};
       }},
      {"prim::truediv",
       [](const Node&, Ins& in) -> Outs {
         double b = as_double(in[1]);
         EMBER_CHECK(b != 0, ZeroDivision,
                     is_float(in[0]) || is_float(in[1]) ? "float division by zero" : "division by zero");
         return {RValue(IValue(as_double(in[0]) / b))};
       }},
      {"prim::floordiv",
       [](const Node&, Ins& in) -> Outs {
         return {arith(in, floordiv, [](double a, double b) {
           EMBER_CHECK(b != 0, ZeroDivision, "float floor division by zero");
           return std::floor(a / b);
         })};
       }},
      {"prim::mod", [](const Node&, Ins& in) -> Outs { return {arith(in, pymod, fmod_py)}; }},
      {"prim::pow",  // TorchScript's pow of numbers is typed float
       [](const Node&, Ins& in) -> Outs { return {RValue(IValue(std::pow(as_double(in[0]), as_double(in[1]))))}; }},
      {"prim::min",
       [](const Node&, Ins& in) -> Outs {
         return {arith(
             in, [](int64_t a, int64_t b) { return std::min(a, b); },
             [](double a, double b) { return std::isnan(a) ? a : std::min(a, b); })};
       }},
      {"prim::max",
       [](const Node&, Ins& in) -> Outs {
         return {arith(
             in, [](int64_t a, int64_t b) { return std::max(a, b); },
             [](double a, double b) { return std::isnan(a) ? a : std::max(a, b); })};
       }},
      {"prim::neg",
       [](const Node&, Ins& in) -> Outs {
         return {is_float(in[0]) ? RValue(IValue(-as_double(in[0]))) : RValue(IValue(-as_int(in[0])))};
       }},
      {"prim::abs",
       [](const Node&, Ins& in) -> Outs {
         return {is_float(in[0]) ? RValue(IValue(std::fabs(as_double(in[0]))))
                                 : RValue(IValue(std::abs(as_int(in[0]))))};
       }},
      {"prim::not", [](const Node&, Ins& in) -> Outs { return {RValue(IValue(!in[0].v.to_bool()))}; }},
      {"prim::lt", [](const Node&, Ins& in) -> Outs { return {compare(in, [](auto a, auto b) { return a < b; })}; }},
      {"prim::le", [](const Node&, Ins& in) -> Outs { return {compare(in, [](auto a, auto b) { return a <= b; })}; }},
      {"prim::gt", [](const Node&, Ins& in) -> Outs { return {compare(in, [](auto a, auto b) { return a > b; })}; }},
      {"prim::ge", [](const Node&, Ins& in) -> Outs { return {compare(in, [](auto a, auto b) { return a >= b; })}; }},
      {"prim::eq", [](const Node&, Ins& in) -> Outs { return {RValue(IValue(equal(in[0], in[1])))}; }},
      {"prim::ne", [](const Node&, Ins& in) -> Outs { return {RValue(IValue(!equal(in[0], in[1])))}; }},
      {"prim::Int",
       [](const Node&, Ins& in) -> Outs {
         Scalar s = number(in[0], "int");
         return {RValue(IValue(s.is_float() ? int64_t(std::trunc(s.to_double())) : s.to_int()))};
       }},
      {"prim::Float",
       [](const Node&, Ins& in) -> Outs { return {RValue(IValue(number(in[0], "float").to_double()))}; }},
      {"prim::Bool",
       [](const Node&, Ins& in) -> Outs { return {RValue(IValue(number(in[0], "bool").to_double() != 0))}; }},
      {"prim::dim", [](const Node&, Ins& in) -> Outs { return {RValue(IValue(int64_t(in[0].v.to_tensor().dim())))}; }},
      {"prim::numel",
       [](const Node&, Ins& in) -> Outs { return {RValue(IValue(int64_t(in[0].v.to_tensor().numel())))}; }},
      {"prim::size",
       [](const Node&, Ins& in) -> Outs {
         const Tensor& t = in[0].v.to_tensor();
         int64_t d = in[1].v.to_int(), n = t.dim();
         EMBER_CHECK(n > 0, Index, "Dimension specified as ", d, " but tensor has no dimensions");
         EMBER_CHECK(d >= -n && d < n, Index, "Dimension out of range (expected to be in range of [", -n, ", ", n - 1,
                     "], but got ", d, ")");
         return {RValue(IValue(int64_t(t.sizes()[d < 0 ? d + n : d])))};
       }},
      {"prim::sizes",
       [](const Node&, Ins& in) -> Outs {
         std::vector<RValue> items;
         for (int64_t s : in[0].v.to_tensor().sizes()) items.emplace_back(IValue(s));
         return {RValue::sequence(std::move(items), false)};
       }},
      {"prim::range_len",
       [](const Node&, Ins& in) -> Outs {
         int64_t start = as_int(in[0]), stop = as_int(in[1]), step = as_int(in[2]);
         EMBER_CHECK(step != 0, Value, "range() arg 3 must not be zero");
         int64_t n = step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step;
         return {RValue(IValue(std::max<int64_t>(n, 0)))};
       }},
  };
  return table;
}

}  // namespace

PrimFn find_prim(const std::string& kind) {
  for (const PrimTable* t : {&prims(), &list_prims(), &dict_prims(), &str_prims(), &tensor_prims(), &object_prims(),
                             &list_tensor_prims(), &implicit_prims()}) {
    auto it = t->find(kind);
    if (it != t->end()) return it->second;
  }
  return nullptr;
}

bool has_side_effects(const Node& n) {
  if (n.kind == "prim::RaiseException" || n.kind == "prim::ListAppend" || n.kind == "prim::PythonOp" ||
      n.kind == "prim::record_function_enter" || n.kind == "prim::record_function_exit" || !n.blocks.empty() ||
      mutates_container(n.kind))
    return true;
  if (!n.op) return false;
  const OpSchema& s = n.op->schema();
  if (!s.name.empty() && s.name.back() == '_') return true;  // in-place
  for (const SchemaArg& a : s.args)
    if (a.type == "Generator?") return true;  // random: two draws differ
  return false;
}

}  // namespace ember::jit
