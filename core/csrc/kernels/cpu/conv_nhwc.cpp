// Channels-last 2-D convolution by implicit GEMM over NHWC memory (see conv_nhwc.h).
#include "kernels/cpu/conv_nhwc.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "device/cpu_features.h"
#include "device/parallel.h"
#include "iter/copy.h"
#include "kernels/blas.h"
#include "kernels/cpu/conv_channels_last_gemm.h"
#include "kernels/cpu/conv_nhwc_winograd.h"
#include "kernels/cpu/sgemm_unpacked.h"
#include "tensor/memory_format.h"

namespace ember::conv::nhwc {

namespace {

using channels_last::mm_acc;
using channels_last::register_kernels;

// One NHWC convolution pass over an already padded input (hp x wp), output oh x ow.
struct Shape {
  int64_t n = 0, hp = 0, wp = 0, cin = 0, oh = 0, ow = 0, cout = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, groups = 1;
};

Tensor channels_last_as(const Tensor& t, ScalarType ct) {
  if (t.dtype() == ct && is_contiguous_in(t, MemoryFormat::ChannelsLast)) return t;
  Tensor out = empty_strided(t.sizes(), memory_format_strides(t.sizes(), MemoryFormat::ChannelsLast), ct, t.device());
  copy_(out, t);
  return out;
}

Tensor empty_channels_last(const DimVec& sizes, ScalarType dt, Device dev) {
  return empty_strided(sizes, memory_format_strides(sizes, MemoryFormat::ChannelsLast), dt, dev);
}

// x (n, h, w, c) placed at row pt, column pl of a zeroed (n, hp, wp, c) buffer; x itself when no padding.
template <class T>
const T* pad_nhwc(const T* x, int64_t n, int64_t h, int64_t w, int64_t c, int64_t pt, int64_t pl, int64_t hp,
                  int64_t wp, Tensor& holder) {
  if (pt == 0 && pl == 0 && hp == h && wp == w) return x;
  T* o = scratch<T>(holder, size_t(n * hp * wp * c));
  parallel_for(n * hp, 8, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++) {
      T* row = o + r * wp * c;
      const int64_t ih = r % hp - pt;
      if (ih < 0 || ih >= h) {
        std::fill_n(row, wp * c, T(0));
        continue;
      }
      const int64_t cols = std::min(w, wp - pl);
      std::fill_n(row, pl * c, T(0));
      std::copy_n(x + ((r / hp) * h + ih) * w * c, cols * c, row + pl * c);
      std::fill_n(row + (pl + cols) * c, (wp - pl - cols) * c, T(0));
    }
  });
  return o;
}

// w (O, C/g, KH, KW) packed per (group, kh, kw): see channels_last::pack.
template <class T>
std::vector<T> pack(const T* w, int64_t o_ch, int64_t cg, int64_t kh, int64_t kw, int64_t groups, bool transpose,
                    bool flip) {
  return channels_last::pack(w, o_ch, cg, kh * kw, groups, transpose, flip);
}

// y (n, oh, ow, cout) = bias + the convolution of the padded input xp with packed weight wp.
template <class T>
void forward_rows(const Shape& s, const T* xp, const T* wp, const T* bias, T* y) {
  const int64_t cg = s.cin / s.groups, og = s.cout / s.groups;
  const bool merge_taps = std::is_same_v<T, float> && register_kernels() && s.groups == 1 && s.dw == 1;
  parallel_for(s.n * s.oh, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++) {
      const int64_t b = r / s.oh, oh = r % s.oh;
      T* yr = y + r * s.ow * s.cout;
      for (int64_t i = 0; i < s.ow; i++)
        for (int64_t o = 0; o < s.cout; o++) yr[i * s.cout + o] = bias ? bias[o] : T(0);
      for (int64_t g = 0; g < s.groups; g++)
        for (int64_t kh = 0; kh < s.kh; kh++) {
          const T* xr = xp + (b * s.hp + oh * s.sh + kh * s.dh) * s.wp * s.cin + g * cg;
          const T* wk = wp + (g * s.kh + kh) * s.kw * cg * og;
          if (merge_taps) {  // (kw, c) is one run of kw * C values in the row
            mm_acc<T>(s.ow, og, s.kw * cg, xr, s.sw * s.cin, wk, og, yr, s.cout);
            continue;
          }
          for (int64_t kw = 0; kw < s.kw; kw++)
            mm_acc<T>(s.ow, og, cg, xr + kw * s.dw * s.cin, s.sw * s.cin, wk + kw * cg * og, og, yr + g * og, s.cout);
        }
    }
  });
}

