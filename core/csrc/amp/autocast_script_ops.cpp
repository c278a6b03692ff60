// Autocast for the script versions of Python-written ops (nn.functional's losses, pools, affine_grid...), which
// eager code runs through ember.amp.autocast_policy: the script compiler wraps such a call as
//   on = aten::_autocast_cpu_set_(False)                 # the region's state, now off for the op's body
//   x = aten::_autocast_cpu_policy_cast(x, lower, on)    # each tensor argument, cast as the policy says
//   ... the op's body, its own ops uncast ...
//   aten::_autocast_cpu_set_(on)
// The trailing underscore marks the setter as having an effect, so the graph passes neither drop nor merge it.
#include "amp/autocast_state.h"
#include "dispatch/library.h"

namespace {

bool set_autocast_cpu_enabled(bool enabled) {
  bool was = ember::amp::tls_state().cpu_enabled;
  ember::amp::tls_state().cpu_enabled = enabled;
  return was;
}

// t in the region's lower-precision dtype (lower_precision) or float32, when `enabled` (the region was on at
// the call); float64, integral and non-CPU tensors are left alone, as eager casts leave them.
ember::Tensor policy_cast(const ember::Tensor& t, bool lower_precision, bool enabled) {
  if (!enabled) return t;
  const auto to = lower_precision ? ember::amp::tls_state().cpu_dtype : ember::ScalarType::Float32;
  return ember::amp::cached_cast(to, t);
}

}  // namespace

EMBER_LIBRARY(aten, m) {
  m.def("_autocast_cpu_set_(bool enabled) -> bool", set_autocast_cpu_enabled);
  m.def("_autocast_cpu_policy_cast(Tensor self, bool lower_precision, bool enabled) -> Tensor", policy_cast);
}
