// Tensor primitives the language reads off a tensor: its dtype (as its ScalarType code, what scripted code
// compares with ember.float32 and passes to ops' dtype arguments), whether it is floating point, and
// detach (a handle on the same data with no autograd history, as Tensor.detach), whether it is complex and
// its device as a string ("cpu", "meta": what the ops' Device? arguments take in scripted code).
#include "autograd/meta.h"
#include "jit/prims_extra.h"
#include "types/dtype.h"

namespace ember::jit {

const PrimTable& tensor_prims() {
  static const PrimTable table = {
      {"prim::dtype",
       [](const Node&, std::vector<RValue>& in) -> std::vector<RValue> {
         return {RValue(IValue(int64_t(in[0].v.to_tensor().dtype())))};
       }},
      {"prim::device",
       [](const Node&, std::vector<RValue>& in) -> std::vector<RValue> {
         return {RValue(IValue(in[0].v.to_tensor().device().str()))};
       }},
      {"prim::is_floating_point",
       [](const Node&, std::vector<RValue>& in) -> std::vector<RValue> {
         return {RValue(IValue(is_floating(in[0].v.to_tensor().dtype())))};
       }},
      {"prim::is_complex",
       [](const Node&, std::vector<RValue>& in) -> std::vector<RValue> {
         return {RValue(IValue(is_complex(in[0].v.to_tensor().dtype())))};
       }},
      {"prim::detach",
       [](const Node&, std::vector<RValue>& in) -> std::vector<RValue> {
         return {RValue(IValue(autograd::alias(in[0].v.to_tensor())))};
       }},
  };
  return table;
}

}  // namespace ember::jit
