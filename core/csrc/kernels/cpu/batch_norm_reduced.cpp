// batch_norm_reduced.h: per channel, its n planes widened into one float32 buffer per thread.
#include "kernels/cpu/batch_norm_reduced.h"

#include <cmath>
#include <type_traits>

#include "device/cpu_features.h"
#include "device/parallel.h"
#include "kernels/cpu/batch_norm_bf16_avx512.h"
#include "kernels/cpu/batch_norm_sums.h"
#include "tensor/factory.h"
#include "types/half.h"

namespace ember::bn::reduced {

namespace {

// dst[i * plane + j] = float(channel c's plane of image i)[j]
template <class T>
void widen_channel(const T* src, const Planes& s, int64_t c, float* dst) {
  for (int64_t i = 0; i < s.n; i++) {
    const T* p = src + (i * s.c + c) * s.plane;
    float* q = dst + i * s.plane;
    for (int64_t j = 0; j < s.plane; j++) q[j] = float(p[j]);
  }
}

// dst[j] = src[j] rounded to T, as T(float) rounds; branch-free for bfloat16 so that it vectorizes.
inline void round_into(const float* src, int64_t n, BFloat16* dst) {
  uint16_t* out = reinterpret_cast<uint16_t*>(dst);
  for (int64_t j = 0; j < n; j++) {
    const uint32_t u = float_bits(src[j]);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16, quiet = (u >> 16) | 0x40u;
    out[j] = uint16_t((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
  }
}
inline void round_into(const float* src, int64_t n, Half* dst) {
  for (int64_t j = 0; j < n; j++) dst[j] = Half(src[j]);
}

const uint16_t* bits(const BFloat16* p) { return reinterpret_cast<const uint16_t*>(p); }
uint16_t* bits(BFloat16* p) { return reinterpret_cast<uint16_t*>(p); }

// bfloat16 on AVX-512F: the same passes straight on the 16-bit planes (batch_norm_bf16_avx512.h).
void forward_bf16(const BFloat16* x, const Planes& s, bool training, double eps, const std::vector<double>& w,
                  const std::vector<double>& b, std::vector<double>& mean, std::vector<double>& var, BFloat16* y) {
  const int64_t count = s.n * s.plane;
  parallel_for(s.c, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; c++) {
      const auto plane = [&](int64_t i) { return (i * s.c + c) * s.plane; };
      if (training) {  // plane sums added in image order
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < s.n; i++) sum += bn::bf16::sum(bits(x + plane(i)), s.plane);
        const double m = sum / double(count);
        for (int64_t i = 0; i < s.n; i++) sq += bn::bf16::sum_sq_dev(bits(x + plane(i)), s.plane, m);
        mean[size_t(c)] = m;
        var[size_t(c)] = sq / double(count);
      }
      const double inv = 1.0 / std::sqrt(var[size_t(c)] + eps);
      const float scale = float(inv * w[size_t(c)]), shift = float(b[size_t(c)] - mean[size_t(c)] * inv * w[size_t(c)]);
      for (int64_t i = 0; i < s.n; i++) bn::bf16::affine(bits(x + plane(i)), s.plane, scale, shift, bits(y + plane(i)));
    }
  });
}

void backward_bf16(const BFloat16* g, const BFloat16* x, const Planes& s, bool training, const std::vector<double>& w,
                   const std::vector<double>& mean, const std::vector<double>& invstd, std::vector<double>& sum_g,
                   std::vector<double>& sum_gx, BFloat16* gi) {
  const int64_t count = s.n * s.plane;
  parallel_for(s.c, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; c++) {
      const auto plane = [&](int64_t i) { return (i * s.c + c) * s.plane; };
      const double m = mean[size_t(c)], is = invstd[size_t(c)];
      double sg = 0, sgx = 0;
      for (int64_t i = 0; i < s.n; i++) bn::bf16::sum_grad(bits(g + plane(i)), bits(x + plane(i)), s.plane, m, sg, sgx);
      sgx *= is;  // sum(g * xhat)
      sum_g[size_t(c)] = sg;
      sum_gx[size_t(c)] = sgx;
      const double k = w[size_t(c)] * is;
      const double mg = training ? sg / double(count) : 0.0, mgx = training ? sgx / double(count) : 0.0;
      for (int64_t i = 0; i < s.n; i++)
        bn::bf16::input_grad(bits(g + plane(i)), bits(x + plane(i)), s.plane, float(k), float(mg), float(m),
                             float(k * is * mgx), bits(gi + plane(i)));
    }
  });
}

}  // namespace

