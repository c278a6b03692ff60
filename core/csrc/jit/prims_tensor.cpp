// Tensor primitives the language reads off a tensor: its dtype (as its ScalarType code, what scripted code
// compares with ember.float32 and passes to ops' dtype arguments).
#include "jit/prims_extra.h"

namespace ember::jit {

const PrimTable& tensor_prims() {
  static const PrimTable table = {
      {"prim::dtype",
       [](const Node&, std::vector<RValue>& in) -> std::vector<RValue> {
         return {RValue(IValue(int64_t(in[0].v.to_tensor().dtype())))};
       }},
  };
  return table;
}

}  // namespace ember::jit
