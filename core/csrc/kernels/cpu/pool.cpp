// Pooling over 1-3 spatial dims of batched (N, C, *spatial) input, a plane (n, c) per task:
// max_pool (with the flat spatial index of each max, NaN winning as in PyTorch), avg_pool and its
// adjoint avg_pool_backward, adaptive_avg_pool and its adjoint, adaptive_max_pool. Windows follow
// PyTorch's rules for padding, dilation, ceil_mode, count_include_pad and divisor_override.
#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "device/cpu_features.h"
#include "device/parallel.h"
#include "generated/ops/adaptive_avg_pool.h"
#include "generated/ops/adaptive_avg_pool_backward.h"
#include "generated/ops/adaptive_max_pool.h"
#include "generated/ops/avg_pool.h"
#include "generated/ops/avg_pool_backward.h"
#include "generated/ops/max_pool.h"
#include "generated/ops/max_pool_backward.h"
#include "iter/copy.h"
#include "kernels/convert.h"
#include "kernels/cpu/convert_bf16_avx512.h"
#include "kernels/cpu/pool_max2x2.h"
#include "kernels/cpu/pool_nhwc.h"
#include "kernels/cpu/pool_windows.h"
#include "kernels/visit_float.h"
#include "tensor/factory.h"

namespace ember::ops {

namespace {

using pool::avg_divisor;
using pool::Axis;
using pool::in_window;
using pool::sweep;
using pool::Windows;

int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  // in 128 bits: a stride or padding near INT64_MAX must not wrap (the window span is checked to fit)
  using wide = __int128;
  const wide span = wide(d) * (k - 1) + 1;
  const wide num = wide(in) + 2 * wide(p) - span + (ceil_mode ? wide(s) - 1 : 0);
  // floor, not C++'s truncation: a window wider than the padded input must give a size <= 0
  wide out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= wide(in) + p) out--;  // the last window must start inside the input or left padding
  return int64_t(out);                                    // <= in + 2p + 1: fits
}

DimVec per_dim(const DimVec& v, int64_t nd, const char* what, const char* op, int64_t fallback = -1) {
  if (v.empty() && fallback >= 0) return DimVec(nd, fallback);
  if (v.size() == 1) return DimVec(nd, v[0]);
  EMBER_CHECK(int64_t(v.size()) == nd, Runtime, op, ": ", what, " must be a single int or ", nd, " ints");
  return v;
}

// The windows of a (max/avg) pool; kernel_size gives the number of spatial dims.
Windows pool_windows(const DimVec& in_sizes, const DimVec& kernel, const DimVec& stride_in, const DimVec& pad_in,
                     const DimVec& dil_in, bool ceil_mode, const char* op) {
  const int64_t nd = kernel.size();
  EMBER_CHECK(nd >= 1 && nd <= 3, Runtime, op, ": kernel_size must have 1 to 3 values");
  EMBER_CHECK(int64_t(in_sizes.size()) == nd + 2, Runtime, op, ": expected a ", nd + 2,
              "-D batched input (N, C, *spatial), got ", in_sizes.size(), "-D");
  const DimVec stride = stride_in.empty() ? kernel : per_dim(stride_in, nd, "stride", op);
  const DimVec pad = per_dim(pad_in, nd, "padding", op, 0), dil = per_dim(dil_in, nd, "dilation", op, 1);
  Windows w;
  w.nd = nd;
  for (int64_t d = 0; d < nd; d++) {
    Axis& a = w.ax[3 - nd + d];
    a.in = in_sizes[2 + d];
    a.k = kernel[d];
    a.stride = stride[d];
    a.pad = pad[d];
    a.dil = dil[d];
    EMBER_CHECK(a.k > 0 && a.stride > 0 && a.dil > 0, Runtime, op,
                ": kernel_size, stride and dilation must be "
                "greater than zero");
    EMBER_CHECK(a.k - 1 <= (std::numeric_limits<int64_t>::max() - 1) / a.dil, Runtime, op,
                ": the effective kernel size dilation * (kernel_size - 1) + 1 overflows int64 (kernel_size=", a.k,
                ", dilation=", a.dil, ")");
    EMBER_CHECK(a.pad >= 0 && a.pad <= a.k / 2, Runtime, op,  // (2 * pad could wrap)
                ": pad should be at most half of effective kernel size, "
                "but got pad=",
                a.pad, ", kernel_size=", a.k);
    a.out = pooled_size(a.in, a.k, a.stride, a.pad, a.dil, ceil_mode);
    EMBER_CHECK(a.out > 0, Runtime, op, ": Given input size per channel (", a.in, "), the calculated output size is ",
                a.out, ", which is too small");
  }
  return w;
}

