// histc (equal-width bins over [min, max], NumPy's bin placement with edge correction) and bincount
// (counts or weight sums of non-negative integers). Pieces count into local integer histograms.
#include <algorithm>
#include <cmath>
#include <vector>

#include "device/parallel.h"
#include "generated/ops/bincount.h"
#include "generated/ops/histc.h"
#include "iter/copy.h"
#include "kernels/cpu/sort_keys.h"
#include "kernels/cpu/sort_out.h"

namespace ember::ops {

using namespace sorting;

namespace {

constexpr int64_t kMinPiece = int64_t(1) << 15;  // elements worth a local histogram of their own

template <class T>
void histc_kernel(const T* x, int64_t n, int64_t bins, double lo, double hi, double* counts) {
  // Edges as linspace(lo, hi, bins + 1) in double; a linear guess of the bin, corrected against them.
  std::vector<double> edges(bins + 1);
  const double step = (hi - lo) / double(bins);
  for (int64_t i = 0; i <= bins; i++) edges[i] = i == bins ? hi : lo + step * double(i);
  const double norm = double(bins) / (hi - lo);
  // One integer histogram per piece (counts add exactly, so the split cannot change the result).
  const int64_t pieces = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), n / kMinPiece));
  const int64_t chunk = (n + pieces - 1) / pieces;
  std::vector<int64_t> local(size_t(pieces) * bins, 0);
  parallel_for(pieces, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; c++) {
      int64_t* h = &local[size_t(c) * bins];
      const int64_t b = c * chunk, e = std::min(n, b + chunk);
      for (int64_t i = b; i < e; i++) {
        const double v = double(opmath_t<T>(x[i]));
        if (!(v >= lo && v <= hi)) continue;  // outside the range, or NaN
        int64_t p = int64_t((v - lo) * norm);
        p = std::min(std::max<int64_t>(p, 0), bins - 1);
        if (v < edges[p])
          p--;
        else if (p + 1 < bins && v >= edges[p + 1])
          p++;
        h[p]++;
      }
    }
  });
  for (int64_t c = 0; c < pieces; c++)
    for (int64_t b = 0; b < bins; b++) counts[b] += double(local[size_t(c) * bins + b]);
}

}  // namespace

Tensor histc(const Tensor& input, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK(is_floating(input.dtype()), Type, "\"histc\" is not implemented for dtype ", dtype_name(input.dtype()),
              " (floating dtypes only)");
  EMBER_CHECK(bins > 0, Runtime, "histc(): bins must be > 0, but got ", bins);
  double lo = min.to_double(), hi = max.to_double();
  EMBER_CHECK(!(std::isnan(lo) || std::isnan(hi)), Runtime, "histc(): range of [", lo, ", ", hi, "] is not finite");
  EMBER_CHECK(lo <= hi, Runtime, "histc(): max must be larger than min, got min=", lo, " max=", hi);
  Tensor out = empty({bins}, input.dtype(), input.device());
  if (input.is_meta()) return out;
  const Tensor x = ember::contiguous(input);
  const int64_t n = x.numel();
  std::vector<double> counts(bins, 0.0);
  visit_dtype(input.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<opmath_t<T>> && !is_complex_v<T>) {
      const T* p = x.data_as<T>();
      if (lo == hi && n > 0) {  // the range of the data (min == max means "use the data")
        double mn = INFINITY, mx = -INFINITY;
        bool nan = false;
        for (int64_t i = 0; i < n; i++) {
          const double v = double(opmath_t<T>(p[i]));
          nan |= std::isnan(v);
          mn = std::min(mn, v);
          mx = std::max(mx, v);
        }
        EMBER_CHECK(!nan && std::isfinite(mn) && std::isfinite(mx), Runtime, "histc(): range of [", nan ? NAN : mn,
                    ", ", nan ? NAN : mx, "] is not finite");
        lo = mn;
        hi = mx;
      }
      EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), Runtime, "histc(): range of [", lo, ", ", hi,
                  "] is not finite");
      if (lo == hi) {
        lo -= 1;
        hi += 1;
      }
      histc_kernel(p, n, bins, lo, hi, counts.data());
      T* o = out.data_as<T>();
      for (int64_t b = 0; b < bins; b++) o[b] = T(opmath_t<T>(counts[b]));
    }
  });
  return out;
}

Tensor histc_out(const Tensor& out, const Tensor& input, int64_t bins, const Scalar& min, const Scalar& max) {
  write_out(out, histc(input, bins, min, max), "histc");
  return out;
}

// bincount: counts (int64) or, with weights, sums of weights (float32 weights sum into float32, any
// other dtype into float64, as in PyTorch).
Tensor bincount(const Tensor& input, const Tensor& weights, int64_t minlength) {
  EMBER_CHECK(is_integral(input.dtype(), false) && input.dim() == 1, Runtime,
              "bincount only supports 1-d non-negative integral inputs (got a ", input.dim(), "-d ",
              dtype_name(input.dtype()), " tensor)");
  EMBER_CHECK(minlength >= 0, Runtime, "bincount(): minlength should be >= 0, got ", minlength);
  const bool weighted = weights.defined();
  if (weighted) {
    EMBER_CHECK(weights.dim() == 1 && weights.sizes()[0] == input.sizes()[0], Runtime,
                "bincount(): weights should be 1-d and have the same length as input (got weights of shape ",
                weights.sizes(), " for input of shape ", input.sizes(), ")");
    EMBER_CHECK(!is_complex(weights.dtype()), Type, "bincount(): complex weights are not supported");
  }
  EMBER_CHECK(!input.is_meta(), NotImplemented,
              "bincount(): the output size depends on the data, so it cannot run on meta tensors");
  const Tensor idx = to_dtype(ember::contiguous(input), ScalarType::Int64);
  const int64_t n = idx.numel();
  const int64_t* ip = idx.data_as<int64_t>();
  int64_t len = minlength;
  for (int64_t i = 0; i < n; i++) {
    EMBER_CHECK(ip[i] >= 0, Runtime, "bincount only supports 1-d non-negative integral inputs (found ", ip[i],
                " at index ", i, ")");
    len = std::max(len, ip[i] + 1);
  }
  if (!weighted) {
    Tensor out = empty({len}, ScalarType::Int64, input.device());
    int64_t* o = out.data_as<int64_t>();
    std::fill(o, o + len, 0);
    for (int64_t i = 0; i < n; i++) o[ip[i]]++;
    return out;
  }
  const ScalarType wt = weights.dtype() == ScalarType::Float32 ? ScalarType::Float32 : ScalarType::Float64;
  const Tensor w = to_dtype(ember::contiguous(weights), ScalarType::Float64);
  const double* wp = w.data_as<double>();
  std::vector<double> acc(len, 0.0);
  for (int64_t i = 0; i < n; i++) acc[ip[i]] += wp[i];
  Tensor out = empty({len}, wt, input.device());
  if (wt == ScalarType::Float32)
    for (int64_t i = 0; i < len; i++) out.data_as<float>()[i] = float(acc[i]);
  else
    std::copy(acc.begin(), acc.end(), out.data_as<double>());
  return out;
}

}  // namespace ember::ops
