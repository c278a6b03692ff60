// GradScaler's fused ops: the inf/NaN check with unscaling of every gradient in one pass per tensor,
// and the growth/backoff update of the scale.
#include <atomic>
#include <cmath>

#include "device/parallel.h"
#include "generated/ops/_amp_foreach_non_finite_check_and_unscale.h"
#include "generated/ops/_amp_update_scale.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "kernels/convert.h"
#include "kernels/visit_float.h"

namespace ember::ops {

namespace {

// A 1-element tensor these ops read and write in place (so it must have memory: a meta one has none).
void check_scalar(const Tensor& t, const char* name, ScalarType dtype = ScalarType::Float32,
                  const char* kind = "a float") {
  EMBER_CHECK(t.numel() == 1, Runtime, name, " must be a 1-element tensor.");
  EMBER_CHECK(t.dtype() == dtype, Runtime, name, " must be ", kind, " tensor.");
  EMBER_CHECK(!t.is_meta(), Runtime, name, " must be a tensor with data, got a meta tensor.");
}

// Multiplies n contiguous elements by inv, in place; true when one of them was inf or NaN. The
// check sums v - v (0 for finite v, NaN otherwise) in 8 lanes, so the loop has no branch and vectorizes.
template <class T>
bool unscale_range(T* __restrict x, int64_t n, float inv) {
  using C = opmath_t<T>;
  constexpr int kLanes = 8;
  const C s = C(inv);
  std::atomic<bool> bad{false};
  parallel_for(n, 32768, [&](int64_t lo, int64_t hi) {
    C acc[kLanes] = {};
    int64_t i = lo;
    for (; i + kLanes <= hi; i += kLanes) {
      for (int l = 0; l < kLanes; l++) {
        const C v = convert<C>(x[i + l]);
        acc[l] += v - v;
        x[i + l] = convert<T>(v * s);
      }
    }
    C total = 0;
    for (; i < hi; i++) {
      const C v = convert<C>(x[i]);
      total += v - v;
      x[i] = convert<T>(v * s);
    }
    for (int l = 0; l < kLanes; l++) total += acc[l];
    if (total != total) bad.store(true, std::memory_order_relaxed);
  });
  return bad.load();
}

}  // namespace

std::vector<Tensor> _amp_foreach_non_finite_check_and_unscale(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                                              const Tensor& inv_scale) {
  check_scalar(found_inf, "found_inf");
  check_scalar(inv_scale, "inv_scale");
  const float inv = *inv_scale.data_as<float>();
  bool bad = false;
  for (const Tensor& g : grads) {
    if (g.is_meta() || g.numel() == 0) continue;
    const char* name = "_amp_foreach_non_finite_check_and_unscale_cpu";
    // A strided gradient (rare) is unscaled in a contiguous copy written back.
    const Tensor work = g.is_contiguous() ? g : ops::contiguous(g);
    visit_real_float(g.dtype(), name, [&](auto z) {
      using T = decltype(z);
      bad |= unscale_range<T>(work.data_as<T>(), work.numel(), inv);
    });
    if (!work.is_same(g)) ops::copy_(g, work, false);
    g.bump_version();
  }
  if (bad) {
    *found_inf.data_as<float>() = 1.0f;
    found_inf.bump_version();
  }
  return grads;
}

Tensor _amp_update_scale(const Tensor& input, const Tensor& growth_tracker, const Tensor& found_inf,
                         double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  check_scalar(growth_tracker, "growth_tracker", ScalarType::Int32, "an int");
  check_scalar(input, "current_scale");
  check_scalar(found_inf, "found_inf");
  float& scale = *input.data_as<float>();
  int32_t& tracker = *growth_tracker.data_as<int32_t>();
  if (*found_inf.data_as<float>() != 0.0f) {
    scale *= float(scale_backoff_factor);
    tracker = 0;
  } else {
    const int32_t successful = tracker + 1;
    if (successful == growth_interval) {
      const float grown = scale * float(scale_growth_factor);
      if (std::isfinite(grown)) scale = grown;  // a scale that overflows stays where it was
      tracker = 0;
    } else {
      tracker = successful;
    }
  }
  input.bump_version();
  growth_tracker.bump_version();
  return input;
}

}  // namespace ember::ops
