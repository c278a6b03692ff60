// Channels-last 3-D convolution by implicit GEMM over NDHWC memory (see conv_ndhwc.h).
#include "kernels/cpu/conv_ndhwc.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "device/parallel.h"
#include "iter/copy.h"
#include "kernels/blas.h"
#include "kernels/cpu/conv_channels_last_gemm.h"
#include "kernels/cpu/sgemm_unpacked.h"
#include "tensor/memory_format.h"

namespace ember::conv::ndhwc {

namespace {

using channels_last::mm_acc;
using channels_last::register_kernels;

constexpr MemoryFormat kFormat = MemoryFormat::ChannelsLast3d;

// The extents of a (depth, height, width) box of positions.
struct Box {
  int64_t d = 1, h = 1, w = 1;
  int64_t size() const { return d * h * w; }
};

Box box_of(const int64_t (&e)[3]) { return {e[0], e[1], e[2]}; }

// One NDHWC convolution pass over an already padded input `in`, giving `out` positions.
struct Shape {
  int64_t n = 0, cin = 0, cout = 0, groups = 1;
  Box in, out;
  int64_t k[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
};

Tensor empty_channels_last_3d(const DimVec& sizes, ScalarType dt, Device dev) {
  return empty_strided(sizes, memory_format_strides(sizes, kFormat), dt, dev);
}

Tensor channels_last_3d_as(const Tensor& t, ScalarType ct) {
  if (t.dtype() == ct && is_contiguous_in(t, kFormat)) return t;
  Tensor out = empty_channels_last_3d(t.sizes(), ct, t.device());
  copy_(out, t);
  return out;
}

// x (n, in.d, in.h, in.w, c) placed at offset `before` of a zeroed (n, padded.d, padded.h, padded.w, c)
// buffer (zeros after it as far as `padded` reaches); x itself when there is no padding.
template <class T>
const T* pad_ndhwc(const T* x, int64_t n, Box in, int64_t c, const int64_t (&before)[3], Box padded, Tensor& holder) {
  if (before[0] == 0 && before[1] == 0 && before[2] == 0 && padded.d == in.d && padded.h == in.h && padded.w == in.w)
    return x;
  T* o = scratch<T>(holder, size_t(n * padded.size() * c));
  parallel_for(n * padded.d * padded.h, 8, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++) {
      T* row = o + r * padded.w * c;
      const int64_t b = r / (padded.d * padded.h), id = (r / padded.h) % padded.d - before[0],
                    ih = r % padded.h - before[1];
      if (id < 0 || id >= in.d || ih < 0 || ih >= in.h) {
        std::fill_n(row, padded.w * c, T(0));
        continue;
      }
      const int64_t cols = std::min(in.w, padded.w - before[2]);
      std::fill_n(row, before[2] * c, T(0));
      std::copy_n(x + ((b * in.d + id) * in.h + ih) * in.w * c, cols * c, row + before[2] * c);
      std::fill_n(row + (before[2] + cols) * c, (padded.w - before[2] - cols) * c, T(0));
    }
  });
  return o;
}

// A depthwise convolution's weight (one input and one output channel per group) as (taps x channels), so
// each tap is a multiply-add along the channels, which lie innermost in NDHWC: `per_group` is the
// weight with its `taps` values per channel (channels_last::pack's layout when cg = og = 1).
template <class T>
std::vector<T> taps_by_channel(const T* per_group, int64_t channels, int64_t taps) {
  std::vector<T> out(size_t(channels * taps));
  for (int64_t c = 0; c < channels; c++)
    for (int64_t t = 0; t < taps; t++) out[size_t(t * channels + c)] = per_group[c * taps + t];
  return out;
}

// forward_rows for a depthwise convolution: wd is (taps x channels).
template <class T>
void depthwise_rows(const Shape& s, const T* xp, const T* wd, const T* bias, T* y) {
  const int64_t C = s.cout, KH = s.k[1], KW = s.k[2];
  parallel_for(s.n * s.out.d * s.out.h, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++) {
      const int64_t b = r / (s.out.d * s.out.h), od = (r / s.out.h) % s.out.d, oh = r % s.out.h;
      T* yr = y + r * s.out.w * C;
      for (int64_t i = 0; i < s.out.w; i++)
        for (int64_t c = 0; c < C; c++) yr[i * C + c] = bias ? bias[c] : T(0);
      for (int64_t kd = 0; kd < s.k[0]; kd++)
        for (int64_t kh = 0; kh < KH; kh++) {
          const int64_t id = od * s.stride[0] + kd * s.dil[0], ih = oh * s.stride[1] + kh * s.dil[1];
          const T* xr = xp + ((b * s.in.d + id) * s.in.h + ih) * s.in.w * C;
          for (int64_t kw = 0; kw < KW; kw++) {
            const T* wk = wd + ((kd * KH + kh) * KW + kw) * C;
            for (int64_t i = 0; i < s.out.w; i++) {
              const T* xi = xr + (i * s.stride[2] + kw * s.dil[2]) * C;
              T* yi = yr + i * C;
              for (int64_t c = 0; c < C; c++) yi[c] += xi[c] * wk[c];
            }
          }
        }
    }
  });
}