Windows adaptive_windows(const DimVec& in_sizes, const DimVec& out_size, const char* op) {
  const int64_t nd = out_size.size();
  EMBER_CHECK(nd >= 1 && nd <= 3, Runtime, op, ": output_size must have 1 to 3 values");
  EMBER_CHECK(int64_t(in_sizes.size()) == nd + 2, Runtime, op, ": expected a ", nd + 2,
              "-D batched input (N, C, *spatial), got ", in_sizes.size(), "-D");
  Windows w;
  w.nd = nd;
  for (int64_t d = 0; d < nd; d++) {
    Axis& a = w.ax[3 - nd + d];
    a.in = in_sizes[2 + d];
    a.out = out_size[d];
    a.adaptive = true;
    EMBER_CHECK(a.out >= 0, Runtime, op, ": output_size must be non-negative");
    EMBER_CHECK(a.in > 0 || a.out == 0, Runtime, op, ": expected a non-empty input spatial dim");
  }
  return w;
}

bool same_size(const Windows& w) {
  for (const Axis& a : w.ax)
    if (a.in != a.out) return false;
  return true;
}

DimVec out_sizes(const DimVec& in_sizes, const Windows& w) {
  DimVec s{in_sizes[0], in_sizes[1]};
  for (int64_t d = 3 - w.nd; d < 3; d++) s.push_back(w.ax[d].out);
  return s;
}

// Whether w is 2-d (fixed, not adaptive) with k x k windows, this stride and padding, no dilation.
bool square_2d(const Windows& w, int64_t k, int64_t stride, int64_t pad) {
  if (w.ax[0].out != 1 || w.ax[0].in != 1 || w.ax[0].k != 1) return false;
  for (int d = 1; d < 3; d++) {
    const Axis& a = w.ax[d];
    if (a.adaptive || a.k != k || a.stride != stride || a.pad != pad || a.dil != 1) return false;
  }
  return true;
}

// A 16-bit plane to float32 and back (rounded once), bfloat16 on AVX-512 16 values a step.
template <class T>
void widen_plane(const T* x, int64_t n, float* out) {
  if constexpr (std::is_same_v<T, BFloat16>)
    if (cpu_has_avx512()) return bf16cvt::widen(reinterpret_cast<const uint16_t*>(x), n, out);
  for (int64_t i = 0; i < n; i++) out[i] = float(x[i]);
}
template <class T>
void round_plane(const float* x, int64_t n, T* out) {
  if constexpr (std::is_same_v<T, BFloat16>)
    if (cpu_has_avx512()) return bf16cvt::narrow(x, n, reinterpret_cast<uint16_t*>(out));
  for (int64_t i = 0; i < n; i++) out[i] = convert<T>(x[i]);
}

// The float32 max3x3s2 for 16-bit floats: each plane widened (exactly) into a scratch plane, the
// maxima's indices found there, and the values taken from the input by index (bit for bit, NaN
// payloads included, as the direct loop copies them).
template <class T>
void max3x3s2_widened(const T* x, int64_t planes, const Axis& ah, const Axis& aw, T* values, int64_t* indices) {
  const int64_t S = ah.in * aw.in, L = ah.out * aw.out;
  parallel_for(planes, 1, [&](int64_t pb, int64_t pe) {
    const Tensor scratch = empty(DimVec{S + L}, ScalarType::Float32);  // the caching allocator: no page faults
    float* plane = scratch.data_as<float>();
    for (int64_t pl = pb; pl < pe; pl++) {
      const T* xp = x + pl * S;
      widen_plane(xp, S, plane);
      int64_t* ip = indices + pl * L;
      pool::max3x3s2(plane, 1, ah.in, aw.in, ah.out, aw.out, plane + S, ip);
      for (int64_t o = 0; o < L; o++) values[pl * L + o] = xp[ip[o]];
    }
  });
}

