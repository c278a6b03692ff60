// Autocast's thread-local state and argument casts (see autocast_state.h).
#include "amp/autocast_state.h"

#include <unordered_map>
#include <utility>

#include "autograd/meta.h"
#include "base/error.h"
#include "generated/ops/_to_copy.h"

namespace ember::amp {

AutocastState& tls_state() {
  thread_local AutocastState state;
  return state;
}

namespace {
// Source impl -> (the source, its cast). The entry holds the source itself so its address cannot be
// reused by another tensor while cached; the cache is cleared when the outermost region exits.
using CastCache = std::unordered_map<TensorImpl*, std::pair<Tensor, Tensor>>;
CastCache& tls_cache() {
  thread_local CastCache cache;
  return cache;
}
}  // namespace

bool is_eligible(const Tensor& t) {
  return t.defined() && !t.is_wrapped_number() && t.device().is_cpu() && is_floating(t.dtype()) &&
         t.dtype() != ScalarType::Float64;
}

Tensor cached_cast(ScalarType to, const Tensor& t) {
  if (!is_eligible(t) || t.dtype() == to) return t;
  const AutocastState& st = tls_state();
  const bool cacheable = st.cache_enabled && to != ScalarType::Float32 && t.dtype() == ScalarType::Float32 &&
                         autograd::requires_grad(t) && autograd::is_leaf(t) && !autograd::is_view(t);
  if (!cacheable) return ad::_to_copy(t, to, std::nullopt);
  auto& cache = tls_cache();
  auto it = cache.find(t.impl());
  if (it != cache.end() && it->second.second.dtype() == to) return it->second.second;
  Tensor cast = ad::_to_copy(t, to, std::nullopt);
  cache[t.impl()] = {t, cast};
  return cast;
}

std::vector<Tensor> cached_cast(ScalarType to, const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(cached_cast(to, t));
  return out;
}

ScalarType promote_type(ScalarType lower, const std::vector<const Tensor*>& ts) {
  ScalarType cur = lower;
  for (const Tensor* t : ts) {
    if (!is_eligible(*t)) continue;
    if (cur == ScalarType::Float32 || t->dtype() == ScalarType::Float32) {
      cur = ScalarType::Float32;
    } else {
      EMBER_CHECK(t->dtype() == lower, Runtime, "Unexpected floating ScalarType in at::autocast::prioritize");
    }
  }
  return cur;
}

void clear_cache() { tls_cache().clear(); }
size_t cache_size() { return tls_cache().size(); }

}  // namespace ember::amp
