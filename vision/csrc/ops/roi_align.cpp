// roi_align and ps_roi_align (position-sensitive: output channel c, bin (ph, pw) reads input channel
// (c * PH + ph) * PW + pw): each output bin averages bilinear samples on a regular grid inside it.
// Backward scatters the gradient to the same samples' four neighbours with the same weights.
#include "common.h"

namespace embervision {

namespace {

struct AlignArgs {
  double scale;
  int64_t ph, pw, sampling_ratio;
  bool aligned, position_sensitive;
};

// Visits every (roi, output channel, bin) with its input plane and calls f(out_index, plane, samples
// as (at, w/count) pairs); channels are split across threads (no two share an input plane).
template <class T, class F>
void for_each_bin(const Tensor& input, const Tensor& rois, const AlignArgs& a, int64_t channels_out, F f) {
  const int64_t channels = input.size(1), height = input.size(2), width = input.size(3), k = rois.size(0);
  const T* r = rois.data_as<T>();
  ember::parallel_for(channels_out, 1, [&](int64_t c_lo, int64_t c_hi) {
    for (int64_t n = 0; n < k; n++) {
      const T* roi = r + n * 5;
      const int64_t b = int64_t(roi[0]);
      const RoiGrid<T> g = roi_grid<T>(roi, a.scale, a.ph, a.pw, a.sampling_ratio, a.aligned);
      for (int64_t c = c_lo; c < c_hi; c++)
        for (int64_t ph = 0; ph < a.ph; ph++)
          for (int64_t pw = 0; pw < a.pw; pw++) {
            const int64_t c_in = a.position_sensitive ? (c * a.ph + ph) * a.pw + pw : c;
            const int64_t plane = (b * channels + c_in) * height * width;
            const int64_t out = ((n * channels_out + c) * a.ph + ph) * a.pw + pw;
            for (int64_t iy = 0; iy < g.grid_h; iy++)
              for (int64_t ix = 0; ix < g.grid_w; ix++)
                f(out, plane, roi_sample<T>(height, width, g.y(ph, iy), g.x(pw, ix)), g.count);
          }
    }
  });
}

int64_t channels_out_of(const Tensor& input, const AlignArgs& a, const char* op) {
  if (!a.position_sensitive) return input.size(1);
  EMBER_CHECK(input.size(1) % (a.ph * a.pw) == 0, Runtime, op, ": input channels (", input.size(1),
              ") must be a multiple of output_size[0] * output_size[1] (", a.ph * a.pw, ")");
  return input.size(1) / (a.ph * a.pw);
}

Tensor align_forward(const Tensor& input, const Tensor& rois, const AlignArgs& a, const char* op) {
  check_features(input, op);
  check_rois(input, rois, op);
  check_pooled(a.ph, a.pw, op);
  const int64_t c_out = channels_out_of(input, a, op);
  Tensor out = zeros({rois.size(0), c_out, a.ph, a.pw}, input.dtype());
  if (out.numel() == 0 || input.numel() == 0) return out;
  const Tensor x = ember::contiguous(input), r = ember::contiguous(rois);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* in = x.data_as<T>();
    T* o = out.data_as<T>();
    for_each_bin<T>(x, r, a, c_out, [&](int64_t at, int64_t plane, const Sample<T>& s, T count) {
      const T* p = in + plane;
      o[at] += (s.w[0] * p[s.at[0]] + s.w[1] * p[s.at[1]] + s.w[2] * p[s.at[2]] + s.w[3] * p[s.at[3]]) / count;
    });
  };
  if (input.dtype() == ember::ScalarType::Float32)
    run(float(0));
  else
    run(double(0));
  return out;
}

Tensor align_backward(const Tensor& grad, const Tensor& input, const Tensor& rois, const AlignArgs& a) {
  Tensor gin = zeros(input.sizes(), input.dtype());
  if (grad.numel() == 0 || input.numel() == 0) return gin;
  const Tensor g = ember::contiguous(grad), r = ember::contiguous(rois);
  const int64_t c_out = a.position_sensitive ? input.size(1) / (a.ph * a.pw) : input.size(1);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* go = g.data_as<T>();
    T* gi = gin.data_as<T>();
    for_each_bin<T>(input, r, a, c_out, [&](int64_t at, int64_t plane, const Sample<T>& s, T count) {
      const T v = go[at] / count;
      for (int q = 0; q < 4; q++) gi[plane + s.at[q]] += v * s.w[q];
    });
  };
  if (input.dtype() == ember::ScalarType::Float32)
    run(float(0));
  else
    run(double(0));
  return gin;
}

Tensor roi_align(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_height,
                 int64_t pooled_width, int64_t sampling_ratio, bool aligned) {
  return align_forward(input, rois, {spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned, false},
                       "roi_align");
}

Tensor ps_roi_align(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_height,
                    int64_t pooled_width, int64_t sampling_ratio) {
  return align_forward(input, rois, {spatial_scale, pooled_height, pooled_width, sampling_ratio, true, true},
                       "ps_roi_align");
}

}  // namespace

}  // namespace embervision

EMBER_LIBRARY(vision, m) {
  using embervision::AlignArgs;
  m.def(
      "roi_align(Tensor input, Tensor rois, float spatial_scale, int pooled_height, int pooled_width, "
      "int sampling_ratio, bool aligned) -> Tensor",
      embervision::roi_align);
  m.backward("roi_align", [](const ember::BackwardArgs& b) {
    const AlignArgs a{b.inputs[2].to_double(), b.inputs[3].to_int(),  b.inputs[4].to_int(),
                      b.inputs[5].to_int(),    b.inputs[6].to_bool(), false};
    return std::vector<ember::Tensor>{
        embervision::align_backward(b.grad_outputs[0], b.inputs[0].to_tensor(), b.inputs[1].to_tensor(), a),
        ember::Tensor()};
  });
  m.def(
      "ps_roi_align(Tensor input, Tensor rois, float spatial_scale, int pooled_height, int pooled_width, "
      "int sampling_ratio) -> Tensor",
      embervision::ps_roi_align);
  m.backward("ps_roi_align", [](const ember::BackwardArgs& b) {
    const AlignArgs a{
        b.inputs[2].to_double(), b.inputs[3].to_int(), b.inputs[4].to_int(), b.inputs[5].to_int(), true, true};
    return std::vector<ember::Tensor>{
        embervision::align_backward(b.grad_outputs[0], b.inputs[0].to_tensor(), b.inputs[1].to_tensor(), a),
        ember::Tensor()};
  });
}
