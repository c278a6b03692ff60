// Op-table registry and the boxed call path: argument count check, key choice, kernel lookup.
#include "dispatch/op_table.h"

#include <algorithm>

#include "base/trace.h"

namespace ember {

void OpEntry::set_kernel(DispatchKey k, BoxedKernel f) {
  EMBER_CHECK(!kernels_[int(k)], Runtime, "op ", schema_.qualified(), " already has a ", dispatch_key_name(k),
              " kernel");
  kernels_[int(k)] = std::move(f);
}

void OpEntry::set_backward(BackwardFn f) {
  EMBER_CHECK(!backward_, Runtime, "op ", schema_.qualified(), " already has a backward formula");
  backward_ = std::move(f);
}

DispatchKey OpEntry::key_for(const Stack& stack) const {
  bool meta = false, cuda = false;
  auto look = [&](const Tensor& t) {
    if (!t.defined()) return;
    meta |= t.device().is_meta();
    cuda |= t.device().type == DeviceType::CUDA;
  };
  for (const IValue& v : stack) {
    if (v.is_tensor())
      look(v.to_tensor());
    else if (v.is_tensor_list())
      for (const Tensor& t : v.to_tensor_list()) look(t);
  }
  return meta ? DispatchKey::Meta : cuda ? DispatchKey::CUDA : DispatchKey::CPU;
}

void OpEntry::call(Stack& stack) const {
  EMBER_CHECK(stack.size() == schema_.args.size(), Type, schema_.qualified(), "() expects ", schema_.args.size(),
              " arguments, got ", stack.size());
  DispatchKey k = key_for(stack);
  const BoxedKernel& f = kernels_[int(k)];
  EMBER_CHECK(f, NotImplemented, "op ", schema_.qualified(), " has no kernel for the ", dispatch_key_name(k),
              " backend (its tensors' device); registered: ", [&] {
                std::string s;
                for (int i = 0; i < int(DispatchKey::NumKeys); i++)
                  if (kernels_[i]) s += std::string(s.empty() ? "" : ", ") + dispatch_key_name(DispatchKey(i));
                return s.empty() ? std::string("none") : s;
              }());
  trace::Scope recorded(trace::on(trace::kOps) ? trace_call(stack) : -1);
  f(stack);
  EMBER_CHECK(stack.size() == schema_.returns.size(), Runtime, "op ", schema_.qualified(), " kernel left ",
              stack.size(), " results, its schema declares ", schema_.returns.size());
}

// The profiler's event for a call: the qualified name and, when recorded, the tensors' shapes and
// the numbers' values.
int64_t OpEntry::trace_call(const Stack& stack) const {
  trace::Event e;
  e.name = schema_.qualified();
  e.kind = trace::kOp;
  if (trace::on(trace::kShapes)) {
    for (const IValue& v : stack) {
      std::vector<int64_t> shape;
      std::string dtype, value;
      if (v.is_tensor()) {
        const Tensor& t = v.to_tensor();
        shape.assign(t.sizes().begin(), t.sizes().end());
        dtype = dtype_name(t.dtype());
      } else if (v.is_tensor_list()) {
        dtype = "TensorList";
      } else if (v.tag() == IValue::Tag::Int || v.tag() == IValue::Tag::Bool) {
        dtype = "Scalar";
        value = std::to_string(v.to_int());
      } else if (v.tag() == IValue::Tag::Double) {
        dtype = "Scalar";
        value = std::to_string(v.to_double());
      }
      e.shapes.push_back(std::move(shape));
      e.dtypes.push_back(std::move(dtype));
      e.concrete.push_back(std::move(value));
    }
  }
  return trace::begin(std::move(e));
}

OpTable& OpTable::get() {
  static OpTable* table = new OpTable();  // never destroyed: extensions may unload in any order
  return *table;
}

OpEntry& OpTable::define(const std::string& ns, const std::string& schema) {
  OpSchema s = parse_schema(ns, schema);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(s.qualified());
  if (it != ops_.end()) {
    EMBER_CHECK(it->second->schema().text == s.text, Runtime, "op ", s.qualified(), " is already defined as \"",
                it->second->schema().text, "\"");
    return *it->second;
  }
  std::string q = s.qualified();
  return *ops_.emplace(q, std::make_unique<OpEntry>(std::move(s))).first->second;
}

OpEntry* OpTable::find(const std::string& qualified) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(qualified);
  return it == ops_.end() ? nullptr : it->second.get();
}

OpEntry& OpTable::at(const std::string& qualified) {
  OpEntry* e = find(qualified);
  EMBER_CHECK(e, Runtime, "no op named ", qualified, " in the op table");
  return *e;
}

std::vector<std::string> OpTable::names(const std::string& ns) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [q, e] : ops_)
    if (e->schema().ns == ns) out.push_back(e->schema().name);
  std::sort(out.begin(), out.end());
  return out;
}

bool OpTable::has_namespace(const std::string& ns) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [q, e] : ops_)
    if (e->schema().ns == ns) return true;
  return false;
}

}  // namespace ember