std::tuple<Tensor, Tensor> max_planes(const Tensor& input, const Windows& w, const char* op) {
  if (pool::nhwc::wanted(input)) return pool::nhwc::max(input, w, op);
  const DimVec osz = out_sizes(input.sizes(), w);
  Tensor values = empty(osz, input.dtype(), input.device()), indices = empty(osz, ScalarType::Int64, input.device());
  if (input.is_meta() || values.numel() == 0) return {values, indices};
  const Tensor x = contiguous(input);
  const int64_t planes = osz[0] * osz[1], L = w.out_size(), S = w.in_size();
  visit_real_float(input.dtype(), op, [&](auto z) {
    using T = decltype(z);
    using C = opmath_t<T>;
    const Axis &ah = w.ax[1], &aw = w.ax[2];
    if constexpr (std::is_same_v<T, float>) {
      if (square_2d(w, 2, 2, 0) && pool::max2x2_applies(ah.in, aw.in, ah.out, aw.out)) {
        parallel_for(planes, 1, [&](int64_t pb, int64_t pe) {
          pool::max2x2(x.data_as<float>() + pb * S, pe - pb, ah.in, aw.in, ah.out, aw.out,
                       values.data_as<float>() + pb * L, indices.data_as<int64_t>() + pb * L);
        });
        return;
      }
      if (square_2d(w, 3, 2, 1) && pool::max3x3s2_applies(ah.in, aw.in, ah.out, aw.out)) {
        parallel_for(planes, 1, [&](int64_t pb, int64_t pe) {
          pool::max3x3s2(x.data_as<float>() + pb * S, pe - pb, ah.in, aw.in, ah.out, aw.out,
                         values.data_as<float>() + pb * L, indices.data_as<int64_t>() + pb * L);
        });
        return;
      }
    }
    if constexpr (sizeof(T) == 2) {  // bfloat16 / float16 (ResNet's pool under autocast)
      if (square_2d(w, 3, 2, 1) && pool::max3x3s2_applies(ah.in, aw.in, ah.out, aw.out))
        return max3x3s2_widened(x.data_as<T>(), planes, ah, aw, values.data_as<T>(), indices.data_as<int64_t>());
    }
    if (w.ax[0].out == 1 && w.ax[0].in == 1 && w.ax[0].k == 1 && w.ax[0].pad == 0 && !ah.adaptive && !aw.adaptive) {
      // 1-d and 2-d windows: direct loops over the window's rows (the common max_pool2d)
      parallel_for(planes, 1, [&](int64_t pb, int64_t pe) {
        for (int64_t pl = pb; pl < pe; pl++) {
          const T* xp = x.data_as<T>() + pl * S;
          T* vp = values.data_as<T>() + pl * L;
          int64_t* ip = indices.data_as<int64_t>() + pl * L;
          for (int64_t oh = 0; oh < ah.out; oh++) {
            const int64_t h0 = oh * ah.stride - ah.pad;
            // the window rows inside the input, found once per output row (no checks in the loop)
            int64_t kh_lo = 0, kh_hi = ah.k;
            while (kh_lo < ah.k && h0 + kh_lo * ah.dil < 0) kh_lo++;
            while (kh_hi > kh_lo && h0 + (kh_hi - 1) * ah.dil >= ah.in) kh_hi--;
            for (int64_t ow = 0; ow < aw.out; ow++) {
              const int64_t w0 = ow * aw.stride - aw.pad;
              int64_t kw_lo = 0, kw_hi = aw.k;
              while (kw_lo < aw.k && w0 + kw_lo * aw.dil < 0) kw_lo++;
              while (kw_hi > kw_lo && w0 + (kw_hi - 1) * aw.dil >= aw.in) kw_hi--;
              // branch-free (random data makes "v > best" unpredictable): a running max and its
              // index by selects, and the last NaN kept apart (NaN wins, the last one as in PyTorch)
              C best = -std::numeric_limits<C>::infinity();
              int64_t at = (h0 + kh_lo * ah.dil) * aw.in + w0 + kw_lo * aw.dil, nan_at = -1;
              for (int64_t kh = kh_lo; kh < kh_hi; kh++) {
                const int64_t base = (h0 + kh * ah.dil) * aw.in;
                for (int64_t kw = kw_lo; kw < kw_hi; kw++) {
                  const int64_t j = base + w0 + kw * aw.dil;
                  const C v = convert<C>(xp[j]);
                  const bool gt = v > best;
                  best = gt ? v : best;
                  at = gt ? j : at;
                  nan_at = (v != v) ? j : nan_at;
                }
              }
              if (kh_lo >= kh_hi || kw_lo >= kw_hi) {  // a dilated window can miss the input entirely
                best = -std::numeric_limits<C>::infinity();
                at = 0;
              } else if (nan_at >= 0) {
                best = convert<C>(xp[nan_at]);
                at = nan_at;
              }
              vp[oh * aw.out + ow] = convert<T>(best);
              ip[oh * aw.out + ow] = at < 0 ? 0 : at;
            }
          }
        }
      });
      return;
    }
    parallel_for(planes, 1, [&](int64_t pb, int64_t pe) {
      for (int64_t pl = pb; pl < pe; pl++) {
        const T* xp = x.data_as<T>() + pl * S;
        T* vp = values.data_as<T>() + pl * L;
        int64_t* ip = indices.data_as<int64_t>() + pl * L;
        C best = 0;
        int64_t at = -1;
        sweep(
            w, [&](int64_t, int64_t, int64_t, int64_t) { at = -1; },
            [&](int64_t, int64_t j) {
              const C v = convert<C>(xp[j]);
              if (at < 0 || v > best || v != v) {
                best = v;
                at = j;
              }
            },
            [&](int64_t o, int64_t, int64_t, int64_t) {
              vp[o] = at < 0 ? convert<T>(-std::numeric_limits<C>::infinity()) : convert<T>(best);
              ip[o] = at < 0 ? 0 : at;
            });
      }
    });
  });
  return {values, indices};
}

