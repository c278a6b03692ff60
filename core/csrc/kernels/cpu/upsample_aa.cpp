// Antialiased resize of (N, C, H, W) images: PyTorch's _upsample_bilinear2d_aa / _upsample_bicubic2d_aa and
// their adjoints. Each output pixel of an axis takes Pillow's filter (triangle, or Keys' cubic with a = -0.5)
// stretched by the downscale factor, over the input pixels it covers, normalised to sum 1; the two axes run as
// separate passes, horizontal first, a pass skipped where the size does not change. The weights follow
// PyTorch's arithmetic step by step (computed in the input's float type, in double for uint8) so results agree
// with its to the rounding; uint8 takes PyTorch's int16 fixed-point taps (as many fraction bits as fit the
// largest weight), sums in int32 from half a unit, and rounds and clips to uint8 between the passes.
// channels_last input runs as (N, H, W, C) and gives channels_last output, as PyTorch's kernels do.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "device/parallel.h"
#include "generated/ops/_upsample_bicubic2d_aa.h"
#include "generated/ops/_upsample_bicubic2d_aa_backward.h"
#include "generated/ops/_upsample_bilinear2d_aa.h"
#include "generated/ops/_upsample_bilinear2d_aa_backward.h"
#include "iter/copy.h"
#include "kernels/matmul.h"
#include "tensor/factory.h"
#include "tensor/memory_format.h"

namespace ember::ops {

namespace {

enum class Filter { Triangle, Cubic };

template <class W>
W aa_filter(Filter f, W x) {
  if (x < W(0)) x = -x;
  if (f == Filter::Triangle) return x < W(1) ? W(1) - x : W(0);
  const W a = W(-0.5);
  if (x < W(1)) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < W(2)) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return W(0);
}

// One axis's taps: output j reads count[j] inputs from start[j] with weights w[j * ksize + t].
template <class W>
struct Axis {
  int64_t in = 0, out = 0, ksize = 0;
  std::vector<int64_t> start, count;
  std::vector<W> w;
  W max_w = W(0);
};

// PyTorch's area_pixel_compute_scale, then its _compute_weights_aa per output (align_corners only changes the
// scale when antialiasing).
template <class W>
Axis<W> axis_weights(int64_t in, int64_t out, bool align_corners, std::optional<double> scale_opt, Filter f) {
  Axis<W> a;
  a.in = in;
  a.out = out;
  W scale;
  if (align_corners)
    scale = out > 1 ? static_cast<W>(in - 1) / static_cast<W>(out - 1) : W(0);
  else
    scale = scale_opt && *scale_opt > 0. ? static_cast<W>(1.0 / *scale_opt) : static_cast<W>(in) / static_cast<W>(out);
  const double half = f == Filter::Triangle ? 1.0 : 2.0;
  const W support = scale >= W(1) ? static_cast<W>(half * scale) : static_cast<W>(half);
  const W invscale = scale >= W(1) ? static_cast<W>(1.0 / scale) : W(1);
  a.ksize = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  a.start.resize(out);
  a.count.resize(out);
  a.w.assign(static_cast<size_t>(out * a.ksize), W(0));
  for (int64_t i = 0; i < out; i++) {
    const W center = static_cast<W>(scale * (i + 0.5));
    const int64_t lo = std::max(static_cast<int64_t>(center - support + 0.5), int64_t(0));
    const int64_t size =
        std::clamp(std::min(static_cast<int64_t>(center + support + 0.5), in) - lo, int64_t(0), a.ksize);
    W* wt = a.w.data() + i * a.ksize;
    W total = W(0);
    for (int64_t j = 0; j < size; j++) {
      const W offset = static_cast<W>(j + lo) - center;  // int64 - float in the float type, as PyTorch
      wt[j] = aa_filter<W>(f, static_cast<W>((offset + 0.5) * invscale));
      total += wt[j];
    }
    if (total != W(0))
      for (int64_t j = 0; j < size; j++) {
        wt[j] /= total;
        a.max_w = std::max(a.max_w, wt[j]);
      }
    a.start[i] = lo;
    a.count[i] = size;
  }
  return a;
}

// uint8 taps: PyTorch's int16 fixed point, with the most fraction bits (up to 22) that keep the largest weight
// below 2^15, each weight rounded half away from zero.
struct FixedTaps {
  std::vector<int32_t> w;
  int bits = 0;
};

FixedTaps fixed_taps(const Axis<double>& a) {
  FixedTaps f;
  for (f.bits = 0; f.bits < 22; ++f.bits)
    if (static_cast<int>(0.5 + a.max_w * (1 << (f.bits + 1))) >= (1 << 15)) break;
  f.w.resize(a.w.size());
  for (size_t k = 0; k < a.w.size(); k++) {
    const double v = a.w[k] * (1 << f.bits);
    f.w[k] = static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
  }
  return f;
}

// uint8 rows (the horizontal pass of NCHW images, the slow one: nothing to vectorise across): each output's
// window is moved to lie inside the row and padded with zero taps to the widest window's k taps, so the tap loop
// has a fixed length the compiler unrolls (k a template constant up to 8). Zero taps add nothing to an int sum.
template <int K>
void fixed_rows(const uint8_t* src, uint8_t* dst, int64_t rows, int64_t in, int64_t out, int64_t k,
                const int64_t* start, const int32_t* w, int bits) {
  const int64_t taps = K > 0 ? K : k;
  const int32_t bias = int32_t(1) << (bits - 1);
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, out * taps));
  parallel_for(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; r++) {
      const uint8_t* s = src + r * in;
      uint8_t* d = dst + r * out;
      for (int64_t j = 0; j < out; j++) {
        const uint8_t* sj = s + start[j];
        const int32_t* wj = w + j * taps;
        int32_t v = bias;
        for (int64_t t = 0; t < taps; t++) v += int32_t(sj[t]) * wj[t];
        d[j] = static_cast<uint8_t>(std::clamp(v >> bits, 0, 255));
      }
    }
  });
}

