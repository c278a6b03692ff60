// vision::_resize_aa: Pillow-style separable resampling of [N, H, W] uint8/float32/float64 images with
// banded filter weights that transforms._resize_aa computes (a start index and ksize taps per output
// pixel, per axis). Horizontal pass first, then vertical; uint8 rounds and clips between the passes
// as Pillow does. An axis given no taps (empty tensors) keeps its size. uint8 images take int32 taps: Pillow's
// fixed-point weights (22 fraction bits), summed in int32 from half a unit and shifted back, so the result
// is Pillow's to the level; float images take float32 taps.
#include <ember/extension.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace embervision {

namespace {

using ember::Tensor;

constexpr int kPrecisionBits = 22;  // Pillow's PRECISION_BITS for 8-bit images: 32 - 8 - 2

struct Taps {
  int64_t out = 0, ksize = 0;
  const int64_t* start = nullptr;
  const float* weight = nullptr;   // float images
  const int32_t* fixed = nullptr;  // uint8 images: weight * 2^22, rounded
  Tensor start_t, weight_t;        // keeps contiguous copies alive
};

Taps read_taps(const Tensor& start, const Tensor& weight, int64_t in_size, const char* axis, bool fixed) {
  Taps t;
  if (start.numel() == 0) return t;
  EMBER_CHECK(start.dtype() == ember::ScalarType::Int64 && start.dim() == 1, Type, "_resize_aa: ", axis,
              " starts must be a 1-D int64 tensor");
  const auto want = fixed ? ember::ScalarType::Int32 : ember::ScalarType::Float32;
  EMBER_CHECK(weight.dtype() == want && weight.dim() == 2 && weight.size(0) == start.numel(), Type,
              "_resize_aa: ", axis, " weights must be a ", fixed ? "int32 (fixed-point, for uint8 images)" : "float32",
              " (out, ksize) tensor matching the starts");
  t.start_t = ember::contiguous(start);
  t.weight_t = ember::contiguous(weight);
  t.out = start.numel();
  t.ksize = weight.size(1);
  t.start = t.start_t.data_as<int64_t>();
  if (fixed)
    t.fixed = t.weight_t.data_as<int32_t>();
  else
    t.weight = t.weight_t.data_as<float>();
  for (int64_t i = 0; i < t.out; i++)
    EMBER_CHECK(t.start[i] >= 0 && t.start[i] + t.ksize <= in_size, Value, "_resize_aa: ", axis,
                " taps reach outside the input (start ", t.start[i], ", ksize ", t.ksize, ", size ", in_size, ")");
  return t;
}

// uint8 sums (fixed point, from half a unit) shift back and clip: Pillow's clip8; written so it vectorizes
template <class T, class Acc>
inline Acc finish(Acc v) {
  if constexpr (std::is_same_v<Acc, int32_t>) return std::min(255, std::max(0, v >> kPrecisionBits));
  return v;
}

template <class Acc>
inline Acc tap(const Taps& taps, int64_t at) {
  if constexpr (std::is_same_v<Acc, int32_t>)
    return taps.fixed[at];
  else
    return Acc(taps.weight[at]);
}

// dst[o * n + i] = finish(sum_t k[o, t] * src[(start[o] + t) * n + i]) for every o: one filter pass along
// the outer axis of a row-major [in, n] plane, vectorised over the contiguous inner axis.
template <class T, class Acc>
void pass_outer(const Acc* __restrict src, Acc* __restrict dst, int64_t n, const Taps& taps) {
  const Acc bias = std::is_same_v<Acc, int32_t> ? Acc(1 << (kPrecisionBits - 1)) : Acc(0);
  for (int64_t o = 0; o < taps.out; o++) {
    Acc* __restrict d = dst + o * n;
    const Acc* s0 = src + taps.start[o] * n;
    const Acc k0 = tap<Acc>(taps, o * taps.ksize);
    for (int64_t i = 0; i < n; i++) d[i] = bias + k0 * s0[i];
    for (int64_t t = 1; t < taps.ksize; t++) {
      const Acc kt = tap<Acc>(taps, o * taps.ksize + t);
      const Acc* __restrict s = s0 + t * n;
      for (int64_t i = 0; i < n; i++) d[i] += kt * s[i];
    }
    for (int64_t i = 0; i < n; i++) d[i] = finish<T, Acc>(d[i]);
  }
}

template <class A, class B>
void transpose(const A* src, B* dst, int64_t rows, int64_t cols) {
  constexpr int64_t kBlock = 32;  // cache-sized tiles
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock)
    for (int64_t c0 = 0; c0 < cols; c0 += kBlock)
      for (int64_t r = r0; r < std::min(rows, r0 + kBlock); r++)
        for (int64_t c = c0; c < std::min(cols, c0 + kBlock); c++) dst[c * rows + r] = B(src[r * cols + c]);
}