// forward: out[o] = sum(x[window(o)]) / divisor(o); adjoint: x[window(o)] += g[o] / divisor(o).
void avg_apply(const Tensor& src, const Tensor& dst, const Windows& w, bool count_include_pad,
               std::optional<int64_t> divisor_override, bool adjoint, const char* op) {
  const int64_t planes = src.sizes()[0] * src.sizes()[1], L = w.out_size(), S = w.in_size();
  EMBER_CHECK(!divisor_override || *divisor_override != 0, Runtime, op, ": divisor must be not zero");
  const std::vector<int64_t> divisor = avg_divisors(w, count_include_pad, divisor_override);
  visit_real_float(src.dtype(), op, [&](auto z) {
    using T = decltype(z);
    using C = opmath_t<T>;
    parallel_for(planes, 1, [&](int64_t pb, int64_t pe) {
      std::vector<C> acc(adjoint ? size_t(S) : 0);
      for (int64_t pl = pb; pl < pe; pl++) {
        const T* sp = src.data_as<T>() + pl * (adjoint ? L : S);
        T* dp = dst.data_as<T>() + pl * (adjoint ? S : L);
        C sum = 0;
        if (!adjoint) {
          sweep(
              w, [&](int64_t, int64_t, int64_t, int64_t) { sum = 0; },
              [&](int64_t, int64_t j) { sum += convert<C>(sp[j]); },
              [&](int64_t o, int64_t, int64_t, int64_t) {
                const int64_t dv = divisor[size_t(o)];
                dp[o] = convert<T>(dv ? sum / C(dv) : C(NAN));
              });
          continue;
        }
        std::fill(acc.begin(), acc.end(), C(0));
        C share = 0;
        sweep(
            w,
            [&](int64_t o, int64_t, int64_t, int64_t) {
              const int64_t dv = divisor[size_t(o)];
              share = dv ? convert<C>(sp[o]) / C(dv) : C(0);
            },
            [&](int64_t, int64_t j) { acc[size_t(j)] += share; }, [&](int64_t, int64_t, int64_t, int64_t) {});
        for (int64_t j = 0; j < S; j++) dp[j] = convert<T>(acc[size_t(j)]);
      }
    });
  });
}

