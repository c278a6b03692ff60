// Depthwise 2-D convolution as a direct stencil (see conv_depthwise.h). Each input plane is first copied into
// a zero-padded buffer (so no tap needs a bounds check), then every chunk of 8 output columns of a row sums
// its K x K taps in registers (a fixed-length loop the compiler vectorises; stride 1 and 2 are specialised).
// Planes (image, channel) are independent work items.
#include "kernels/cpu/conv_depthwise.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "device/cpu_features.h"
#include "device/parallel.h"
#include "iter/copy.h"

namespace ember::conv::depthwise {

namespace {

constexpr int64_t kChunk = 8;  // output columns computed together: one AVX2 vector of float

// A plane padded with zeros on every side, with slack columns on the right so that every chunk of kChunk
// output columns reads inside it (the extra results are computed and dropped).
struct Padded {
  int64_t rows = 0, cols = 0;
};

Padded padded_size(const Geometry& g) {
  const int64_t ow = g.out[2], chunks = (ow + kChunk - 1) / kChunk;
  // + 1: the AVX2 stride-2 path loads 16 consecutive values for the 8 even ones it keeps
  const int64_t reach = (chunks * kChunk - 1) * g.stride[2] + (g.k[2] - 1) * g.dil[2] + 2;
  return {g.in[1] + 2 * g.pad[1], std::max(g.in[2] + 2 * g.pad[2], reach)};
}

template <class T>
void pad_plane(const T* __restrict x, T* __restrict buf, const Geometry& g, const Padded& pd) {
  const int64_t h = g.in[1], wd = g.in[2], ph = g.pad[1], pw = g.pad[2];
  std::fill(buf, buf + ph * pd.cols, T(0));
  for (int64_t r = 0; r < h; r++) {
    T* dst = buf + (r + ph) * pd.cols;
    std::fill(dst, dst + pw, T(0));
    std::copy(x + r * wd, x + (r + 1) * wd, dst + pw);
    std::fill(dst + pw + wd, dst + pd.cols, T(0));
  }
  std::fill(buf + (h + ph) * pd.cols, buf + pd.rows * pd.cols, T(0));
}

// One output plane from its padded input plane; SW: the column stride when known at compile time (0: g's).
template <class T, int64_t SW>
void plane(const T* __restrict buf, const T* __restrict w, T bias, T* __restrict y, const Geometry& g,
           const Padded& pd) {
  const int64_t oh = g.out[1], ow = g.out[2], kh = g.k[1], kw = g.k[2];
  const int64_t sh = g.stride[1], sw = SW ? SW : g.stride[2], dh = g.dil[1], dw = g.dil[2];
  for (int64_t oy = 0; oy < oh; oy++) {
    for (int64_t ox0 = 0; ox0 < ow; ox0 += kChunk) {
      T acc[kChunk];
      for (int64_t j = 0; j < kChunk; j++) acc[j] = bias;
      for (int64_t ky = 0; ky < kh; ky++) {
        const T* in = buf + (oy * sh + ky * dh) * pd.cols + ox0 * sw;
        for (int64_t kx = 0; kx < kw; kx++) {
          const T k = w[ky * kw + kx];
          const T* src = in + kx * dw;
          for (int64_t j = 0; j < kChunk; j++) acc[j] += k * src[j * sw];
        }
      }
      const int64_t n = std::min(kChunk, ow - ox0);
      for (int64_t j = 0; j < n; j++) y[oy * ow + ox0 + j] = acc[j];
    }
  }
}

// The float32 plane with AVX2 + FMA: 8 output columns in one register, a broadcast weight per tap; stride 2
// keeps the even lanes of 16 loaded values.
__attribute__((target("avx2,fma"), always_inline)) inline __m256 even_lanes(const float* p) {
  const __m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + 8);
  // shuffle_ps works per 128-bit half: [0 2 8 10 | 4 6 12 14]; the 64-bit quarters then reorder
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0x88)), 0xD8));
}