template <class A>
void uint8_rows(const uint8_t* src, uint8_t* dst, int64_t rows, const A& a, const FixedTaps& ft) {
  int64_t k = 1;
  for (int64_t j = 0; j < a.out; j++) k = std::max(k, a.count[j]);
  std::vector<int64_t> start(a.out);
  std::vector<int32_t> w(static_cast<size_t>(a.out * k), 0);
  for (int64_t j = 0; j < a.out; j++) {
    start[j] = std::min(a.start[j], a.in - k);  // count <= in, so k <= in
    const int64_t shift = a.start[j] - start[j];
    for (int64_t t = 0; t < a.count[j]; t++) w[j * k + shift + t] = ft.w[j * a.ksize + t];
  }
  const auto run = [&](auto fixed) {
    fixed_rows<decltype(fixed)::value>(src, dst, rows, a.in, a.out, k, start.data(), w.data(), ft.bits);
  };
  switch (k) {
    case 1:
      return run(std::integral_constant<int, 1>());
    case 2:
      return run(std::integral_constant<int, 2>());
    case 3:
      return run(std::integral_constant<int, 3>());
    case 4:
      return run(std::integral_constant<int, 4>());
    case 5:
      return run(std::integral_constant<int, 5>());
    case 6:
      return run(std::integral_constant<int, 6>());
    case 7:
      return run(std::integral_constant<int, 7>());
    case 8:
      return run(std::integral_constant<int, 8>());
    default:
      return run(std::integral_constant<int, 0>());
  }
}

