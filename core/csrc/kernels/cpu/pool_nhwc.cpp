// Channels-last pooling kernels (see pool_nhwc.h).
#include "kernels/cpu/pool_nhwc.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "device/parallel.h"
#include "iter/copy.h"
#include "kernels/convert.h"
#include "kernels/visit_float.h"
#include "tensor/memory_format.h"

namespace ember::pool::nhwc {

namespace {

MemoryFormat format_of(const Tensor& t) {
  return t.dim() == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast;
}

// t itself when dense in its channels-last format, else a copy that is.
Tensor dense(const Tensor& t, MemoryFormat f) {
  if (is_contiguous_in(t, f)) return t;
  Tensor out = empty_strided(t.sizes(), memory_format_strides(t.sizes(), f), t.dtype(), t.device());
  copy_(out, t);
  return out;
}

}  // namespace

bool wanted(const Tensor& t) {
  const MemoryFormat f = suggest_memory_format(t);
  return (t.dim() == 4 && f == MemoryFormat::ChannelsLast) || (t.dim() == 5 && f == MemoryFormat::ChannelsLast3d);
}

Tensor empty_like_format(const DimVec& sizes, ScalarType dtype, const Tensor& like) {
  return empty_strided(sizes, memory_format_strides(sizes, format_of(like)), dtype, like.device());
}

std::tuple<Tensor, Tensor> max(const Tensor& input, const Windows& w, const char* op) {
  DimVec osz{input.sizes()[0], input.sizes()[1]};
  for (int64_t d = 3 - w.nd; d < 3; d++) osz.push_back(w.ax[d].out);
  Tensor values = empty_like_format(osz, input.dtype(), input);
  Tensor indices = empty_like_format(osz, ScalarType::Int64, input);
  if (input.is_meta() || values.numel() == 0) return {values, indices};
  const Tensor x = dense(input, format_of(input));
  const int64_t N = osz[0], C = osz[1], L = w.out_size(), S = w.in_size();
  visit_real_float(input.dtype(), op, [&](auto z) {
    using T = decltype(z);
    using A = opmath_t<T>;
    parallel_for(N, 1, [&](int64_t nb, int64_t ne) {
      std::vector<A> best(static_cast<size_t>(C));
      std::vector<int64_t> at(static_cast<size_t>(C));
      for (int64_t n = nb; n < ne; n++) {
        const T* xp = x.data_as<T>() + n * S * C;
        T* vp = values.data_as<T>() + n * L * C;
        int64_t* ip = indices.data_as<int64_t>() + n * L * C;
        sweep(
            w, [&](int64_t, int64_t, int64_t, int64_t) { std::fill(at.begin(), at.end(), int64_t(-1)); },
            [&](int64_t, int64_t j) {
              const T* row = xp + j * C;
              for (int64_t c = 0; c < C; c++) {  // the first max, or the last NaN, as PyTorch
                const A v = convert<A>(row[c]);
                const bool take = at[size_t(c)] < 0 || v > best[size_t(c)] || v != v;
                best[size_t(c)] = take ? v : best[size_t(c)];
                at[size_t(c)] = take ? j : at[size_t(c)];
              }
            },
            [&](int64_t o, int64_t, int64_t, int64_t) {
              for (int64_t c = 0; c < C; c++) {
                const bool none = at[size_t(c)] < 0;  // a dilated window can miss the input entirely
                vp[o * C + c] = convert<T>(none ? -std::numeric_limits<A>::infinity() : best[size_t(c)]);
                ip[o * C + c] = none ? 0 : at[size_t(c)];
              }
            });
      }
    });
  });
  return {values, indices};
}

Tensor max_backward(const Tensor& grad_output, const Tensor& indices, const DimVec& input_sizes) {
  Tensor out = empty_like_format(input_sizes, grad_output.dtype(), grad_output);
  if (grad_output.is_meta() || out.numel() == 0) return out;
  const MemoryFormat f = format_of(grad_output);
  const Tensor g = dense(grad_output, f), idx = dense(indices, f);
  const int64_t N = input_sizes[0], C = input_sizes[1], S = out.numel() / std::max<int64_t>(N * C, 1);
  const int64_t L = grad_output.numel() / std::max<int64_t>(N * C, 1);
  const int64_t* ip = idx.data_as<int64_t>();
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  std::atomic<int64_t> bad{kNone};  // the bad index's position, raised after the threads
  visit_real_float(out.dtype(), "max_pool_backward", [&](auto z) {
    using T = decltype(z);
    using A = opmath_t<T>;
    parallel_for(N, 1, [&](int64_t nb, int64_t ne) {
      for (int64_t n = nb; n < ne; n++) {
        T* dp = out.data_as<T>() + n * S * C;
        const T* gp = g.data_as<T>() + n * L * C;
        const int64_t* jp = ip + n * L * C;
        std::fill(dp, dp + S * C, T(0));
        for (int64_t k = 0; k < L * C; k++) {
          const int64_t j = jp[k], c = k % C;
          if (j < 0 || j >= S) {
            int64_t seen = bad.load();
            while (n * L * C + k < seen && !bad.compare_exchange_weak(seen, n * L * C + k)) {
            }
            break;
          }
          dp[j * C + c] = convert<T>(convert<A>(dp[j * C + c]) + convert<A>(gp[k]));
        }
      }
    });
  });
  const int64_t at = bad.load();
  EMBER_CHECK(at == kNone, Index, "max_pool_backward: index ", at == kNone ? 0 : ip[at],
              " is out of bounds for a plane of ", S, " elements");
  return out;
}

void avg(const Tensor& src_in, const Tensor& dst, const Windows& w, bool count_include_pad,
         std::optional<int64_t> divisor_override, bool adjoint, const char* op) {
  EMBER_CHECK(!divisor_override || *divisor_override != 0, Runtime, op, ": divisor must be not zero");
  const Tensor src = dense(src_in, format_of(src_in));
  const int64_t N = src.sizes()[0], C = src.sizes()[1], L = w.out_size(), S = w.in_size();
  const std::vector<int64_t> divisor = avg_divisors(w, count_include_pad, divisor_override);
  visit_real_float(src.dtype(), op, [&](auto z) {
    using T = decltype(z);
    using A = opmath_t<T>;
    parallel_for(N, 1, [&](int64_t nb, int64_t ne) {
      std::vector<A> acc(size_t(adjoint ? S * C : C)), share(size_t(adjoint ? C : 0));
      for (int64_t n = nb; n < ne; n++) {
        const T* sp = src.data_as<T>() + n * (adjoint ? L : S) * C;
        T* dp = dst.data_as<T>() + n * (adjoint ? S : L) * C;
        if (!adjoint) {
          sweep(
              w, [&](int64_t, int64_t, int64_t, int64_t) { std::fill(acc.begin(), acc.end(), A(0)); },
              [&](int64_t, int64_t j) {
                for (int64_t c = 0; c < C; c++) acc[size_t(c)] += convert<A>(sp[j * C + c]);
              },
              [&](int64_t o, int64_t, int64_t, int64_t) {
                const int64_t dv = divisor[size_t(o)];
                for (int64_t c = 0; c < C; c++) dp[o * C + c] = convert<T>(dv ? acc[size_t(c)] / A(dv) : A(NAN));
              });
          continue;
        }
        std::fill(acc.begin(), acc.end(), A(0));
        sweep(
            w,
            [&](int64_t o, int64_t, int64_t, int64_t) {
              const int64_t dv = divisor[size_t(o)];
              for (int64_t c = 0; c < C; c++) share[size_t(c)] = dv ? convert<A>(sp[o * C + c]) / A(dv) : A(0);
            },
            [&](int64_t, int64_t j) {
              for (int64_t c = 0; c < C; c++) acc[size_t(j * C + c)] += share[size_t(c)];
            },
            [&](int64_t, int64_t, int64_t, int64_t) {});
        for (int64_t k = 0; k < S * C; k++) dp[k] = convert<T>(acc[size_t(k)]);
      }
    });
  });
}

}  // namespace ember::pool::nhwc
