// The windows of a pooling op over 1-3 spatial dims (PyTorch's rules for padding, dilation and
// adaptive windows) and the sweep over them, shared by the NCHW (pool.cpp) and NHWC (pool_nhwc.cpp) kernels.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace ember::pool {

// One spatial dim's windows: output o covers input [begin(o), end(o)) in steps of `step`; `span`
// is the window's extent counted for averages (padding included).
struct Axis {
  int64_t in = 1, out = 1, k = 1, stride = 1, pad = 0, dil = 1;
  bool adaptive = false;
  int64_t first(int64_t o) const { return adaptive ? (o * in) / out : o * stride - pad; }
  int64_t last(int64_t o) const {  // one past the last position (unclipped)
    return adaptive ? ((o + 1) * in + out - 1) / out : first(o) + (k - 1) * dil + 1;
  }
};

struct Windows {
  Axis ax[3];
  int64_t nd = 0;
  int64_t in_size() const { return ax[0].in * ax[1].in * ax[2].in; }
  int64_t out_size() const { return ax[0].out * ax[1].out * ax[2].out; }
};

// f(o, j0, j1, j2) for every output position o and every input position j of its window (clipped
// to the input); start(o) / stop(o) once per output.
template <class Start, class Each, class Stop>
void sweep(const Windows& w, Start&& start, Each&& each, Stop&& stop) {
  const Axis &a0 = w.ax[0], &a1 = w.ax[1], &a2 = w.ax[2];
  int64_t o = 0;
  for (int64_t o0 = 0; o0 < a0.out; o0++)
    for (int64_t o1 = 0; o1 < a1.out; o1++)
      for (int64_t o2 = 0; o2 < a2.out; o2++, o++) {
        start(o, o0, o1, o2);
        const int64_t step0 = a0.adaptive ? 1 : a0.dil, step1 = a1.adaptive ? 1 : a1.dil,
                      step2 = a2.adaptive ? 1 : a2.dil;
        for (int64_t j0 = a0.first(o0); j0 < std::min(a0.last(o0), a0.in); j0 += step0) {
          if (j0 < 0) continue;
          for (int64_t j1 = a1.first(o1); j1 < std::min(a1.last(o1), a1.in); j1 += step1) {
            if (j1 < 0) continue;
            for (int64_t j2 = a2.first(o2); j2 < std::min(a2.last(o2), a2.in); j2 += step2) {
              if (j2 < 0) continue;
              each(o, (j0 * a1.in + j1) * a2.in + j2);
            }
          }
        }
        stop(o, o0, o1, o2);
      }
}

// avg_pool's divisor for an output: divisor_override, else the window size within the padded
// input (count_include_pad) or within the input.
inline int64_t avg_divisor(const Windows& w, int64_t o0, int64_t o1, int64_t o2, bool count_include_pad,
                           std::optional<int64_t> divisor_override, int64_t counted) {
  if (divisor_override) return *divisor_override;
  if (!count_include_pad) return counted;
  const int64_t os[3] = {o0, o1, o2};
  int64_t n = 1;
  for (int d = 0; d < 3; d++) {
    const Axis& a = w.ax[d];
    const int64_t b = a.first(os[d]), e = std::min(a.last(os[d]), a.in + a.pad);
    n *= (e - b + a.dil - 1) / a.dil;
  }
  return n;
}

// The number of input positions in an output's window (clipped to the input).
inline int64_t in_window(const Windows& w, int64_t o0, int64_t o1, int64_t o2) {
  const int64_t os[3] = {o0, o1, o2};
  int64_t n = 1;
  for (int d = 0; d < 3; d++) {
    const Axis& a = w.ax[d];
    const int64_t step = a.adaptive ? 1 : a.dil;
    int64_t k = 0;
    for (int64_t j = a.first(os[d]); j < std::min(a.last(os[d]), a.in); j += step) k += j >= 0;
    n *= k;
  }
  return n;
}

// avg_pool's divisors of every output (the same for every plane; 0 for an empty window), found once.
inline std::vector<int64_t> avg_divisors(const Windows& w, bool count_include_pad,
                                         std::optional<int64_t> divisor_override) {
  std::vector<int64_t> divisor(size_t(w.out_size()), 0);
  sweep(
      w, [](int64_t, int64_t, int64_t, int64_t) {}, [](int64_t, int64_t) {},
      [&](int64_t o, int64_t o0, int64_t o1, int64_t o2) {
        divisor[size_t(o)] = avg_divisor(w, o0, o1, o2, count_include_pad, divisor_override, in_window(w, o0, o1, o2));
      });
  return divisor;
}

}  // namespace ember::pool