// One pass along the middle axis of a dense [outer, a.in, inner] block into [outer, a.out, inner]:
// dst[o, j, i] = sum_t w[j, t] * src[o, start[j] + t, i]. uint8 (Acc int32) sums from half a unit of the
// fixed point and shifts back, clipped to 0..255.
template <class T, class Acc, class Wt, class A>
void pass(const T* src, T* dst, int64_t outer, int64_t inner, const A& a, const Wt* w, int bits) {
  constexpr bool kFixed = std::is_same_v<Acc, int32_t>;
  Acc bias = Acc(0);
  if constexpr (kFixed) bias = Acc(1) << (bits - 1);
  auto finish = [bits](Acc v) -> T {
    if constexpr (kFixed)
      return static_cast<T>(std::clamp(v >> bits, 0, 255));
    else
      return v;
  };
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, a.out * inner * a.ksize));
  parallel_for(outer, grain, [&](int64_t b, int64_t e) {
    std::vector<Acc> acc(static_cast<size_t>(inner));
    for (int64_t o = b; o < e; o++) {
      const T* s = src + o * a.in * inner;
      T* d = dst + o * a.out * inner;
      for (int64_t j = 0; j < a.out; j++) {
        const T* sj = s + a.start[j] * inner;
        const Wt* wj = w + j * a.ksize;
        if (inner == 1) {
          Acc v = bias;
          for (int64_t t = 0; t < a.count[j]; t++) v += static_cast<Acc>(sj[t]) * static_cast<Acc>(wj[t]);
          d[j] = finish(v);
          continue;
        }
        std::fill(acc.begin(), acc.end(), bias);
        for (int64_t t = 0; t < a.count[j]; t++) {
          const Acc k = static_cast<Acc>(wj[t]);
          const T* st = sj + t * inner;
          for (int64_t i = 0; i < inner; i++) acc[i] += static_cast<Acc>(st[i]) * k;
        }
        T* dj = d + j * inner;
        for (int64_t i = 0; i < inner; i++) dj[i] = finish(acc[i]);
      }
    }
  });
}

// The adjoint of pass (float only): dst [outer, a.in, inner] = the transposed weights applied to src
// [outer, a.out, inner].
template <class T, class A>
void adjoint_pass(const T* src, T* dst, int64_t outer, int64_t inner, const A& a) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, a.out * inner * a.ksize));
  parallel_for(outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; o++) {
      const T* s = src + o * a.out * inner;
      T* d = dst + o * a.in * inner;
      std::fill(d, d + a.in * inner, T(0));
      for (int64_t j = 0; j < a.out; j++) {
        const T* sj = s + j * inner;
        for (int64_t t = 0; t < a.count[j]; t++) {
          const T k = a.w[j * a.ksize + t];
          T* dt = d + (a.start[j] + t) * inner;
          for (int64_t i = 0; i < inner; i++) dt[i] += k * sj[i];
        }
      }
    }
  });
}

// Sizes of one resize: (N, C, H, W) in, (OH, OW) out, and whether it runs on NHWC data.
struct Shape {
  int64_t n, c, h, w, oh, ow;
  bool nhwc;
  // [outer, inner] of the horizontal pass (rows of width w) and of the vertical pass (planes of height h whose
  // rows are `width` wide after the horizontal pass)
  int64_t h_outer() const { return nhwc ? n * h : n * c * h; }
  int64_t h_inner() const { return nhwc ? c : 1; }
  int64_t v_outer() const { return nhwc ? n : n * c; }
  int64_t v_inner(int64_t width) const { return nhwc ? width * c : width; }
};

void check_sizes(const DimVec& input_size, const DimVec& output_size) {
  EMBER_CHECK(output_size.size() == 2, Runtime, "It is expected output_size equals to 2, but got size ",
              output_size.size());
  EMBER_CHECK(input_size.size() == 4, Runtime, "It is expected input_size equals to 4, but got size ",
              input_size.size());
  EMBER_CHECK(input_size[2] > 0 && input_size[3] > 0 && output_size[0] > 0 && output_size[1] > 0, Runtime,
              "Input and output sizes should be greater than 0, but got input (H: ", input_size[2],
              ", W: ", input_size[3], ") output (H: ", output_size[0], ", W: ", output_size[1], ")");
}

Tensor new_image(const DimVec& sizes, ScalarType dtype, Device device, bool nhwc) {
  return nhwc ? empty_strided(sizes, memory_format_strides(sizes, MemoryFormat::ChannelsLast), dtype, device)
              : empty(sizes, dtype, device);
}

// t itself when dense in the layout the kernel reads, else a dense copy.
Tensor dense(const Tensor& t, bool nhwc) {
  const MemoryFormat f = nhwc ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
  if (is_contiguous_in(t, f)) return t;
  Tensor out = new_image(t.sizes(), t.dtype(), t.device(), nhwc);
  copy_(out, t);
  return out;
}