template <class T>
void forward(const T* x, const Planes& s, bool training, double eps, const std::vector<double>& w,
             const std::vector<double>& b, std::vector<double>& mean, std::vector<double>& var, T* y) {
  if constexpr (std::is_same_v<T, BFloat16>)
    if (cpu_has_avx512()) return forward_bf16(x, s, training, eps, w, b, mean, var, y);
  const int64_t count = s.n * s.plane;
  parallel_for(s.c, 1, [&](int64_t cb, int64_t ce) {
    const Tensor scratch = empty(DimVec{count}, ScalarType::Float32);  // the caching allocator: no page faults
    float* const buf = scratch.data_as<float>();
    for (int64_t c = cb; c < ce; c++) {
      widen_channel(x, s, c, buf);
      if (training) {  // as batch_norm.cpp: plane sums added in image order
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < s.n; i++) sum += bn::sum(buf + i * s.plane, s.plane);
        const double m = sum / double(count);
        for (int64_t i = 0; i < s.n; i++) sq += bn::sum_sq_dev(buf + i * s.plane, s.plane, m);
        mean[size_t(c)] = m;
        var[size_t(c)] = sq / double(count);
      }
      const double inv = 1.0 / std::sqrt(var[size_t(c)] + eps);
      const float scale = float(inv * w[size_t(c)]), shift = float(b[size_t(c)] - mean[size_t(c)] * inv * w[size_t(c)]);
      for (int64_t i = 0; i < s.n; i++) {
        float* p = buf + i * s.plane;
        for (int64_t j = 0; j < s.plane; j++) p[j] = p[j] * scale + shift;
        round_into(p, s.plane, y + (i * s.c + c) * s.plane);
      }
    }
  });
}

template <class T>
void backward(const T* g, const T* x, const Planes& s, bool training, const std::vector<double>& w,
              const std::vector<double>& mean, const std::vector<double>& invstd, std::vector<double>& sum_g,
              std::vector<double>& sum_gx, T* gi) {
  if constexpr (std::is_same_v<T, BFloat16>)
    if (cpu_has_avx512()) return backward_bf16(g, x, s, training, w, mean, invstd, sum_g, sum_gx, gi);
  const int64_t count = s.n * s.plane;
  parallel_for(s.c, 1, [&](int64_t cb, int64_t ce) {
    const Tensor scratch = empty(DimVec{2 * count + s.plane}, ScalarType::Float32);
    float* const xs = scratch.data_as<float>();
    float* const gs = xs + count;
    float* const out = gs + count;
    for (int64_t c = cb; c < ce; c++) {
      widen_channel(x, s, c, xs);
      widen_channel(g, s, c, gs);
      const double m = mean[size_t(c)], is = invstd[size_t(c)];
      double sg = 0, sgx = 0;
      for (int64_t i = 0; i < s.n; i++) bn::sum_grad(gs + i * s.plane, xs + i * s.plane, s.plane, m, sg, sgx);
      sgx *= is;  // sum(g * xhat)
      sum_g[size_t(c)] = sg;
      sum_gx[size_t(c)] = sgx;
      const double k = w[size_t(c)] * is;
      const double mg = training ? sg / double(count) : 0.0, mgx = training ? sgx / double(count) : 0.0;
      for (int64_t i = 0; i < s.n; i++) {
        bn::input_grad(gs + i * s.plane, xs + i * s.plane, s.plane, k, mg, m, k * is * mgx, out);
        round_into(out, s.plane, gi + (i * s.c + c) * s.plane);
      }
    }
  });
}

#define EMBER_BN_REDUCED(T)                                                                               \
  template void forward<T>(const T*, const Planes&, bool, double, const std::vector<double>&,             \
                           const std::vector<double>&, std::vector<double>&, std::vector<double>&, T*);   \
  template void backward<T>(const T*, const T*, const Planes&, bool, const std::vector<double>&,          \
                            const std::vector<double>&, const std::vector<double>&, std::vector<double>&, \
                            std::vector<double>&, T*);
EMBER_BN_REDUCED(BFloat16)
EMBER_BN_REDUCED(Half)
#undef EMBER_BN_REDUCED

}  // namespace ember::bn::reduced