// The pass of shape s over input x (n, h, w, cin) padded by pt rows and pl columns before (and zeros
// after, as far as s needs): Winograd's F(4x4, 3x3) where it applies, else forward_rows.
template <class T>
void run_rows(const Shape& s, const T* x, int64_t h, int64_t w, int64_t pt, int64_t pl, const T* wp, const T* bias,
              T* y) {
  Tensor holder;
  if constexpr (std::is_same_v<T, float>) {
    if (winograd::applies(s.kh, s.kw, s.sh, s.sw, s.dh, s.dw, s.groups, s.cin, s.cout, s.oh, s.ow)) {
      const int64_t hp = winograd::padded_extent(s.oh), wpad = winograd::padded_extent(s.ow);
      const float* xp = pad_nhwc(x, s.n, h, w, s.cin, pt, pl, hp, wpad, holder);
      if (winograd::forward(xp, s.n, s.cin, s.oh, s.ow, s.cout, wp, bias, y)) return;
    }
  }
  const T* xp = pad_nhwc(x, s.n, h, w, s.cin, pt, pl, s.hp, s.wp, holder);
  forward_rows(s, xp, wp, bias, y);
}

template <class T>
void forward(const Plan& p, const T* x, const T* w, const T* bias, T* y) {
  const Geometry& g = p.g;
  Shape s;
  s.n = p.batch, s.cin = p.in_ch, s.cout = p.out_ch, s.groups = p.groups;
  s.oh = g.out[1], s.ow = g.out[2], s.kh = g.k[1], s.kw = g.k[2];
  s.sh = g.stride[1], s.sw = g.stride[2], s.dh = g.dil[1], s.dw = g.dil[2];
  s.hp = std::max(g.in[1] + 2 * g.pad[1], (s.oh - 1) * s.sh + s.dh * (s.kh - 1) + 1);
  s.wp = std::max(g.in[2] + 2 * g.pad[2], (s.ow - 1) * s.sw + s.dw * (s.kw - 1) + 1);
  const std::vector<T> wp = pack(w, p.out_ch, p.in_ch / p.groups, s.kh, s.kw, p.groups, false, false);
  run_rows(s, x, g.in[1], g.in[2], g.pad[1], g.pad[2], wp.data(), bias, y);
}

// The transposed convolution: x (n, OH, OW, out_ch) -> y (n, H, W, in_ch), the adjoint of forward.
template <class T>
void transposed(const Plan& p, const T* x, const T* w, T* y) {
  const Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, KH = g.k[1], KW = g.k[2];
  const int64_t qh = g.dil[1] * (KH - 1) - g.pad[1], qw = g.dil[2] * (KW - 1) - g.pad[2];
  if (g.stride[1] == 1 && g.stride[2] == 1 && qh >= 0 && qw >= 0) {
    // Gather form: the forward convolution of x padded by q with the flipped, transposed kernel.
    Shape s;
    s.n = p.batch, s.cin = p.out_ch, s.cout = p.in_ch, s.groups = p.groups;
    s.oh = g.in[1], s.ow = g.in[2], s.kh = KH, s.kw = KW, s.dh = g.dil[1], s.dw = g.dil[2];
    s.hp = s.oh + s.dh * (KH - 1), s.wp = s.ow + s.dw * (KW - 1);
    const std::vector<T> wp = pack(w, p.out_ch, cg, KH, KW, p.groups, true, true);
    return run_rows(s, x, g.out[1], g.out[2], qh, qw, wp.data(), static_cast<const T*>(nullptr), y);
  }
  // Scatter form, image by image (rows of one image overlap): into a padded buffer, then cropped.
  const int64_t hp = g.in[1] + 2 * g.pad[1], wpd = g.in[2] + 2 * g.pad[2], C = p.in_ch, O = p.out_ch;
  const int64_t OH = g.out[1], OW = g.out[2];
  const std::vector<T> wt = pack(w, O, cg, KH, KW, p.groups, true, false);
  Tensor holder;
  T* buf = scratch<T>(holder, size_t(p.batch * hp * wpd * C));
  parallel_for(p.batch, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; b++) {
      T* img = buf + b * hp * wpd * C;
      std::fill_n(img, hp * wpd * C, T(0));
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t gi = 0; gi < p.groups; gi++)
          for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++)
              mm_acc<T>(OW, cg, og, x + ((b * OH + oh) * OW) * O + gi * og, O,
                        wt.data() + ((gi * KH + kh) * KW + kw) * og * cg, cg,
                        img + ((oh * g.stride[1] + kh * g.dil[1]) * wpd + kw * g.dil[2]) * C + gi * cg,
                        g.stride[2] * C);
      for (int64_t ih = 0; ih < g.in[1]; ih++)
        std::copy_n(img + ((ih + g.pad[1]) * wpd + g.pad[2]) * C, g.in[2] * C, y + (b * g.in[1] + ih) * g.in[2] * C);
    }
  });
}