template <class T, class Acc, class W>
void run_forward(const T* src, T* dst, const Shape& s, bool align_corners, std::optional<double> scales_h,
                 std::optional<double> scales_w, Filter f) {
  const bool horizontal = s.ow != s.w, vertical = s.oh != s.h;
  std::vector<T> mid;
  const T* vsrc = src;
  if (horizontal) {
    const Axis<W> ax = axis_weights<W>(s.w, s.ow, align_corners, scales_w, f);
    T* hdst = dst;
    if (vertical) {
      mid.resize(static_cast<size_t>(s.n * s.c * s.h * s.ow));
      hdst = mid.data();
    }
    if constexpr (std::is_same_v<Acc, int32_t>) {
      const FixedTaps ft = fixed_taps(ax);
      if (s.h_inner() == 1)
        uint8_rows(src, hdst, s.h_outer(), ax, ft);
      else
        pass<T, Acc>(src, hdst, s.h_outer(), s.h_inner(), ax, ft.w.data(), ft.bits);
    } else {
      pass<T, Acc>(src, hdst, s.h_outer(), s.h_inner(), ax, ax.w.data(), 0);
    }
    vsrc = hdst;
  }
  if (vertical) {
    const Axis<W> ay = axis_weights<W>(s.h, s.oh, align_corners, scales_h, f);
    if constexpr (std::is_same_v<Acc, int32_t>) {
      const FixedTaps ft = fixed_taps(ay);
      pass<T, Acc>(vsrc, dst, s.v_outer(), s.v_inner(s.ow), ay, ft.w.data(), ft.bits);
    } else {
      pass<T, Acc>(vsrc, dst, s.v_outer(), s.v_inner(s.ow), ay, ay.w.data(), 0);
    }
  }
}

Tensor resize_aa(const Tensor& input, const DimVec& output_size, bool align_corners, std::optional<double> scales_h,
                 std::optional<double> scales_w, Filter f) {
  const ScalarType dt = input.dtype();
  EMBER_CHECK(dt == ScalarType::UInt8 || dt == ScalarType::Float32 || dt == ScalarType::Float64, NotImplemented,
              "\"compute_index_ranges_weights\" not implemented for '", scalar_type_name(dt), "'");
  check_sizes(input.sizes(), output_size);
  const DimVec& in = input.sizes();
  EMBER_CHECK(input.numel() != 0 || in[1] * in[2] * in[3] != 0, Runtime,
              "Non-empty 4D data tensor expected but got a tensor with sizes ", in);
  const bool nhwc = suggest_memory_format(input) == MemoryFormat::ChannelsLast;
  const Shape s{in[0], in[1], in[2], in[3], output_size[0], output_size[1], nhwc};
  Tensor out = new_image({s.n, s.c, s.oh, s.ow}, input.dtype(), input.device(), nhwc);
  if (input.is_meta() || out.numel() == 0) return out;
  if (s.oh == s.h && s.ow == s.w) {
    copy_(out, input);
    return out;
  }
  const Tensor x = dense(input, nhwc);
  switch (input.dtype()) {
    case ScalarType::UInt8:
      run_forward<uint8_t, int32_t, double>(x.data_as<uint8_t>(), out.data_as<uint8_t>(), s, align_corners, scales_h,
                                            scales_w, f);
      break;
    case ScalarType::Float32:
      run_forward<float, float, float>(x.data_as<float>(), out.data_as<float>(), s, align_corners, scales_h, scales_w,
                                       f);
      break;
    default:
      run_forward<double, double, double>(x.data_as<double>(), out.data_as<double>(), s, align_corners, scales_h,
                                          scales_w, f);
  }
  return out;
}

