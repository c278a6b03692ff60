// convolution (1-3 spatial dims, stride, padding, dilation, groups, transposed with output_padding)
// and convolution_weight_grad, by column matrices and OpenBLAS gemm, an image at a time (small
// output planes: a chunk of images at a time, conv_chunked.h):
//   forward:            out_n[g]  = W[g] (O/g x C/g*K)  @ im2col(x_n[g])
//   transposed forward: out_n[g] += col2im(W[g]^T @ x_n[g])          (the adjoint of forward)
//   weight gradient:    dW[g]    += grad_n[g] @ im2col(x_n[g])^T
// float32 and bfloat16 2-D 3x3 stride-1 convolutions with enough channels take Winograd's F(4x4, 3x3)
// instead (conv_winograd.h), for all three (bfloat16 read and written as it is, computed in float32). bfloat16 uses the
// AVX512_BF16 product where the CPU has it (conv_bf16.h) except where Winograd serves; float16 (and bfloat16 elsewhere)
// computes in float32. Depthwise 2-D float convolutions (groups == channels) take a direct stencil (conv_depthwise.h);
// pointwise ones (1x1, stride 1, no padding) on wide planes a product straight on the input (conv_pointwise.h).
// Channels-last operands run natively: 2-D on NHWC (conv_nhwc.h), 3-D on NDHWC (conv_ndhwc.h).
// Messages follow PyTorch's.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "device/parallel.h"
#include "generated/ops/convolution.h"
#include "generated/ops/convolution_weight_grad.h"
#include "iter/copy.h"
#include "kernels/blas.h"
#include "kernels/cpu/conv_bf16.h"
#include "kernels/cpu/conv_chunked.h"
#include "kernels/cpu/conv_cols.h"
#include "kernels/cpu/conv_depthwise.h"
#include "kernels/cpu/conv_ndhwc.h"
#include "kernels/cpu/conv_nhwc.h"
#include "kernels/cpu/conv_pointwise.h"
#include "kernels/cpu/conv_winograd.h"
#include "tensor/factory.h"

