// Column buffers of convolution (im2col / col2im) for 1, 2 or 3 spatial dims. Row r of the column
// matrix is (channel, kernel offset); column j is an output position; entry = the input element
// that kernel offset sees from output position j (zero in the padding). Also the sum of per-thread
// weight-gradient buffers that both convolution paths use.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "device/parallel.h"
#include "tensor/factory.h"
#include "tensor/tensor_impl.h"

namespace ember::conv {

// The geometry of one convolution, spatial dims padded to 3 (leading dims of size 1).
struct Geometry {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

// A range of output lines (a line: the out[2] positions of one (o0, o1) pair).
struct Lines {
  int64_t lo = 0, hi = 0;
  int64_t count() const { return hi - lo; }
};
inline Lines all_lines(const Geometry& g) { return {0, g.out[0] * g.out[1]}; }

// A convolution: its geometry and counts. in_ch/out_ch are the forward convolution's, also when
// it runs transposed.
struct Plan {
  Geometry g;
  int64_t batch = 0, in_ch = 0, out_ch = 0, groups = 1;
};

// A scratch buffer of n values of T from ember's caching allocator: the column matrices are
// megabytes, and a fresh std::vector would page-fault (and zero) them on every call.
template <class T>
T* scratch(Tensor& holder, size_t n) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  holder = empty(DimVec{int64_t(n)}, std::is_same_v<T, double> ? ScalarType::Float64 : ScalarType::Float32);
  return holder.data_as<T>();
}

// dst[o] = src[o * stride] for o in [lo, hi); the common stride 2 as a constant.
template <int kStride, class T>
void strided_copy(const T* src, int64_t lo, int64_t hi, T* dst) {
  for (int64_t o = lo; o < hi; o++) dst[o] = src[o * kStride];
}
template <class T>
void strided_copy(const T* src, int64_t lo, int64_t hi, T* dst, int64_t stride) {
  for (int64_t o = lo; o < hi; o++) dst[o] = src[o * stride];
}

// cols (channels * k_size rows, ld apart) from x (channels planes of in_size): the columns of output
// lines [lines.lo, lines.hi) (a line: out[2] positions of one (o0, o1)).
template <class T>
void im2col(const T* x, int64_t channels, const Geometry& g, T* cols, int64_t ld, Lines lines) {
  const int64_t width = lines.count() * g.out[2], K = g.k_size();
  parallel_for(channels * K, std::max<int64_t>(1, 4096 / std::max<int64_t>(width, 1)), [&](int64_t rb, int64_t re) {
    for (int64_t r = rb; r < re; r++) {
      const int64_t c = r / K, kk = r % K;
      const int64_t k0 = kk / (g.k[1] * g.k[2]), k1 = (kk / g.k[2]) % g.k[1], k2 = kk % g.k[2];
      const T* xc = x + c * g.in_size();
      T* row = cols + r * ld;
      for (int64_t line = lines.lo; line < lines.hi; line++) {
        const int64_t o0 = line / g.out[1], o1 = line % g.out[1];
        const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dil[0];
        T* dst = row + (line - lines.lo) * g.out[2];
        const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dil[1];
        if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1]) {
          std::memset(dst, 0, sizeof(T) * g.out[2]);
          continue;
        }
        const T* src = xc + (i0 * g.in[1] + i1) * g.in[2];
        const int64_t off = k2 * g.dil[2] - g.pad[2];
        if (g.stride[2] == 1) {  // a contiguous run, zeros where it leaves the row
          const int64_t lo = std::max<int64_t>(0, -off), hi = std::min<int64_t>(g.out[2], g.in[2] - off);
          if (hi <= lo) {
            std::memset(dst, 0, sizeof(T) * g.out[2]);
            continue;
          }
          std::memset(dst, 0, sizeof(T) * lo);
          std::memcpy(dst + lo, src + lo + off, sizeof(T) * (hi - lo));
          std::memset(dst + hi, 0, sizeof(T) * (g.out[2] - hi));
        } else {  // strided: the columns inside the row found once, no test per element
          const int64_t s = g.stride[2], last = g.in[2] - 1 - off;  // column o2 reads src[o2 s + off]
          const int64_t lo = std::min(g.out[2], off >= 0 ? 0 : (-off + s - 1) / s);
          const int64_t hi = std::clamp<int64_t>(last < 0 ? 0 : last / s + 1, lo, g.out[2]);
          std::fill(dst, dst + lo, T(0));
          if (s == 2)
            strided_copy<2>(src + off, lo, hi, dst);
          else
            strided_copy(src + off, lo, hi, dst, s);
          std::fill(dst + hi, dst + g.out[2], T(0));
        }
      }
    }
  });
}

// x (channels planes, zeroed by the caller or accumulated into) += the columns of output lines
// [lines.lo, lines.hi) (rows ld apart) put back where im2col took them from; parallel over channels
// (each writes only its own plane).
template <class T>
void col2im(const T* cols, int64_t channels, const Geometry& g, T* x, int64_t ld, Lines lines) {
  const int64_t K = g.k_size();
  parallel_for(channels, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; c++) {
      T* xc = x + c * g.in_size();
      for (int64_t kk = 0; kk < K; kk++) {
        const int64_t k0 = kk / (g.k[1] * g.k[2]), k1 = (kk / g.k[2]) % g.k[1], k2 = kk % g.k[2];
        const T* row = cols + (c * K + kk) * ld;
        for (int64_t line = lines.lo; line < lines.hi; line++) {
          const int64_t o0 = line / g.out[1], o1 = line % g.out[1];
          const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dil[0];
          if (i0 < 0 || i0 >= g.in[0]) continue;
          const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dil[1];
          if (i1 < 0 || i1 >= g.in[1]) continue;
          const T* src = row + (line - lines.lo) * g.out[2];
          T* dst = xc + (i0 * g.in[1] + i1) * g.in[2];
          const int64_t off = k2 * g.dil[2] - g.pad[2];
          const int64_t lo = std::max<int64_t>(0, (-off + g.stride[2] - 1) / g.stride[2]);
          const int64_t hi = std::min<int64_t>(g.out[2], (g.in[2] - off + g.stride[2] - 1) / g.stride[2]);
          if (g.stride[2] == 1) {  // contiguous on both sides: a loop the compiler vectorizes
            T* d = dst + off;
            for (int64_t o2 = lo; o2 < hi; o2++) d[o2] += src[o2];
          } else {
            for (int64_t o2 = lo; o2 < hi; o2++) dst[o2 * g.stride[2] + off] += src[o2];
          }
        }
      }
    }
  });
}

// out (n values) = the sum of the defined buffers in partials: the per-thread sums of a weight
// gradient, added across the threads in slices.
template <class T>
void sum_partials(const std::vector<Tensor>& partials, int64_t n, T* out) {
  std::vector<const T*> parts;
  for (const Tensor& t : partials)
    if (t.defined()) parts.push_back(t.data_as<T>());
  parallel_for(n, 1 << 14, [&](int64_t lo, int64_t hi) {
    std::fill(out + lo, out + hi, T(0));
    for (const T* part : parts)
      for (int64_t i = lo; i < hi; i++) out[i] += part[i];
  });
}

}  // namespace ember::conv