// dw (O, C/g, KH, KW) through dw_strides from sum, laid out (group, kh, kw, c, o).
template <class T>
void scatter_taps(const std::vector<T>& sum, const Plan& p, T* dw, const DimVec& dw_strides) {
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, KH = p.g.k[1], KW = p.g.k[2];
  for (int64_t gi = 0; gi < p.groups; gi++)
    for (int64_t kh = 0; kh < KH; kh++)
      for (int64_t kw = 0; kw < KW; kw++)
        for (int64_t c = 0; c < cg; c++)
          for (int64_t o = 0; o < og; o++)
            dw[(gi * og + o) * dw_strides[0] + c * dw_strides[1] + kh * dw_strides[2] + kw * dw_strides[3]] =
                sum[size_t((((gi * KH + kh) * KW + kw) * cg + c) * og + o)];
}

// dW (O, C/g, KH, KW) written through `dw_strides` = sum over images and rows of xp^T @ dy, each
// thread into its own (group, kh, kw, c, o) buffer, added at the end.
template <class T>
void weight_grad_impl(const Plan& p, const T* dy, const T* x, T* dw, const DimVec& dw_strides) {
  const Geometry& g = p.g;
  const int64_t C = p.in_ch, O = p.out_ch, cg = C / p.groups, og = O / p.groups, KH = g.k[1], KW = g.k[2];
  const int64_t OH = g.out[1], OW = g.out[2], sh = g.stride[1], sw = g.stride[2], dh = g.dil[1], dwl = g.dil[2];
  const int64_t hp = std::max(g.in[1] + 2 * g.pad[1], (OH - 1) * sh + dh * (KH - 1) + 1);
  const int64_t wp = std::max(g.in[2] + 2 * g.pad[2], (OW - 1) * sw + dwl * (KW - 1) + 1);
  Tensor pad_holder, t_holder;
  if constexpr (std::is_same_v<T, float>) {
    if (winograd::applies(KH, KW, sh, sw, dh, dwl, p.groups, C, O, OH, OW)) {
      const int64_t th = (OH + 3) / 4, tw = (OW + 3) / 4;
      const float* xw = pad_nhwc(x, p.batch, g.in[1], g.in[2], C, g.pad[1], g.pad[2], winograd::padded_extent(OH),
                                 winograd::padded_extent(OW), pad_holder);
      const float* dyw = pad_nhwc(dy, p.batch, OH, OW, O, 0, 0, 4 * th, 4 * tw, t_holder);
      std::vector<float> taps(static_cast<size_t>(9 * C * O));
      if (winograd::weight_grad(xw, dyw, p.batch, C, OH, OW, O, taps.data()))
        return scatter_taps(taps, p, dw, dw_strides);
    }
  }
  const T* xp = pad_nhwc(x, p.batch, g.in[1], g.in[2], C, g.pad[1], g.pad[2], hp, wp, pad_holder);
  // float32, stride 1: rows transposed to (C x wp), so xp^T's rows are runs for the register kernels.
  const bool transposed_rows = std::is_same_v<T, float> && register_kernels() && sw == 1;
  const T* xt = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    if (transposed_rows) {
      float* t = scratch<float>(t_holder, size_t(p.batch * hp * wp * C));
      parallel_for(p.batch * hp, 8, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; r++) sgemm_unpacked::transpose(wp, C, xp + r * wp * C, C, t + r * C * wp, wp);
      });
      xt = t;
    }
  }
  const int64_t rows = p.batch * OH, wsize = KH * KW * cg * O;
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), rows));
  std::vector<std::vector<T>> acc(static_cast<size_t>(parts));
  parallel_for(parts, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t part = lo; part < hi; part++) {
      std::vector<T>& a = acc[size_t(part)];
      a.assign(size_t(wsize), T(0));
      for (int64_t r = part * rows / parts; r < (part + 1) * rows / parts; r++) {
        const int64_t b = r / OH, oh = r % OH;
        const T* dyr = dy + r * OW * O;
        for (int64_t gi = 0; gi < p.groups; gi++)
          for (int64_t kh = 0; kh < KH; kh++) {
            const int64_t ih = oh * sh + kh * dh;
            for (int64_t kw = 0; kw < KW; kw++) {
              T* ak = a.data() + ((gi * KH + kh) * KW + kw) * cg * og;
              if (transposed_rows)
                mm_acc<T>(cg, og, OW, xt + ((b * hp + ih) * C + gi * cg) * wp + kw * dwl, wp, dyr + gi * og, O, ak, og);
              else
                blas::gemm_serial<T>(blas::Op::T, blas::Op::N, cg, og, OW, T(1),
                                     xp + ((b * hp + ih) * wp + kw * dwl) * C + gi * cg, sw * C, dyr + gi * og, O, T(1),
                                     ak, og);
            }
          }
      }
    }
  });
  for (int64_t part = 1; part < parts; part++)
    for (int64_t i = 0; i < wsize; i++) acc[0][size_t(i)] += acc[size_t(part)][size_t(i)];
  scatter_taps(acc[0], p, dw, dw_strides);
}

