// batch_norm's channels-last passes (see batch_norm_nhwc.h).
#include "kernels/cpu/batch_norm_nhwc.h"

#include <algorithm>

#include "device/parallel.h"
#include "iter/copy.h"
#include "tensor/memory_format.h"

namespace ember::bn::nhwc {

namespace {

constexpr int64_t kBlockRows = 256;  // fixed, so the order of the partial sums is too

MemoryFormat format_of(const Tensor& t) {
  return t.dim() == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast;
}

// out[k][ch] = sum over the rows of block b of f(row, ch, k) for k < K, the blocks' sums added in order.
template <int K, class F>
void channel_sums(int64_t rows, int64_t c, const F& f, std::vector<double>* out) {
  const int64_t blocks = (rows + kBlockRows - 1) / kBlockRows;
  std::vector<double> partial(size_t(blocks * K * c), 0.0);
  parallel_for(blocks, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; b++) {
      double* acc = partial.data() + b * K * c;
      for (int64_t r = b * kBlockRows; r < std::min(rows, (b + 1) * kBlockRows); r++) f(r, acc);
    }
  });
  for (int k = 0; k < K; k++) out[k].assign(size_t(c), 0.0);
  for (int64_t b = 0; b < blocks; b++)
    for (int k = 0; k < K; k++)
      for (int64_t ch = 0; ch < c; ch++) out[k][size_t(ch)] += partial[size_t((b * K + k) * c + ch)];
}

}  // namespace

bool wanted(const Tensor& input) {
  const MemoryFormat f = suggest_memory_format(input);
  return (input.dim() == 4 && f == MemoryFormat::ChannelsLast) ||
         (input.dim() == 5 && f == MemoryFormat::ChannelsLast3d);
}

Tensor dense_like(const Tensor& t, const Tensor& input, ScalarType dtype) {
  const MemoryFormat f = format_of(input);
  if (t.dtype() == dtype && is_contiguous_in(t, f)) return t;
  Tensor out = empty_strided(t.sizes(), memory_format_strides(t.sizes(), f), dtype, t.device());
  copy_(out, t);
  return out;
}

Tensor empty_like_format(const Tensor& input) {
  return empty_strided(input.sizes(), memory_format_strides(input.sizes(), format_of(input)), input.dtype(),
                       input.device());
}

template <class T>
void stats(const T* x, int64_t rows, int64_t c, std::vector<double>& mean, std::vector<double>& var) {
  std::vector<double> s[1];
  channel_sums<1>(
      rows, c,
      [&](int64_t r, double* acc) {
        for (int64_t ch = 0; ch < c; ch++) acc[ch] += double(x[r * c + ch]);
      },
      s);
  mean = s[0];
  for (double& m : mean) m /= double(rows);
  channel_sums<1>(
      rows, c,
      [&](int64_t r, double* acc) {
        for (int64_t ch = 0; ch < c; ch++) {
          const double d = double(x[r * c + ch]) - mean[size_t(ch)];
          acc[ch] += d * d;
        }
      },
      s);
  var = s[0];
  for (double& v : var) v /= double(rows);
}

template <class T>
void affine(const T* x, int64_t rows, int64_t c, const std::vector<double>& scale, const std::vector<double>& shift,
            T* y) {
  std::vector<T> a(scale.begin(), scale.end()), b(shift.begin(), shift.end());
  parallel_for(rows, 64, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++)
      for (int64_t ch = 0; ch < c; ch++) y[r * c + ch] = x[r * c + ch] * a[size_t(ch)] + b[size_t(ch)];
  });
}

template <class T>
void grad_sums(const T* g, const T* x, int64_t rows, int64_t c, const std::vector<double>& mean,
               std::vector<double>& sg, std::vector<double>& sgx) {
  std::vector<double> s[2];
  channel_sums<2>(
      rows, c,
      [&](int64_t r, double* acc) {
        for (int64_t ch = 0; ch < c; ch++) {
          const double gv = double(g[r * c + ch]);
          acc[ch] += gv;
          acc[c + ch] += gv * (double(x[r * c + ch]) - mean[size_t(ch)]);
        }
      },
      s);
  sg = s[0];
  sgx = s[1];
}

template <class T>
void input_grad(const T* g, const T* x, int64_t rows, int64_t c, const std::vector<double>& k,
                const std::vector<double>& mg, const std::vector<double>& mean, const std::vector<double>& kx, T* o) {
  // o = k g - kx x + (kx mean - k mg): one multiply-add pair per element
  std::vector<T> a(static_cast<size_t>(c)), b(static_cast<size_t>(c)), d(static_cast<size_t>(c));
  for (int64_t ch = 0; ch < c; ch++) {
    a[size_t(ch)] = T(k[size_t(ch)]);
    b[size_t(ch)] = T(kx[size_t(ch)]);
    d[size_t(ch)] = T(kx[size_t(ch)] * mean[size_t(ch)] - k[size_t(ch)] * mg[size_t(ch)]);
  }
  parallel_for(rows, 64, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++)
      for (int64_t ch = 0; ch < c; ch++)
        o[r * c + ch] = g[r * c + ch] * a[size_t(ch)] - x[r * c + ch] * b[size_t(ch)] + d[size_t(ch)];
  });
}

#define EMBER_BN_NHWC(T)                                                                                             \
  template void stats<T>(const T*, int64_t, int64_t, std::vector<double>&, std::vector<double>&);                    \
  template void affine<T>(const T*, int64_t, int64_t, const std::vector<double>&, const std::vector<double>&, T*);   \
  template void grad_sums<T>(const T*, const T*, int64_t, int64_t, const std::vector<double>&, std::vector<double>&, \
                             std::vector<double>&);                                                                  \
  template void input_grad<T>(const T*, const T*, int64_t, int64_t, const std::vector<double>&,                      \
                              const std::vector<double>&, const std::vector<double>&, const std::vector<double>&, T*);
EMBER_BN_NHWC(float)
EMBER_BN_NHWC(double)
#undef EMBER_BN_NHWC

}  // namespace ember::bn::nhwc