// Per plane: the horizontal pass runs on the transposed plane (so both passes are the vectorised
// outer-axis pass), then the vertical pass on the plane transposed back.
template <class T, class Acc>
void resample(const T* in, T* out, int64_t n, int64_t h, int64_t w, const Taps& hx, const Taps& vy) {
  const int64_t ow = hx.out ? hx.out : w, oh = vy.out ? vy.out : h;
  ember::parallel_for(n, 1, [&](int64_t b, int64_t e) {
    std::vector<Acc> plane(static_cast<size_t>(h * w)), planeT(static_cast<size_t>(w * h));
    std::vector<Acc> midT(static_cast<size_t>(ow * h));
    std::vector<Acc> mid(static_cast<size_t>(h * ow)), res(static_cast<size_t>(oh * ow));
    for (int64_t img = b; img < e; img++) {
      const T* src = in + img * h * w;
      if (hx.out) {
        // widen first: a contiguous uint8 -> float loop vectorises, the strided one a transpose does not
        for (int64_t i = 0; i < h * w; i++) plane[i] = Acc(src[i]);
        transpose(plane.data(), planeT.data(), h, w);           // [w, h]
        pass_outer<T, Acc>(planeT.data(), midT.data(), h, hx);  // [ow, h]
        transpose(midT.data(), mid.data(), ow, h);              // [h, ow]
      } else {
        for (int64_t i = 0; i < h * w; i++) mid[i] = Acc(src[i]);
      }
      T* dst = out + img * oh * ow;
      if (vy.out) {
        pass_outer<T, Acc>(mid.data(), res.data(), ow, vy);
        for (int64_t i = 0; i < oh * ow; i++) dst[i] = T(res[i]);
      } else {
        for (int64_t i = 0; i < oh * ow; i++) dst[i] = T(mid[i]);
      }
    }
  });
}

Tensor resize_aa(const Tensor& input, const Tensor& v_start, const Tensor& v_weight, const Tensor& h_start,
                 const Tensor& h_weight) {
  EMBER_CHECK(input.dim() == 3, Value, "_resize_aa: expected an [N, H, W] input, got ", input.dim(), " dims");
  EMBER_CHECK(input.device().type == ember::DeviceType::CPU, Value, "_resize_aa: the input must be on the CPU");
  const auto dtype = input.dtype();
  EMBER_CHECK(
      dtype == ember::ScalarType::UInt8 || dtype == ember::ScalarType::Float32 || dtype == ember::ScalarType::Float64,
      Type, "_resize_aa: supports uint8, float32 and float64 inputs, got ", ember::dtype_name(dtype));
  const int64_t n = input.size(0), h = input.size(1), w = input.size(2);
  const bool fixed = dtype == ember::ScalarType::UInt8;
  const Taps hx = read_taps(h_start, h_weight, w, "horizontal", fixed);
  const Taps vy = read_taps(v_start, v_weight, h, "vertical", fixed);
  const Tensor src = ember::contiguous(input);
  Tensor out = ember::empty({n, vy.out ? vy.out : h, hx.out ? hx.out : w}, dtype, ember::Device());
  if (dtype == ember::ScalarType::UInt8)
    resample<uint8_t, int32_t>(src.data_as<uint8_t>(), out.data_as<uint8_t>(), n, h, w, hx, vy);
  else if (dtype == ember::ScalarType::Float32)
    resample<float, float>(src.data_as<float>(), out.data_as<float>(), n, h, w, hx, vy);
  else
    resample<double, double>(src.data_as<double>(), out.data_as<double>(), n, h, w, hx, vy);
  return out;
}

}  // namespace

EMBER_LIBRARY(vision, m) {
  m.def("_resize_aa(Tensor input, Tensor v_start, Tensor v_weight, Tensor h_start, Tensor h_weight) -> Tensor",
        resize_aa);
}

}  // namespace embervision