// y (n, out.d, out.h, out.w, cout) = bias + the convolution of the padded input xp with packed weight wp
// (channels_last::pack: a (C/g x O/g) matrix per group and tap).
template <class T>
void forward_rows(const Shape& s, const T* xp, const T* wp, const T* bias, T* y) {
  const int64_t cg = s.cin / s.groups, og = s.cout / s.groups, KD = s.k[0], KH = s.k[1], KW = s.k[2];
  if (cg == 1 && og == 1 && s.groups > 1)  // 1 x 1 products per tap and group: a loop along the channels instead
    return depthwise_rows(s, xp, taps_by_channel(wp, s.groups, KD * KH * KW).data(), bias, y);
  // float32 on the register kernels: a row's kw taps and channels are one run of KW * C values
  const bool merge_taps = std::is_same_v<T, float> && register_kernels() && s.groups == 1 && s.dil[2] == 1;
  parallel_for(s.n * s.out.d * s.out.h, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++) {
      const int64_t b = r / (s.out.d * s.out.h), od = (r / s.out.h) % s.out.d, oh = r % s.out.h;
      T* yr = y + r * s.out.w * s.cout;
      for (int64_t i = 0; i < s.out.w; i++)
        for (int64_t o = 0; o < s.cout; o++) yr[i * s.cout + o] = bias ? bias[o] : T(0);
      for (int64_t g = 0; g < s.groups; g++)
        for (int64_t kd = 0; kd < KD; kd++)
          for (int64_t kh = 0; kh < KH; kh++) {
            const int64_t id = od * s.stride[0] + kd * s.dil[0], ih = oh * s.stride[1] + kh * s.dil[1];
            const T* xr = xp + ((b * s.in.d + id) * s.in.h + ih) * s.in.w * s.cin + g * cg;
            const T* wk = wp + ((g * KD + kd) * KH + kh) * KW * cg * og;
            const int64_t lda = s.stride[2] * s.cin;
            if (merge_taps) {
              mm_acc<T>(s.out.w, og, KW * cg, xr, lda, wk, og, yr, s.cout);
              continue;
            }
            for (int64_t kw = 0; kw < KW; kw++)
              mm_acc<T>(s.out.w, og, cg, xr + kw * s.dil[2] * s.cin, lda, wk + kw * cg * og, og, yr + g * og, s.cout);
          }
    }
  });
}

template <class T>
void forward(const Plan& p, const T* x, const T* w, const T* bias, T* y) {
  const Geometry& g = p.g;
  Shape s;
  s.n = p.batch, s.cin = p.in_ch, s.cout = p.out_ch, s.groups = p.groups;
  s.out = box_of(g.out);
  int64_t ext[3];
  for (int d = 0; d < 3; d++) {
    s.k[d] = g.k[d], s.stride[d] = g.stride[d], s.dil[d] = g.dil[d];
    ext[d] = std::max(g.in[d] + 2 * g.pad[d], (g.out[d] - 1) * g.stride[d] + g.dil[d] * (g.k[d] - 1) + 1);
  }
  s.in = box_of(ext);
  const std::vector<T> wp = channels_last::pack(w, p.out_ch, p.in_ch / p.groups, g.k_size(), p.groups, false, false);
  Tensor holder;
  const T* xp = pad_ndhwc(x, p.batch, box_of(g.in), p.in_ch, g.pad, s.in, holder);
  forward_rows(s, xp, wp.data(), bias, y);
}

