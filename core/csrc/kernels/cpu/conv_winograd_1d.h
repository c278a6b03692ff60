// The 1-D transforms of Winograd's F(4, 3) (Lavin & Gray's B^T, A^T, G and the adjoints of A^T and G),
// written once for one float or a vector of lanes (GCC's vector operators work on __m256); shared by the
// NCHW (conv_winograd_tiles.cpp) and NHWC (conv_nhwc_winograd.cpp) convolutions.
#pragma once
#include <cstdlib>
#include <cstring>

namespace ember::conv::winograd {

// EMBER_CONV_WINOGRAD=0 turns both Winograd paths off (direct convolution only); read once.
inline bool winograd_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("EMBER_CONV_WINOGRAD");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

#define WINO_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

// The 1-D transforms, for one float or 8 lanes (GCC's vector operators work on __m256).
// B^T: 6 input values -> 6.
template <class V>
WINO_INLINE void input_1d(const V* d, V* r) {
  const V a = d[1] + d[2], b = d[3] + d[4], c = d[1] - d[2], e = d[4] - d[3];
  const V f = d[3] - d[1], h = d[4] - d[2];
  r[0] = d[0] * 4.0f - d[2] * 5.0f + d[4];
  r[1] = b - a * 4.0f;
  r[2] = e + c * 4.0f;
  r[3] = h + f * 2.0f;
  r[4] = h - f * 2.0f;
  r[5] = d[1] * 4.0f - d[3] * 5.0f + d[5];
}

// A^T: 6 transformed values -> 4 outputs.
template <class V>
WINO_INLINE void output_1d(const V* m, V* o) {
  const V a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], d = m[3] - m[4];
  o[0] = m[0] + a + c;
  o[1] = b + d * 2.0f;
  o[2] = a + c * 4.0f;
  o[3] = b + d * 8.0f + m[5];
}

// A (the adjoint of A^T): 4 output gradients -> 6 transformed values.
template <class V>
WINO_INLINE void output_adjoint_1d(const V* y, V* r) {
  const V e = y[0] + y[2], o = y[1] + y[3], e4 = y[0] + y[2] * 4.0f, o8 = y[1] * 2.0f + y[3] * 8.0f;
  r[0] = y[0];
  r[1] = e + o;
  r[2] = e - o;
  r[3] = e4 + o8;
  r[4] = e4 - o8;
  r[5] = y[3];
}

// G: 3 kernel values -> 6.
template <class V>
WINO_INLINE void kernel_1d(const V* g, V* u) {
  const V s = g[0] + g[2];
  u[0] = g[0] * 0.25f;
  u[1] = (s + g[1]) * (-1.0f / 6.0f);
  u[2] = (s - g[1]) * (-1.0f / 6.0f);
  const V t = g[0] * (1.0f / 24.0f) + g[2] * (1.0f / 6.0f);
  u[3] = t + g[1] * (1.0f / 12.0f);
  u[4] = t - g[1] * (1.0f / 12.0f);
  u[5] = g[2];
}

// G^T (the adjoint of G): 6 transformed kernel gradients -> 3.
template <class V>
WINO_INLINE void kernel_adjoint_1d(const V* u, V* g) {
  const V p = u[1] + u[2], q = u[3] + u[4];
  g[0] = u[0] * 0.25f - p * (1.0f / 6.0f) + q * (1.0f / 24.0f);
  g[1] = (u[2] - u[1]) * (1.0f / 6.0f) + (u[3] - u[4]) * (1.0f / 12.0f);
  g[2] = (q - p) * (1.0f / 6.0f) + u[5];
}

}  // namespace ember::conv::winograd