bool reduced(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }
ScalarType compute_type(ScalarType t) { return reduced(t) ? ScalarType::Float32 : t; }

template <class F>
void dispatch(ScalarType ct, F&& f) {
  if (ct == ScalarType::Float64)
    f(double(0));
  else
    f(float(0));
}

}  // namespace

bool wanted(const Tensor& input, const Tensor& weight) {
  const ScalarType dt = input.dtype();
  if (input.dim() != 4 || weight.dim() != 4 || !(dt == ScalarType::Float32 || dt == ScalarType::Float64 || reduced(dt)))
    return false;
  return suggest_memory_format(input) == MemoryFormat::ChannelsLast ||
         suggest_memory_format(weight) == MemoryFormat::ChannelsLast;
}

Tensor convolution(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, bool is_transposed,
                   const DimVec& out_sizes) {
  Tensor out = empty_channels_last(out_sizes, input.dtype(), input.device());
  if (input.is_meta() || weight.is_meta() || out.numel() == 0) return out;
  const ScalarType ct = compute_type(input.dtype());
  const Tensor x = channels_last_as(input, ct), w = contiguous_as(weight, ct);
  const Tensor b = bias.defined() ? contiguous_as(bias, ct) : Tensor();
  Tensor y = ct == out.dtype() ? out : empty_channels_last(out_sizes, ct, input.device());
  dispatch(ct, [&](auto z) {
    using T = decltype(z);
    const T* pb = b.defined() ? b.template data_as<T>() : nullptr;
    if (!is_transposed) return forward<T>(p, x.data_as<T>(), w.data_as<T>(), pb, y.data_as<T>());
    transposed<T>(p, x.data_as<T>(), w.data_as<T>(), y.data_as<T>());
    if (!pb) return;
    T* py = y.data_as<T>();
    const int64_t c = out_sizes[1];
    parallel_for(y.numel() / c, 1024, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; i++)
        for (int64_t j = 0; j < c; j++) py[i * c + j] += pb[j];
    });
  });
  if (!y.is_same(out)) copy_(out, y);
  return out;
}

Tensor weight_grad(const Plan& p, const Tensor& grad_output, const Tensor& input, const DimVec& weight_sizes,
                   bool channels_last_weight) {
  const MemoryFormat f = channels_last_weight ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
  Tensor out = empty_strided(weight_sizes, memory_format_strides(weight_sizes, f), input.dtype(), input.device());
  if (input.is_meta() || out.numel() == 0) return out;
  const ScalarType ct = compute_type(input.dtype());
  const Tensor go = channels_last_as(grad_output, ct), x = channels_last_as(input, ct);
  Tensor dw = ct == out.dtype() ? out : empty_strided(weight_sizes, out.strides(), ct, input.device());
  dispatch(ct, [&](auto z) {
    using T = decltype(z);
    weight_grad_impl<T>(p, go.data_as<T>(), x.data_as<T>(), dw.data_as<T>(), dw.strides());
  });
  if (!dw.is_same(out)) copy_(out, dw);
  return out;
}

}  // namespace ember::conv::nhwc