// The transposed convolution: x (n, OD, OH, OW, out_ch) -> y (n, D, H, W, in_ch), the adjoint of forward.
template <class T>
void transposed(const Plan& p, const T* x, const T* w, T* y) {
  const Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups;
  int64_t q[3];
  bool gather = true;
  for (int d = 0; d < 3; d++) {
    q[d] = g.dil[d] * (g.k[d] - 1) - g.pad[d];
    gather = gather && g.stride[d] == 1 && q[d] >= 0;
  }
  if (gather) {
    // The forward convolution of x padded by q with the flipped, transposed kernel.
    Shape s;
    s.n = p.batch, s.cin = p.out_ch, s.cout = p.in_ch, s.groups = p.groups;
    s.out = box_of(g.in);
    int64_t ext[3];
    for (int d = 0; d < 3; d++) {
      s.k[d] = g.k[d], s.dil[d] = g.dil[d];
      ext[d] = g.in[d] + g.dil[d] * (g.k[d] - 1);
    }
    s.in = box_of(ext);
    const std::vector<T> wp = channels_last::pack(w, p.out_ch, cg, g.k_size(), p.groups, true, true);
    Tensor holder;
    const T* xp = pad_ndhwc(x, p.batch, box_of(g.out), p.out_ch, q, s.in, holder);
    return forward_rows(s, xp, wp.data(), static_cast<const T*>(nullptr), y);
  }
  // Scatter form, image by image (rows of one image overlap): into a padded buffer, then cropped.
  const Box pad{g.in[0] + 2 * g.pad[0], g.in[1] + 2 * g.pad[1], g.in[2] + 2 * g.pad[2]};
  const int64_t C = p.in_ch, O = p.out_ch, KD = g.k[0], KH = g.k[1], KW = g.k[2];
  const int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const std::vector<T> wt = channels_last::pack(w, O, cg, g.k_size(), p.groups, true, false);
  const bool depthwise = cg == 1 && og == 1 && p.groups > 1;
  const std::vector<T> wd = depthwise ? taps_by_channel(w, C, g.k_size()) : std::vector<T>();
  Tensor holder;
  T* buf = scratch<T>(holder, size_t(p.batch * pad.size() * C));
  parallel_for(p.batch, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; b++) {
      T* img = buf + b * pad.size() * C;
      std::fill_n(img, pad.size() * C, T(0));
      for (int64_t od = 0; od < OD; od++)
        for (int64_t oh = 0; oh < OH; oh++)
          if (depthwise) {  // each tap: a multiply-add along the channels
            const T* xr = x + ((b * OD + od) * OH + oh) * OW * O;
            for (int64_t t = 0; t < g.k_size(); t++) {
              const int64_t kd = t / (KH * KW), kh = (t / KW) % KH, kw = t % KW;
              const int64_t id = od * g.stride[0] + kd * g.dil[0], ih = oh * g.stride[1] + kh * g.dil[1];
              T* row = img + ((id * pad.h + ih) * pad.w + kw * g.dil[2]) * C;
              const T* wk = wd.data() + t * C;
              for (int64_t i = 0; i < OW; i++)
                for (int64_t c = 0; c < C; c++) row[i * g.stride[2] * C + c] += xr[i * O + c] * wk[c];
            }
          } else
            for (int64_t gi = 0; gi < p.groups; gi++)
              for (int64_t kd = 0; kd < KD; kd++)
                for (int64_t kh = 0; kh < KH; kh++)
                  for (int64_t kw = 0; kw < KW; kw++) {
                    const int64_t id = od * g.stride[0] + kd * g.dil[0], ih = oh * g.stride[1] + kh * g.dil[1];
                    mm_acc<T>(OW, cg, og, x + ((b * OD + od) * OH + oh) * OW * O + gi * og, O,
                              wt.data() + (((gi * KD + kd) * KH + kh) * KW + kw) * og * cg, cg,
                              img + ((id * pad.h + ih) * pad.w + kw * g.dil[2]) * C + gi * cg, g.stride[2] * C);
                  }
      for (int64_t id = 0; id < g.in[0]; id++)
        for (int64_t ih = 0; ih < g.in[1]; ih++)
          std::copy_n(img + (((id + g.pad[0]) * pad.h + ih + g.pad[1]) * pad.w + g.pad[2]) * C, g.in[2] * C,
                      y + ((b * g.in[0] + id) * g.in[1] + ih) * g.in[2] * C);
    }
  });
}

