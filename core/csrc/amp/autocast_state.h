// Autocast's per-thread state (enabled, lower-precision dtype, weight-cast cache, nesting) and the
// casts its generated op wrappers (generated/amp/) apply to their arguments before the recorded op runs.
#pragma once
#include <vector>

#include "tensor/tensor_impl.h"

namespace ember::amp {

// The CPU autocast state of this thread (torch.is_autocast_enabled('cpu') and friends).
struct AutocastState {
  bool cpu_enabled = false;
  ScalarType cpu_dtype = ScalarType::BFloat16;
  bool cache_enabled = true;
  int64_t nesting = 0;
};
AutocastState& tls_state();

// The generated bindings call an op's autocast wrapper only when this is true, so autocast off
// costs one thread-local read per call of an op with a policy, and nothing for the others.
inline bool cpu_active() { return tls_state().cpu_enabled; }

// Leaves autocast off while an autocast wrapper runs its op (nested ops keep the types they are
// given, as PyTorch's autocast kernels exclude their dispatch key), and restores it after.
class ExcludeGuard {
 public:
  ExcludeGuard() : prev_(tls_state().cpu_enabled) { tls_state().cpu_enabled = false; }
  ~ExcludeGuard() { tls_state().cpu_enabled = prev_; }
  ExcludeGuard(const ExcludeGuard&) = delete;
  ExcludeGuard& operator=(const ExcludeGuard&) = delete;

 private:
  bool prev_;
};

// Whether autocast casts t: a defined CPU floating tensor other than float64 (Python numbers passed
// as tensors are left to the op's own promotion).
bool is_eligible(const Tensor& t);
// t cast to `to` when eligible (recorded, so gradients flow back in t's dtype); a float32 leaf that
// requires grad (a weight) cast to the lower-precision dtype is cached until the outermost region ends.
Tensor cached_cast(ScalarType to, const Tensor& t);
std::vector<Tensor> cached_cast(ScalarType to, const std::vector<Tensor>& ts);
// The widest floating type among the eligible tensors (float32 over the lower-precision dtype), for
// the "promote" policy; raises on a lower-precision type that is not the region's.
ScalarType promote_type(ScalarType lower, const std::vector<const Tensor*>& ts);
void clear_cache();
size_t cache_size();

}  // namespace ember::amp