template <int64_t SW>
__attribute__((target("avx2,fma"))) void plane_avx2(const float* buf, const float* w, float bias, float* y,
                                                    const Geometry& g, const Padded& pd) {
  const int64_t oh = g.out[1], ow = g.out[2], kh = g.k[1], kw = g.k[2], sh = g.stride[1], dh = g.dil[1], dw = g.dil[2];
  alignas(32) float tail[kChunk];
  for (int64_t oy = 0; oy < oh; oy++) {
    for (int64_t ox0 = 0; ox0 < ow; ox0 += kChunk) {
      __m256 acc = _mm256_set1_ps(bias);
      for (int64_t ky = 0; ky < kh; ky++) {
        const float* in = buf + (oy * sh + ky * dh) * pd.cols + ox0 * SW;
        for (int64_t kx = 0; kx < kw; kx++) {
          const __m256 k = _mm256_set1_ps(w[ky * kw + kx]);
          const __m256 v = SW == 1 ? _mm256_loadu_ps(in + kx * dw) : even_lanes(in + kx * dw);
          acc = _mm256_fmadd_ps(k, v, acc);
        }
      }
      float* out = y + oy * ow + ox0;
      if (ow - ox0 >= kChunk) {
        _mm256_storeu_ps(out, acc);
      } else {
        _mm256_store_ps(tail, acc);
        std::copy(tail, tail + (ow - ox0), out);
      }
    }
  }
}

}  // namespace

bool serves(const Plan& p, const Tensor& input, const Tensor& weight, bool transposed) {
  const ScalarType dt = input.dtype();
  return !transposed && weight.dim() == 4 && p.groups > 1 && p.groups == p.in_ch && p.out_ch == p.in_ch &&
         (dt == ScalarType::Float32 || dt == ScalarType::Float64) && input.device().type == DeviceType::CPU;
}

void forward(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out) {
  const Tensor x = contiguous(input), w = contiguous(weight);
  const Tensor b = bias.defined() ? contiguous_as(bias, input.dtype()) : Tensor();
  const Geometry& g = p.g;
  const int64_t channels = p.in_ch, in_plane = g.in[1] * g.in[2], out_plane = g.out[1] * g.out[2];
  const int64_t taps = g.k[1] * g.k[2];
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* px = x.data_as<T>();
    const T* pw = w.data_as<T>();
    const T* pb = b.defined() ? b.data_as<T>() : nullptr;
    T* py = out.data_as<T>();
    const Padded pd = padded_size(g);
    const bool avx2 = cpu_has_avx2();
    // a plane is a few thousand multiply-adds at least: one per work item keeps the threads balanced
    parallel_for(p.batch * channels, 1, [&](int64_t lo, int64_t hi) {
      std::vector<T> buf(size_t(pd.rows * pd.cols));
      for (int64_t i = lo; i < hi; i++) {
        const int64_t c = i % channels;
        const T bias = pb ? pb[c] : T(0);
        pad_plane(px + i * in_plane, buf.data(), g, pd);
        if constexpr (std::is_same_v<T, float>) {
          if (avx2 && (g.stride[2] == 1 || g.stride[2] == 2)) {
            if (g.stride[2] == 1)
              plane_avx2<1>(buf.data(), pw + c * taps, bias, py + i * out_plane, g, pd);
            else
              plane_avx2<2>(buf.data(), pw + c * taps, bias, py + i * out_plane, g, pd);
            continue;
          }
        }
        if (g.stride[2] == 1)
          plane<T, 1>(buf.data(), pw + c * taps, bias, py + i * out_plane, g, pd);
        else if (g.stride[2] == 2)
          plane<T, 2>(buf.data(), pw + c * taps, bias, py + i * out_plane, g, pd);
        else
          plane<T, 0>(buf.data(), pw + c * taps, bias, py + i * out_plane, g, pd);
      }
    });
  };
  if (input.dtype() == ScalarType::Float32)
    run(float(0));
  else
    run(double(0));
}

}  // namespace ember::conv::depthwise