// dW (C, 1, KD, KH, KW) of a depthwise convolution through `dw_strides`: per tap, products along the
// channels summed over the output positions, in `parts` fixed blocks of rows added in order.
template <class T>
void depthwise_weight_grad(const Plan& p, const T* dy, const T* xp, Box pad, T* dw, const DimVec& dw_strides) {
  const Geometry& g = p.g;
  const int64_t C = p.in_ch, taps = g.k_size(), KH = g.k[1], KW = g.k[2], OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t rows = p.batch * OD * OH;
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), rows));
  std::vector<std::vector<T>> acc(static_cast<size_t>(parts));
  parallel_for(parts, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t part = lo; part < hi; part++) {
      std::vector<T>& a = acc[size_t(part)];
      a.assign(size_t(taps * C), T(0));
      for (int64_t r = part * rows / parts; r < (part + 1) * rows / parts; r++) {
        const int64_t b = r / (OD * OH), od = (r / OH) % OD, oh = r % OH;
        const T* dyr = dy + r * OW * C;
        for (int64_t t = 0; t < taps; t++) {
          const int64_t kd = t / (KH * KW), kh = (t / KW) % KH, kw = t % KW;
          const int64_t prow =
              (b * pad.d + od * g.stride[0] + kd * g.dil[0]) * pad.h + oh * g.stride[1] + kh * g.dil[1];
          const T* xr = xp + (prow * pad.w + kw * g.dil[2]) * C;
          T* at = a.data() + t * C;
          for (int64_t i = 0; i < OW; i++)
            for (int64_t c = 0; c < C; c++) at[c] += xr[i * g.stride[2] * C + c] * dyr[i * C + c];
        }
      }
    }
  });
  for (int64_t part = 1; part < parts; part++)
    for (int64_t i = 0; i < taps * C; i++) acc[0][size_t(i)] += acc[size_t(part)][size_t(i)];
  for (int64_t c = 0; c < C; c++)
    for (int64_t t = 0; t < taps; t++)
      dw[c * dw_strides[0] + (t / (KH * KW)) * dw_strides[2] + ((t / KW) % KH) * dw_strides[3] +
         (t % KW) * dw_strides[4]] = acc[0][size_t(t * C + c)];
}