namespace ember::ops {

namespace {

using blas::Op;
using conv::Plan;
using conv::scratch;

std::string shape_str(const DimVec& s) {
  std::string out = "[";
  for (int64_t i = 0; i < int64_t(s.size()); i++) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// One value per spatial dim: a list of one value applies to all of them.
DimVec per_dim(const DimVec& v, int64_t nd, const char* what) {
  if (v.size() == 1 && nd > 1) return DimVec(nd, v[0]);
  EMBER_CHECK(int64_t(v.size()) == nd, Runtime, "expected ", what, " to be a single integer value or a list of ", nd,
              " values to match the convolution dimensions, but got ", what, "=", shape_str(v));
  return v;
}

// Checks the arguments and computes the geometry; `x` is the convolution's input side (for a
// transposed convolution, its output) and `y` its output side.
Plan make_plan(const DimVec& x_sizes, const DimVec& w_sizes, const DimVec& stride_in, const DimVec& pad_in,
               const DimVec& dil_in, bool transposed, const DimVec& out_pad_in, int64_t groups, const char* op) {
  const int64_t nd = int64_t(w_sizes.size()) - 2;
  EMBER_CHECK(nd >= 1 && nd <= 3, Runtime, op, ": expected a weight of 3, 4 or 5 dims (1-3 spatial), got ",
              shape_str(w_sizes));
  EMBER_CHECK(int64_t(x_sizes.size()) == nd + 2, Runtime, "Expected ", nd + 2, "D (batched) input to conv", nd,
              "d for weight of size ", shape_str(w_sizes), ", but got input of size ", shape_str(x_sizes), " instead");
  EMBER_CHECK(groups > 0, Runtime, "non-positive groups is not supported");
  const DimVec stride = per_dim(stride_in, nd, "stride"), pad = per_dim(pad_in, nd, "padding"),
               dil = per_dim(dil_in, nd, "dilation"), opad = per_dim(out_pad_in, nd, "output_padding");
  for (int64_t d = 0; d < nd; d++) {
    EMBER_CHECK(stride[d] > 0, Runtime, "non-positive stride is not supported");
    EMBER_CHECK(dil[d] > 0, Runtime, "dilation should be greater than zero");
    EMBER_CHECK(pad[d] >= 0, Runtime, "negative padding is not supported");
    EMBER_CHECK(
        opad[d] >= 0 && (!transposed || opad[d] < std::max(stride[d], dil[d])), Runtime,
        "output padding must be smaller than either stride or dilation, but got output_padding=", shape_str(opad));
  }
  Plan p;
  p.batch = x_sizes[0];
  p.groups = groups;
  const int64_t in_ch = x_sizes[1];
  if (!transposed) {
    EMBER_CHECK(w_sizes[0] % groups == 0, Runtime, "Given groups=", groups, ", expected weight to be divisible by ",
                groups, " at dimension 0, but got weight of size ", shape_str(w_sizes), " instead");
    EMBER_CHECK(in_ch == w_sizes[1] * groups, Runtime, "Given groups=", groups, ", weight of size ", shape_str(w_sizes),
                ", expected input", shape_str(x_sizes), " to have ", w_sizes[1] * groups, " channels, but got ", in_ch,
                " channels instead");
    p.in_ch = in_ch;
    p.out_ch = w_sizes[0];
  } else {
    EMBER_CHECK(in_ch == w_sizes[0], Runtime, "Given transposed=1, weight of size ", shape_str(w_sizes),
                ", expected input", shape_str(x_sizes), " to have ", w_sizes[0], " channels, but got ", in_ch,
                " channels instead");
    EMBER_CHECK(w_sizes[0] % groups == 0, Runtime, "Given groups=", groups, ", expected weight to be divisible by ",
                groups, " at dimension 0, but got weight of size ", shape_str(w_sizes), " instead");
    p.in_ch = w_sizes[1] * groups;  // the channels of the (forward) convolution's input: our output
    p.out_ch = in_ch;
  }
  const int64_t off = 3 - nd;
  for (int64_t d = 0; d < nd; d++) {
    conv::Geometry& g = p.g;
    g.k[off + d] = w_sizes[2 + d];
    g.stride[off + d] = stride[d];
    g.pad[off + d] = pad[d];
    g.dil[off + d] = dil[d];
    // dilation and padding are user-sized int64s: a product or sum past int64 is refused, not wrapped
    int64_t span = 0, padded = 0;
    const bool span_overflows = __builtin_mul_overflow(dil[d], w_sizes[2 + d] - 1, &span) || span == INT64_MAX;
    EMBER_CHECK(!span_overflows, Runtime, "dilation ", dil[d], " with kernel size ", w_sizes[2 + d],
                " makes the kernel's extent dilation * (kernel_size - 1) + 1 overflow int64");
    span += 1;
    EMBER_CHECK(!__builtin_mul_overflow(pad[d], int64_t{2}, &padded) &&
                    !__builtin_add_overflow(padded, x_sizes[2 + d], &padded),
                Runtime, "padding ", pad[d], " makes the padded input size ", x_sizes[2 + d],
                " + 2 * padding overflow int64");
    if (!transposed) {
      g.in[off + d] = x_sizes[2 + d];
      EMBER_CHECK(padded >= span, Runtime, "Calculated padded input size per channel: (", padded, "). Kernel size: (",
                  span, "). Kernel size can't be greater than actual input size");
      g.out[off + d] = (padded - span) / stride[d] + 1;
    } else {
      g.out[off + d] = x_sizes[2 + d];  // the forward convolution's output is the transposed one's input
      const __int128 size =
          static_cast<__int128>(x_sizes[2 + d] - 1) * stride[d] - 2 * static_cast<__int128>(pad[d]) + span + opad[d];
      EMBER_CHECK(size <= INT64_MAX, Runtime, "conv_transpose: the output size along dimension ", 2 + d,
                  " does not fit in int64 for input of size ", shape_str(x_sizes));
      g.in[off + d] = static_cast<int64_t>(size);
      EMBER_CHECK(size > 0, Runtime, "conv_transpose: the output size ", g.in[off + d],
                  " is not positive for input of size ", shape_str(x_sizes));
    }
  }
  return p;
}

DimVec spatial(const conv::Geometry& g, int64_t nd, bool input_side) {
  DimVec out;
  for (int64_t d = 3 - nd; d < 3; d++) out.push_back(input_side ? g.in[d] : g.out[d]);
  return out;
}

bool reduced(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }

// The work items are (image, group) pairs. With enough of them, each of ember's threads takes whole
// items (their products then run on that thread); otherwise the items run in order and each
// product is split across the threads.
template <class F>
void for_items(const Plan& p, size_t cols_size, F&& f) {
  using T = typename std::decay_t<F>::value_type;
  const int64_t items = p.batch * p.groups, threads = get_num_threads();
  if (threads > 1 && items >= threads) {
    parallel_for(items, 1, [&](int64_t lo, int64_t hi) {
      Tensor holder;
      T* cols = scratch<T>(holder, cols_size);
      for (int64_t i = lo; i < hi; i++) f(i / p.groups, i % p.groups, cols, lo);
    });
    return;
  }
  Tensor holder;
  T* cols = scratch<T>(holder, cols_size);
  for (int64_t i = 0; i < items; i++) f(i / p.groups, i % p.groups, cols, int64_t(0));
}

template <class T, class Body>
struct Item {
  using value_type = T;
  Body body;
  void operator()(int64_t n, int64_t gi, T* cols, int64_t first) const { body(n, gi, cols, first); }
};
template <class T, class Body>
Item<T, Body> item(Body b) {
  return Item<T, Body>{std::move(b)};
}

// Output lines per column block: an image's column matrix (rows x all its positions) can run to
// megabytes (ResNet's 7x7 stem: 147 rows x 12544), which im2col would write out to memory and the
// product read back. Blocks of about kBlock values stay in cache between the two.
int64_t lines_per_block(const conv::Geometry& g, int64_t rows) {
  constexpr int64_t kBlock = int64_t(1) << 18;  // 1 MB of float
  return std::clamp<int64_t>(kBlock / std::max<int64_t>(rows * g.out[2], 1), 1, conv::all_lines(g).hi);
}

// Runs f(lines, width) for consecutive blocks of per_block output lines (width: their positions).
template <class F>
void for_line_blocks(const conv::Geometry& g, int64_t per_block, F&& f) {
  const conv::Lines all = conv::all_lines(g);
  for (int64_t lo = all.lo; lo < all.hi; lo += per_block) {
    const conv::Lines lines{lo, std::min(all.hi, lo + per_block)};
    f(lines, lines.count() * g.out[2]);
  }
}

// y (batch x channels planes of `plane`) += bias per channel.
template <class T>
void add_bias(T* y, const T* bias, int64_t batch, int64_t channels, int64_t plane) {
  parallel_for(batch * channels, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++)
      for (int64_t j = 0; j < plane; j++) y[i * plane + j] += bias[i % channels];
  });
}

// The F(4x4, 3x3) problem of one group of this plan (3x3, stride 1), if its geometry fits that path:
// the convolution itself, or (adjoint) its transposed one, from the output side to the input side.
bool winograd_problem(const Plan& p, bool adjoint, conv::winograd::Problem& w) {
  const conv::Geometry& g = p.g;
  if (!conv::winograd::geometry_fits(g)) return false;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups;
  w.n = p.batch;
  w.c = adjoint ? og : cg;
  w.k = adjoint ? cg : og;
  w.h = adjoint ? g.out[1] : g.in[1];
  w.w = adjoint ? g.out[2] : g.in[2];
  w.ph = adjoint ? 2 - g.pad[1] : g.pad[1];
  w.pw = adjoint ? 2 - g.pad[2] : g.pad[2];
  w.x_stride = adjoint ? p.out_ch * g.out_size() : p.in_ch * g.in_size();
  w.y_stride = adjoint ? p.in_ch * g.in_size() : p.out_ch * g.out_size();
  return true;
}

// Whether Winograd's F(4x4, 3x3) serves this plan's convolution (adjoint: its transposed one), or
// (weight_grad) its weight gradient. bfloat16 ones it serves are computed in float32 on it and
// rounded once: direct convolution on the bf16 product does four times the multiplications, at
// only twice float32's rate. Rounding the transformed kernel and tiles to bf16 for the bf16 product
// would lose the round-once result: a float64 simulation (256 channels) gives F(4x4, 3x3) an error of
// 2% of the output's rms (20% at worst), F(3x3) 1%, F(2x2) 0.3%, against 0.16% for rounding once.
bool winograd_serves(const Plan& p, bool adjoint, bool weight_grad) {
  conv::winograd::Problem wp;
  if (!winograd_problem(p, adjoint, wp)) return false;
  return weight_grad ? conv::winograd::applies_to_weight_grad(wp) : conv::winograd::applies(wp);
}

const uint16_t* bf16_bits(const Tensor& t) { return reinterpret_cast<const uint16_t*>(t.data_as<BFloat16>()); }

// A bfloat16 convolution (adjoint: its transposed one) that Winograd serves, on the bfloat16 operands
// themselves: widened as its tiles load, rounded once as its results store (conv_winograd_elem.h),
// so no float32 copies of the activations are made and out is the float32 Winograd's result
// rounded. False when Winograd does not serve it or refuses its values (out is then to be written
// again), or when its bias is not bfloat16 (the float path widens that one exactly).
bool winograd_bf16(const Plan& p, bool adjoint, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const Tensor& out) {
  conv::winograd::Problem wp;
  if (!winograd_problem(p, adjoint, wp) || !conv::winograd::applies(wp)) return false;
  if (bias.defined() && bias.dtype() != ScalarType::BFloat16) return false;
  const Tensor x = contiguous_as(input, ScalarType::BFloat16), w = contiguous_as(weight, ScalarType::BFloat16);
  const Tensor b = bias.defined() ? contiguous_as(bias, ScalarType::BFloat16) : Tensor();
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, in_plane = p.g.in_size(), out_plane = p.g.out_size();
  // per group: the operand's, the result's and the bias's first channel
  const int64_t x_ch = adjoint ? og * out_plane : cg * in_plane, y_ch = adjoint ? cg * in_plane : og * out_plane;
  const int64_t b_ch = adjoint ? cg : og;
  uint16_t* y = reinterpret_cast<uint16_t*>(out.data_as<BFloat16>());
  for (int64_t gi = 0; gi < p.groups; gi++)
    if (!conv::winograd::forward(bf16_bits(x) + gi * x_ch, bf16_bits(w) + gi * og * cg * 9,
                                 b.defined() ? bf16_bits(b) + gi * b_ch : nullptr, adjoint, y + gi * y_ch, wp))
      return false;
  return true;
}

// The weight gradient of a bfloat16 convolution that Winograd serves, likewise on the bfloat16
// operands; false (dw to be written again) as winograd_bf16.
bool winograd_weight_grad_bf16(const Plan& p, const Tensor& grad_output, const Tensor& input, const Tensor& dw) {
  conv::winograd::Problem wp;
  if (!winograd_problem(p, false, wp) || !conv::winograd::applies_to_weight_grad(wp)) return false;
  if (grad_output.dtype() != ScalarType::BFloat16) return false;
  const Tensor go = contiguous_as(grad_output, ScalarType::BFloat16), x = contiguous_as(input, ScalarType::BFloat16);
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups;
  uint16_t* out = reinterpret_cast<uint16_t*>(dw.data_as<BFloat16>());
  for (int64_t gi = 0; gi < p.groups; gi++)
    if (!conv::winograd::weight_grad(bf16_bits(go) + gi * og * p.g.out_size(), bf16_bits(x) + gi * cg * p.g.in_size(),
                                     out + gi * og * cg * 9, wp))
      return false;
  return true;
}

// y = the convolution, plus bias (out_ch values) unless it is null.
template <class T>
void forward_impl(const Plan& p, const T* x, const T* w, const T* bias, T* y) {
  const conv::Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = g.k_size(), L = g.out_size();
  conv::winograd::Problem wp;
  if constexpr (std::is_same_v<T, float>) {
    // A group with NaN or infinity is refused; the direct path below then redoes them all.
    bool done = winograd_problem(p, false, wp) && conv::winograd::applies(wp);
    for (int64_t gi = 0; done && gi < p.groups; gi++)
      done = conv::winograd::forward(x + gi * cg * g.in_size(), w + gi * og * cg * K, bias ? bias + gi * og : nullptr,
                                     false, y + gi * og * L, wp);
    if (done) return;
  }
  if (const int64_t nb = conv::chunked::images_per_chunk(p)) {
    conv::chunked::forward(p, nb, x, w, y);
    if (bias) add_bias(y, bias, p.batch, p.out_ch, L);
    return;
  }
  const int64_t per_block = lines_per_block(g, cg * K);
  for_items(p, size_t(cg * K * per_block * g.out[2]), item<T>([&](int64_t n, int64_t gi, T* cols, int64_t) {
              for_line_blocks(g, per_block, [&](conv::Lines lines, int64_t width) {
                conv::im2col(x + (n * p.in_ch + gi * cg) * g.in_size(), cg, g, cols, width, lines);
                blas::gemm<T>(Op::N, Op::N, og, width, cg * K, T(1), w + gi * og * cg * K, cg * K, cols, width, T(0),
                              y + (n * p.out_ch + gi * og) * L + lines.lo * g.out[2], L);
              });
            }));
  if (bias) add_bias(y, bias, p.batch, p.out_ch, L);
}

// The transposed direction: y_in (in_ch planes of in_size) = col2im(W^T @ x_out).
template <class T>
void transposed_impl(const Plan& p, const T* xo, const T* w, T* yi) {
  const conv::Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = g.k_size(), L = g.out_size();
  conv::winograd::Problem wp;
  if constexpr (std::is_same_v<T, float>) {
    if (winograd_problem(p, true, wp) && conv::winograd::applies(wp)) {
      bool done = true;
      for (int64_t gi = 0; done && gi < p.groups; gi++)
        done = conv::winograd::forward(xo + gi * og * L, w + gi * og * cg * K, nullptr, true,
                                       yi + gi * cg * g.in_size(), wp);
      if (done) return;
    }
  }
  if (const int64_t nb = conv::chunked::images_per_chunk(p)) return conv::chunked::transposed(p, nb, xo, w, yi);
  std::fill_n(yi, p.batch * p.in_ch * g.in_size(), T(0));  // the direct path accumulates
  const int64_t per_block = lines_per_block(g, cg * K);
  for_items(p, size_t(cg * K * per_block * g.out[2]), item<T>([&](int64_t n, int64_t gi, T* cols, int64_t) {
              for_line_blocks(g, per_block, [&](conv::Lines lines, int64_t width) {
                blas::gemm<T>(Op::T, Op::N, cg * K, width, og, T(1), w + gi * og * cg * K, cg * K,
                              xo + (n * p.out_ch + gi * og) * L + lines.lo * g.out[2], L, T(0), cols, width);
                conv::col2im(cols, cg, g, yi + (n * p.in_ch + gi * cg) * g.in_size(), width, lines);
              });
            }));
}

// dW[g] = sum over images of grad_n[g] @ im2col(x_n[g])^T: each thread sums its images into its own
// buffer (indexed by its first item), and the buffers are added at the end.
template <class T>
void weight_grad_impl(const Plan& p, const T* go, const T* x, T* dw) {
  const conv::Geometry& g = p.g;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups, K = g.k_size(), L = g.out_size();
  const int64_t wsize = p.out_ch * cg * K;
  conv::winograd::Problem wp;
  if constexpr (std::is_same_v<T, float>) {
    bool done = winograd_problem(p, false, wp) && conv::winograd::applies_to_weight_grad(wp);
    for (int64_t gi = 0; done && gi < p.groups; gi++)
      done = conv::winograd::weight_grad(go + gi * og * L, x + gi * cg * g.in_size(), dw + gi * og * cg * K, wp);
    if (done) return;
  }
  if (const int64_t nb = conv::chunked::images_per_chunk(p)) return conv::chunked::weight_grad(p, nb, go, x, dw);
  std::vector<Tensor> partial(size_t(p.batch * p.groups));
  const int64_t per_block = lines_per_block(g, cg * K);
  for_items(p, size_t(cg * K * per_block * g.out[2]), item<T>([&](int64_t n, int64_t gi, T* cols, int64_t first) {
              Tensor& acc = partial[size_t(first)];
              if (!acc.defined()) std::fill_n(scratch<T>(acc, size_t(wsize)), wsize, T(0));
              for_line_blocks(g, per_block, [&](conv::Lines lines, int64_t width) {
                conv::im2col(x + (n * p.in_ch + gi * cg) * g.in_size(), cg, g, cols, width, lines);
                blas::gemm<T>(Op::N, Op::T, og, cg * K, width, T(1),
                              go + (n * p.out_ch + gi * og) * L + lines.lo * g.out[2], L, cols, width, T(1),
                              acc.data_as<T>() + gi * og * cg * K, cg * K);
              });
            }));
  conv::sum_partials(partial, wsize, dw);
}

// Runs f<T>(...) in the compute type of dt, converting 16-bit floats through float32.
template <class F>
void dispatch_float(ScalarType dt, const char* op, F&& f) {
  if (dt == ScalarType::Float64)
    f(double(0));
  else if (dt == ScalarType::Float32 || reduced(dt))
    f(float(0));
  else
    EMBER_FAIL(Type, "\"", op, "\" is not implemented for dtype ", dtype_name(dt));
}

ScalarType compute_type(ScalarType dt) { return reduced(dt) ? ScalarType::Float32 : dt; }

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const DimVec& stride,
                   const DimVec& padding, const DimVec& dilation, bool transposed, const DimVec& output_padding,
                   int64_t groups) {
  EMBER_CHECK(input.dtype() == weight.dtype(), Runtime, "Input type (", dtype_name(input.dtype()),
              ") and weight type (", dtype_name(weight.dtype()), ") should be the same");
  const Plan p = make_plan(input.sizes(), weight.sizes(), stride, padding, dilation, transposed, output_padding, groups,
                           transposed ? "conv_transpose" : "conv");
  const int64_t nd = weight.dim() - 2;
  DimVec out_sizes{p.batch, transposed ? p.in_ch : p.out_ch};
  for (int64_t s : spatial(p.g, nd, transposed)) out_sizes.push_back(s);
  if (bias.defined())
    EMBER_CHECK(bias.dim() == 1 && bias.numel() == out_sizes[1], Runtime, "Given weight of size ",
                shape_str(weight.sizes()), ", expected bias to be 1-dimensional with ", out_sizes[1],
                " elements, but got bias of size ", shape_str(bias.sizes()), " instead");
  if (conv::nhwc::wanted(input, weight))  // channels_last operands: NHWC in and out (conv_nhwc.h)
    return conv::nhwc::convolution(p, input, weight, bias, transposed, out_sizes);
  if (conv::ndhwc::wanted(input, weight))  // channels_last_3d operands: NDHWC in and out (conv_ndhwc.h)
    return conv::ndhwc::convolution(p, input, weight, bias, transposed, out_sizes);
  Tensor out = empty(out_sizes, input.dtype(), input.device());
  if (input.is_meta() || weight.is_meta() || out.numel() == 0) return out;
  if (input.dtype() == ScalarType::BFloat16 && winograd_bf16(p, transposed, input, weight, bias, out)) return out;
  if (input.dtype() == ScalarType::BFloat16 && !winograd_serves(p, transposed, false) &&
      conv::bf16::convolution(p, input, weight, bias, transposed, out))
    return out;
  if (conv::depthwise::serves(p, input, weight, transposed)) {  // a direct stencil, no column matrix
    conv::depthwise::forward(p, input, weight, bias, out);
    return out;
  }
  if (conv::pointwise::serves(p, input, transposed)) {  // a product on the input itself, no column matrix
    conv::pointwise::forward(p, input, weight, bias, out);
    return out;
  }
  const ScalarType ct = compute_type(input.dtype());
  Tensor x = contiguous_as(input, ct), w = contiguous_as(weight, ct);
  Tensor y = ct == out.dtype() ? out : empty(out_sizes, ct, input.device());
  dispatch_float(input.dtype(), "convolution", [&](auto z) {
    using T = decltype(z);
    Tensor b = bias.defined() ? contiguous_as(bias, ct) : Tensor();
    const T* pb = bias.defined() ? b.data_as<T>() : nullptr;
    if (transposed) {
      transposed_impl<T>(p, x.data_as<T>(), w.data_as<T>(), y.data_as<T>());
      if (pb) add_bias(y.data_as<T>(), pb, out_sizes[0], out_sizes[1], y.numel() / (out_sizes[0] * out_sizes[1]));
    } else {
      forward_impl<T>(p, x.data_as<T>(), w.data_as<T>(), pb, y.data_as<T>());
    }
  });
  if (!y.is_same(out)) copy_(out, y);
  return out;
}

