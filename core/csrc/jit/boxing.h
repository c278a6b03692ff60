// Argument conversions that the generated op-table registrations (tools/opgen/jit_reg.py) use to unbox
// the op database's schema types the op table's IValue carries indirectly: numbers for TensorLike
// (wrapped 0-dim tensors, as eager calls make them), ints for ScalarType, strings for Device.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device/device.h"
#include "dispatch/op_table.h"
#include "tensor/factory.h"

namespace ember::jit {

// A TensorLike argument for one call: the IValue's own tensor borrowed, or a number wrapped into a new
// 0-dim tensor. Borrowing matters for the pre-boxed constants of a graph's plan, which every thread running
// the graph reads: copying them bumped one reference count from both threads on every op.
class TensorLikeArg {
 public:
  explicit TensorLikeArg(const IValue& v) : ref_(v.is_none() || v.is_tensor() ? &v.to_tensor() : nullptr) {
    if (!ref_) owned_ = wrapped_scalar(v.to_scalar());
  }
  operator const Tensor&() const { return ref_ ? *ref_ : owned_; }  // NOLINT: stands in for a Tensor

 private:
  const Tensor* ref_;
  Tensor owned_;
};

inline TensorLikeArg tensor_like(const IValue& v) { return TensorLikeArg(v); }

inline ScalarType scalar_type(const IValue& v) { return v.is_none() ? ScalarType::Undefined : ScalarType(v.to_int()); }

inline std::optional<Device> device(const IValue& v) {
  if (v.is_none()) return std::nullopt;
  return Device::parse(v.to_str());
}

// The ad:: functions choose the backend from their tensors themselves, so one kernel serves every key.
// Returns whether k went to every key (no key had a kernel of its own already).
inline bool set_every_key(OpEntry& e, const BoxedKernel& k) {
  bool every = true;
  for (int key = 0; key < int(DispatchKey::NumKeys); key++) {
    if (e.has_kernel(DispatchKey(key)))
      every = false;
    else
      e.set_kernel(DispatchKey(key), k);
  }
  return every;
}

// The interpreter's unboxed entry to an op: reads its arguments in place (one pointer per schema
// argument, lists already in the op table's form) and returns its one result. It is the boxed kernel
// minus the stack, so it exists only for ops whose every key runs that one kernel.
using DirectKernel = IValue (*)(const IValue* const* args);
void set_direct(const OpEntry& e, DirectKernel k);
DirectKernel direct_kernel(const OpEntry& e);  // null when the op has none

// Registers every op of the op database as "aten::NAME" (generated); idempotent through database_ops().
void register_database_ops(OpTable& t);

// (op name, the public name it overloads): max_dim overloads max.
std::vector<std::pair<std::string, std::string>> database_overloads();

// The op table with the database's ops registered (once, on first use).
OpTable& database_ops();

}  // namespace ember::jit