// dW (O, C/g, KD, KH, KW) written through `dw_strides` = sum over images and rows of xp^T @ dy, each
// thread into its own (group, kd, kh, kw, c, o) buffer, added at the end in a fixed order.
template <class T>
void weight_grad_impl(const Plan& p, const T* dy, const T* x, T* dw, const DimVec& dw_strides) {
  const Geometry& g = p.g;
  const int64_t C = p.in_ch, O = p.out_ch, cg = C / p.groups, og = O / p.groups, taps = g.k_size();
  const int64_t KD = g.k[0], KH = g.k[1], KW = g.k[2], OD = g.out[0], OH = g.out[1], OW = g.out[2];
  int64_t ext[3];
  for (int d = 0; d < 3; d++)
    ext[d] = std::max(g.in[d] + 2 * g.pad[d], (g.out[d] - 1) * g.stride[d] + g.dil[d] * (g.k[d] - 1) + 1);
  const Box pad = box_of(ext);
  Tensor pad_holder, t_holder;
  const T* xp = pad_ndhwc(x, p.batch, box_of(g.in), C, g.pad, pad, pad_holder);
  if (cg == 1 && og == 1 && p.groups > 1) return depthwise_weight_grad(p, dy, xp, pad, dw, dw_strides);
  // float32, stride 1 along width: rows transposed to (C x width), so xp^T's rows are runs for the register kernels.
  const bool transposed_rows = std::is_same_v<T, float> && register_kernels() && g.stride[2] == 1;
  const T* xt = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    if (transposed_rows) {
      float* t = scratch<float>(t_holder, size_t(p.batch * pad.size() * C));
      parallel_for(p.batch * pad.d * pad.h, 8, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; r++)
          sgemm_unpacked::transpose(pad.w, C, xp + r * pad.w * C, C, t + r * C * pad.w, pad.w);
      });
      xt = t;
    }
  }
  const int64_t rows = p.batch * OD * OH, wsize = taps * cg * O;
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), rows));
  std::vector<std::vector<T>> acc(static_cast<size_t>(parts));
  parallel_for(parts, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t part = lo; part < hi; part++) {
      std::vector<T>& a = acc[size_t(part)];
      a.assign(size_t(wsize), T(0));
      for (int64_t r = part * rows / parts; r < (part + 1) * rows / parts; r++) {
        const int64_t b = r / (OD * OH), od = (r / OH) % OD, oh = r % OH;
        const T* dyr = dy + r * OW * O;
        for (int64_t gi = 0; gi < p.groups; gi++)
          for (int64_t kd = 0; kd < KD; kd++)
            for (int64_t kh = 0; kh < KH; kh++) {
              const int64_t prow = (b * pad.d + od * g.stride[0] + kd * g.dil[0]) * pad.h + oh * g.stride[1] +
                                   kh * g.dil[1];  // the padded input row these taps read
              for (int64_t kw = 0; kw < KW; kw++) {
                T* ak = a.data() + (((gi * KD + kd) * KH + kh) * KW + kw) * cg * og;
                if (transposed_rows)
                  mm_acc<T>(cg, og, OW, xt + (prow * C + gi * cg) * pad.w + kw * g.dil[2], pad.w, dyr + gi * og, O, ak,
                            og);
                else
                  blas::gemm_serial<T>(blas::Op::T, blas::Op::N, cg, og, OW, T(1),
                                       xp + (prow * pad.w + kw * g.dil[2]) * C + gi * cg, g.stride[2] * C,
                                       dyr + gi * og, O, T(1), ak, og);
              }
            }
      }
    }
  });
  for (int64_t part = 1; part < parts; part++)
    for (int64_t i = 0; i < wsize; i++) acc[0][size_t(i)] += acc[size_t(part)][size_t(i)];
  for (int64_t gi = 0; gi < p.groups; gi++)
    for (int64_t t = 0; t < taps; t++) {
      const int64_t kd = t / (KH * KW), kh = (t / KW) % KH, kw = t % KW;
      for (int64_t c = 0; c < cg; c++)
        for (int64_t o = 0; o < og; o++)
          dw[(gi * og + o) * dw_strides[0] + c * dw_strides[1] + kd * dw_strides[2] + kh * dw_strides[3] +
             kw * dw_strides[4]] = acc[0][size_t(((gi * taps + t) * cg + c) * og + o)];
    }
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
  if (input.dim() != 5 || weight.dim() != 5 || !(dt == ScalarType::Float32 || dt == ScalarType::Float64 || reduced(dt)))
    return false;
  return suggest_memory_format(input) == kFormat || suggest_memory_format(weight) == kFormat;
}

Tensor convolution(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, bool is_transposed,
                   const DimVec& out_sizes) {
  Tensor out = empty_channels_last_3d(out_sizes, input.dtype(), input.device());
  if (input.is_meta() || weight.is_meta() || out.numel() == 0) return out;
  const ScalarType ct = compute_type(input.dtype());
  const Tensor x = channels_last_3d_as(input, ct), w = contiguous_as(weight, ct);
  const Tensor b = bias.defined() ? contiguous_as(bias, ct) : Tensor();
  Tensor y = ct == out.dtype() ? out : empty_channels_last_3d(out_sizes, ct, input.device());
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
  const MemoryFormat f = channels_last_weight ? kFormat : MemoryFormat::Contiguous;
  Tensor out = empty_strided(weight_sizes, memory_format_strides(weight_sizes, f), input.dtype(), input.device());
  if (input.is_meta() || out.numel() == 0) return out;
  const ScalarType ct = compute_type(input.dtype());
  const Tensor go = channels_last_3d_as(grad_output, ct), x = channels_last_3d_as(input, ct);
  Tensor dw = ct == out.dtype() ? out : empty_strided(weight_sizes, out.strides(), ct, input.device());
  dispatch(ct, [&](auto z) {
    using T = decltype(z);
    weight_grad_impl<T>(p, go.data_as<T>(), x.data_as<T>(), dw.data_as<T>(), dw.strides());
  });
  if (!dw.is_same(out)) copy_(out, dw);
  return out;
}

}  // namespace ember::conv::ndhwc