Tensor convolution_weight_grad(const Tensor& grad_output, const Tensor& input, const DimVec& weight_sizes,
                               const DimVec& stride, const DimVec& padding, const DimVec& dilation, int64_t groups) {
  const Plan p = make_plan(input.sizes(), weight_sizes, stride, padding, dilation, false, DimVec{0}, groups,
                           "convolution_weight_grad");
  DimVec expect{p.batch, p.out_ch};
  for (int64_t s : spatial(p.g, weight_sizes.size() - 2, false)) expect.push_back(s);
  EMBER_CHECK(grad_output.sizes() == expect, Runtime, "convolution_weight_grad: expected grad_output of size ",
              shape_str(expect), ", got ", shape_str(grad_output.sizes()));
  // Channels_last operands: NHWC (the weight's own format is not known here: channels_last with the input's).
  const bool nhwc_input = conv::nhwc::wanted(input, input);
  if (weight_sizes.size() == 4 && p.batch > 0 && (nhwc_input || conv::nhwc::wanted(grad_output, grad_output)))
    return conv::nhwc::weight_grad(p, grad_output, input, weight_sizes, nhwc_input);
  const bool ndhwc_input = conv::ndhwc::wanted(input, input);
  if (weight_sizes.size() == 5 && p.batch > 0 && (ndhwc_input || conv::ndhwc::wanted(grad_output, grad_output)))
    return conv::ndhwc::weight_grad(p, grad_output, input, weight_sizes, ndhwc_input);
  Tensor out = empty(weight_sizes, input.dtype(), input.device());
  if (input.is_meta() || out.numel() == 0) return out;
  if (p.batch == 0) {
    fill_(out, Scalar(0.0));
    return out;
  }
  if (input.dtype() == ScalarType::BFloat16 && winograd_weight_grad_bf16(p, grad_output, input, out)) return out;
  if (input.dtype() == ScalarType::BFloat16 && !winograd_serves(p, false, true) &&
      conv::bf16::weight_grad(p, grad_output, input, out))
    return out;
  const ScalarType ct = compute_type(input.dtype());
  Tensor go = contiguous_as(grad_output, ct), x = contiguous_as(input, ct);
  Tensor dw = ct == out.dtype() ? out : empty(weight_sizes, ct, input.device());
  dispatch_float(input.dtype(), "convolution_weight_grad", [&](auto z) {
    using T = decltype(z);
    weight_grad_impl<T>(p, go.data_as<T>(), x.data_as<T>(), dw.data_as<T>());
  });
  if (!dw.is_same(out)) copy_(out, dw);
  return out;
}

}  // namespace ember::ops