// A pooling op's new output: in `like`'s channels-last format when it runs on NHWC (pool_nhwc.h).
Tensor new_output(const DimVec& sizes, const Tensor& like) {
  return pool::nhwc::wanted(like) ? pool::nhwc::empty_like_format(sizes, like.dtype(), like)
                                  : empty(sizes, like.dtype(), like.device());
}

void apply_avg(const Tensor& src, const Tensor& dst, const Windows& w, bool count_include_pad,
               std::optional<int64_t> divisor_override, bool adjoint, const char* op) {
  if (pool::nhwc::wanted(src)) return pool::nhwc::avg(src, dst, w, count_include_pad, divisor_override, adjoint, op);
  avg_apply(contiguous(src), dst, w, count_include_pad, divisor_override, adjoint, op);
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool(const Tensor& input, const DimVec& kernel_size, const DimVec& stride,
                                    const DimVec& padding, const DimVec& dilation, bool ceil_mode) {
  return max_planes(input, pool_windows(input.sizes(), kernel_size, stride, padding, dilation, ceil_mode, "max_pool"),
                    "max_pool");
}

std::tuple<Tensor, Tensor> adaptive_max_pool(const Tensor& input, const DimVec& output_size) {
  return max_planes(input, adaptive_windows(input.sizes(), output_size, "adaptive_max_pool"), "adaptive_max_pool");
}

Tensor max_pool_backward(const Tensor& grad_output, const Tensor& indices, const DimVec& input_sizes) {
  EMBER_CHECK(indices.dtype() == ScalarType::Int64, Runtime, "max_pool_backward: indices must be int64, got ",
              dtype_name(indices.dtype()));
  EMBER_CHECK(grad_output.sizes() == indices.sizes(), Runtime, "max_pool_backward: grad_output ", grad_output.sizes(),
              " and indices ", indices.sizes(), " must have the same shape");
  EMBER_CHECK(int64_t(input_sizes.size()) == grad_output.dim() && grad_output.dim() >= 3 &&
                  input_sizes[0] == grad_output.sizes()[0] && input_sizes[1] == grad_output.sizes()[1],
              Runtime, "max_pool_backward: input sizes ", input_sizes, " do not fit grad_output ", grad_output.sizes());
  if (pool::nhwc::wanted(grad_output)) return pool::nhwc::max_backward(grad_output, indices, input_sizes);
  Tensor out = empty(input_sizes, grad_output.dtype(), grad_output.device());
  if (grad_output.is_meta() || out.numel() == 0) return out;
  const int64_t planes = input_sizes[0] * input_sizes[1], S = out.numel() / planes;
  const int64_t L = planes ? grad_output.numel() / planes : 0;
  const Tensor g = contiguous(grad_output), idx = contiguous(indices);
  const int64_t* ip = idx.data_as<int64_t>();
  // Each plane is zeroed and filled by one thread while it is in cache. The first bad index (in
  // flat order, whatever the threads' timing) is noted, not thrown inside the threads, and raised
  // afterwards; the output is then discarded.
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  std::atomic<int64_t> bad{kNone};
  visit_real_float(out.dtype(), "max_pool_backward", [&](auto z) {
    using T = decltype(z);
    using C = opmath_t<T>;
    parallel_for(planes, 1, [&](int64_t pb, int64_t pe) {
      // 16-bit planes are summed in a float plane and rounded once (overlapping windows add up).
      constexpr bool narrow = !std::is_same_v<T, C>;
      const Tensor scratch = narrow ? empty(DimVec{S}, ScalarType::Float32) : Tensor();
      for (int64_t pl = pb; pl < pe; pl++) {
        const T* gp = g.data_as<T>() + pl * L;
        const int64_t* jp = ip + pl * L;
        T* dp = out.data_as<T>() + pl * S;
        C* acc = narrow ? reinterpret_cast<C*>(scratch.data_as<float>()) : reinterpret_cast<C*>(dp);
        std::fill(acc, acc + S, C(0));
        for (int64_t o = 0; o < L; o++) {
          const int64_t j = jp[o];
          if (j < 0 || j >= S) {
            int64_t seen = bad.load();
            while (pl * L + o < seen && !bad.compare_exchange_weak(seen, pl * L + o)) {
            }
            break;
          }
          acc[j] += convert<C>(gp[o]);
        }
        if constexpr (narrow) round_plane(reinterpret_cast<const float*>(acc), S, dp);
      }
    });
  });
  const int64_t at = bad.load();
  EMBER_CHECK(at == kNone, Index, "max_pool_backward: index ", at == kNone ? 0 : ip[at],
              " is out of bounds for a plane of ", S, " elements");
  return out;
}

Tensor avg_pool(const Tensor& input, const DimVec& kernel_size, const DimVec& stride, const DimVec& padding,
                bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const Windows w = pool_windows(input.sizes(), kernel_size, stride, padding, DimVec{}, ceil_mode, "avg_pool");
  Tensor out = new_output(out_sizes(input.sizes(), w), input);
  if (input.is_meta() || out.numel() == 0) return out;
  apply_avg(input, out, w, count_include_pad, divisor_override, false, "avg_pool");
  return out;
}

Tensor avg_pool_backward(const Tensor& grad_output, const DimVec& input_sizes, const DimVec& kernel_size,
                         const DimVec& stride, const DimVec& padding, bool ceil_mode, bool count_include_pad,
                         std::optional<int64_t> divisor_override) {
  const Windows w = pool_windows(input_sizes, kernel_size, stride, padding, DimVec{}, ceil_mode, "avg_pool_backward");
  EMBER_CHECK(grad_output.sizes() == out_sizes(input_sizes, w), Runtime,
              "avg_pool_backward: grad_output has the "
              "wrong shape for the pooled input");
  Tensor out = new_output(input_sizes, grad_output);
  if (grad_output.is_meta() || out.numel() == 0) return out;
  if (grad_output.numel() == 0) {
    fill_(out, Scalar(0.0));
    return out;
  }
  apply_avg(grad_output, out, w, count_include_pad, divisor_override, true, "avg_pool_backward");
  return out;
}

Tensor adaptive_avg_pool(const Tensor& input, const DimVec& output_size) {
  const Windows w = adaptive_windows(input.sizes(), output_size, "adaptive_avg_pool");
  Tensor out = new_output(out_sizes(input.sizes(), w), input);
  if (input.is_meta() || out.numel() == 0) return out;
  if (same_size(w)) {  // each window is one element
    copy_(out, input);
    return out;
  }
  apply_avg(input, out, w, false, std::nullopt, false, "adaptive_avg_pool");
  return out;
}

Tensor adaptive_avg_pool_backward(const Tensor& grad_output, const DimVec& input_sizes) {
  DimVec osz;
  for (int64_t d = 2; d < grad_output.dim(); d++) osz.push_back(grad_output.sizes()[d]);
  const Windows w = adaptive_windows(input_sizes, osz, "adaptive_avg_pool_backward");
  // grad_output's planes are read as the input's: (N, C) must agree, not only the ranks
  EMBER_CHECK(grad_output.sizes()[0] == input_sizes[0] && grad_output.sizes()[1] == input_sizes[1], Runtime,
              "adaptive_avg_pool_backward(): grad_output ", grad_output.sizes(), " does not fit input sizes ",
              input_sizes);
  Tensor out = new_output(input_sizes, grad_output);
  if (grad_output.is_meta() || out.numel() == 0) return out;
  if (grad_output.numel() == 0) {
    fill_(out, Scalar(0.0));
    return out;
  }
  if (same_size(w)) {
    copy_(out, grad_output);
    return out;
  }
  apply_avg(grad_output, out, w, false, std::nullopt, true, "adaptive_avg_pool_backward");
  return out;
}

}  // namespace ember::ops
