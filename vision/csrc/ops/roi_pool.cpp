// roi_pool (max over each bin of a box snapped to the pixel grid) and ps_roi_pool (position-sensitive
// average: output channel c, bin (ph, pw) reads input channel (c * PH + ph) * PW + pw).
// Backward routes roi_pool's gradient to each bin's argmax (recomputed: the op returns only values)
// and spreads ps_roi_pool's evenly over its bin.
#include <algorithm>
#include <limits>

#include "common.h"

namespace embervision {

namespace {

struct Bin {
  int64_t h0, h1, w0, w1;
  bool empty() const { return h1 <= h0 || w1 <= w0; }
};

// The integer bins of one box. roi_pool's box spans end - start + 1 pixels and its bins are clipped to
// [0, H]; ps_roi_pool's spans end - start and its bins are clipped to [0, H - 1] (torchvision's rules).
template <class T>
struct PoolBins {
  int64_t start_h, start_w, height, width;
  T bin_h, bin_w;
  bool ps;
  Bin at(int64_t ph, int64_t pw) const {
    const int64_t hi_h = ps ? height - 1 : height, hi_w = ps ? width - 1 : width;
    auto clip = [](int64_t v, int64_t hi) { return std::min(std::max<int64_t>(v, 0), hi); };
    return {clip(int64_t(std::floor(T(ph) * bin_h)) + start_h, hi_h),
            clip(int64_t(std::ceil(T(ph + 1) * bin_h)) + start_h, hi_h),
            clip(int64_t(std::floor(T(pw) * bin_w)) + start_w, hi_w),
            clip(int64_t(std::ceil(T(pw + 1) * bin_w)) + start_w, hi_w)};
  }
};

template <class T>
PoolBins<T> pool_bins(const T* roi, double scale, int64_t ph, int64_t pw, int64_t height, int64_t width, bool ps) {
  const int64_t x1 = int64_t(std::round(roi[1] * T(scale))), y1 = int64_t(std::round(roi[2] * T(scale)));
  const int64_t x2 = int64_t(std::round(roi[3] * T(scale))), y2 = int64_t(std::round(roi[4] * T(scale)));
  const int64_t extra = ps ? 0 : 1;
  const int64_t rw = std::max<int64_t>(x2 - x1 + extra, 1), rh = std::max<int64_t>(y2 - y1 + extra, 1);
  return {y1, x1, height, width, T(rh) / T(ph), T(rw) / T(pw), ps};
}

struct PoolArgs {
  double scale;
  int64_t ph, pw;
  bool ps;
};

// Visits every (roi, output channel, bin): f(out_index, plane, bin). Threads split the output channels.
template <class T, class F>
void for_each_bin(const Tensor& input, const Tensor& rois, const PoolArgs& a, int64_t channels_out, F f) {
  const int64_t channels = input.size(1), height = input.size(2), width = input.size(3), k = rois.size(0);
  const T* r = rois.data_as<T>();
  ember::parallel_for(channels_out, 1, [&](int64_t c_lo, int64_t c_hi) {
    for (int64_t n = 0; n < k; n++) {
      const T* roi = r + n * 5;
      const int64_t b = int64_t(roi[0]);
      const PoolBins<T> bins = pool_bins<T>(roi, a.scale, a.ph, a.pw, height, width, a.ps);
      for (int64_t c = c_lo; c < c_hi; c++)
        for (int64_t ph = 0; ph < a.ph; ph++)
          for (int64_t pw = 0; pw < a.pw; pw++) {
            const int64_t c_in = a.ps ? (c * a.ph + ph) * a.pw + pw : c;
            f(((n * channels_out + c) * a.ph + ph) * a.pw + pw, (b * channels + c_in) * height * width,
              bins.at(ph, pw));
          }
    }
  });
}

// The flat in-plane index of a bin's maximum (the first one on ties), or -1 for an empty bin.
template <class T>
int64_t bin_argmax(const T* p, int64_t width, const Bin& bin) {
  T best = -std::numeric_limits<T>::max();
  int64_t at = -1;
  for (int64_t h = bin.h0; h < bin.h1; h++)
    for (int64_t w = bin.w0; w < bin.w1; w++)
      if (p[h * width + w] > best || at < 0) best = p[h * width + w], at = h * width + w;
  return at;
}

int64_t channels_out_of(const Tensor& input, const PoolArgs& a, const char* op) {
  if (!a.ps) return input.size(1);
  EMBER_CHECK(input.size(1) % (a.ph * a.pw) == 0, Runtime, op, ": input channels (", input.size(1),
              ") must be a multiple of output_size[0] * output_size[1] (", a.ph * a.pw, ")");
  return input.size(1) / (a.ph * a.pw);
}

// grad undefined: the forward values; else the input's gradient.
Tensor pool(const Tensor& input, const Tensor& rois, const PoolArgs& a, const Tensor& grad, const char* op) {
  check_features(input, op);
  check_rois(input, rois, op);
  check_pooled(a.ph, a.pw, op);
  const int64_t c_out = channels_out_of(input, a, op), width = input.size(3);
  const bool fwd = !grad.defined();
  Tensor out = fwd ? zeros({rois.size(0), c_out, a.ph, a.pw}, input.dtype()) : zeros(input.sizes(), input.dtype());
  if (input.numel() == 0 || rois.size(0) == 0 || c_out == 0) return out;
  const Tensor x = ember::contiguous(input), r = ember::contiguous(rois);
  const Tensor g = fwd ? Tensor() : ember::contiguous(grad);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* in = x.data_as<T>();
    T* o = out.data_as<T>();
    const T* go = fwd ? nullptr : g.data_as<T>();
    for_each_bin<T>(x, r, a, c_out, [&](int64_t at, int64_t plane, const Bin& bin) {
      if (bin.empty()) return;
      if (!a.ps) {
        const int64_t m = bin_argmax(in + plane, width, bin);
        if (fwd)
          o[at] = in[plane + m];
        else
          o[plane + m] += go[at];
        return;
      }
      const T area = T((bin.h1 - bin.h0) * (bin.w1 - bin.w0));
      if (fwd) {
        T sum = 0;
        for (int64_t h = bin.h0; h < bin.h1; h++)
          for (int64_t w = bin.w0; w < bin.w1; w++) sum += in[plane + h * width + w];
        o[at] = sum / area;
      } else {
        for (int64_t h = bin.h0; h < bin.h1; h++)
          for (int64_t w = bin.w0; w < bin.w1; w++) o[plane + h * width + w] += go[at] / area;
      }
    });
  };
  if (input.dtype() == ember::ScalarType::Float32)
    run(float(0));
  else
    run(double(0));
  return out;
}

Tensor roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_height,
                int64_t pooled_width) {
  return pool(input, rois, {spatial_scale, pooled_height, pooled_width, false}, Tensor(), "roi_pool");
}

Tensor ps_roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_height,
                   int64_t pooled_width) {
  return pool(input, rois, {spatial_scale, pooled_height, pooled_width, true}, Tensor(), "ps_roi_pool");
}

std::vector<Tensor> pool_grad(const ember::BackwardArgs& b, bool ps) {
  const PoolArgs a{b.inputs[2].to_double(), b.inputs[3].to_int(), b.inputs[4].to_int(), ps};
  return {pool(b.inputs[0].to_tensor(), b.inputs[1].to_tensor(), a, b.grad_outputs[0],
               ps ? "ps_roi_pool_backward" : "roi_pool_backward"),
          Tensor()};
}

}  // namespace

}  // namespace embervision

EMBER_LIBRARY(vision, m) {
  m.def("roi_pool(Tensor input, Tensor rois, float spatial_scale, int pooled_height, int pooled_width) -> Tensor",
        embervision::roi_pool);
  m.backward("roi_pool", [](const ember::BackwardArgs& b) { return embervision::pool_grad(b, false); });
  m.def("ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, int pooled_height, int pooled_width) -> Tensor",
        embervision::ps_roi_pool);
  m.backward("ps_roi_pool", [](const ember::BackwardArgs& b) { return embervision::pool_grad(b, true); });
}