// gx = H^T (V^T g): the forward's passes transposed, in reverse order.
template <class T>
void run_backward(const T* grad, T* dst, const Shape& s, bool align_corners, std::optional<double> scales_h,
                  std::optional<double> scales_w, Filter f) {
  const bool horizontal = s.ow != s.w, vertical = s.oh != s.h;
  std::vector<T> mid;
  const T* hsrc = grad;
  if (vertical) {
    T* vdst = dst;
    if (horizontal) {
      mid.resize(static_cast<size_t>(s.n * s.c * s.h * s.ow));
      vdst = mid.data();
    }
    adjoint_pass<T>(grad, vdst, s.v_outer(), s.v_inner(s.ow), axis_weights<T>(s.h, s.oh, align_corners, scales_h, f));
    hsrc = vdst;
  }
  if (horizontal)
    adjoint_pass<T>(hsrc, dst, s.h_outer(), s.h_inner(), axis_weights<T>(s.w, s.ow, align_corners, scales_w, f));
}

Tensor resize_aa_backward(const Tensor& grad_output, const DimVec& output_size, const DimVec& input_size,
                          bool align_corners, std::optional<double> scales_h, std::optional<double> scales_w,
                          Filter f) {
  const ScalarType dt = grad_output.dtype();
  EMBER_CHECK(dt == ScalarType::Float32 || dt == ScalarType::Float64, NotImplemented,
              "\"upsample_aa_backward\" not implemented for '", scalar_type_name(dt), "'");
  check_sizes(input_size, output_size);
  const DimVec want{input_size[0], input_size[1], output_size[0], output_size[1]};
  EMBER_CHECK(grad_output.dim() == 4, Runtime, "Expected grad_output to be a tensor of dimension 4 but got: dimension ",
              grad_output.dim());
  for (int64_t i = 0; i < 4; i++)
    EMBER_CHECK(grad_output.sizes()[i] == want[i], Runtime,
                "Expected grad_output to have the same shape as output; output.size(", i, ") = ", want[i],
                " but got grad_output.size(", i, ") = ", grad_output.sizes()[i]);
  const bool nhwc = suggest_memory_format(grad_output) == MemoryFormat::ChannelsLast;
  const Shape s{input_size[0], input_size[1], input_size[2], input_size[3], output_size[0], output_size[1], nhwc};
  Tensor out = new_image(input_size, grad_output.dtype(), grad_output.device(), nhwc);
  if (grad_output.is_meta() || out.numel() == 0) return out;
  if (s.oh == s.h && s.ow == s.w) {
    copy_(out, grad_output);
    return out;
  }
  const Tensor g = dense(grad_output, nhwc);
  if (grad_output.dtype() == ScalarType::Float32)
    run_backward<float>(g.data_as<float>(), out.data_as<float>(), s, align_corners, scales_h, scales_w, f);
  else
    run_backward<double>(g.data_as<double>(), out.data_as<double>(), s, align_corners, scales_h, scales_w, f);
  return out;
}

}  // namespace

Tensor _upsample_bilinear2d_aa(const Tensor& input, const DimVec& output_size, bool align_corners,
                               std::optional<double> scales_h, std::optional<double> scales_w) {
  return resize_aa(input, output_size, align_corners, scales_h, scales_w, Filter::Triangle);
}

Tensor _upsample_bicubic2d_aa(const Tensor& input, const DimVec& output_size, bool align_corners,
                              std::optional<double> scales_h, std::optional<double> scales_w) {
  return resize_aa(input, output_size, align_corners, scales_h, scales_w, Filter::Cubic);
}

Tensor _upsample_bilinear2d_aa_backward(const Tensor& grad_output, const DimVec& output_size, const DimVec& input_size,
                                        bool align_corners, std::optional<double> scales_h,
                                        std::optional<double> scales_w) {
  return resize_aa_backward(grad_output, output_size, input_size, align_corners, scales_h, scales_w, Filter::Triangle);
}

Tensor _upsample_bicubic2d_aa_backward(const Tensor& grad_output, const DimVec& output_size, const DimVec& input_size,
                                       bool align_corners, std::optional<double> scales_h,
                                       std::optional<double> scales_w) {
  return resize_aa_backward(grad_output, output_size, input_size, align_corners, scales_h, scales_w, Filter::Cubic);
}

}  // namespace ember::ops
