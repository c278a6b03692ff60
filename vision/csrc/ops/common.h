// Shared pieces of vision's detection ops: argument checks and the bilinear sampling rules of
// roi_align/ps_roi_align (torchvision's: clamped at the border, zero beyond one pixel outside).
#pragma once
#include <ember/extension.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace embervision {

using ember::Tensor;

inline Tensor zeros(const ember::DimVec& sizes, ember::ScalarType dtype) {
  Tensor t = ember::empty(sizes, dtype);
  std::memset(t.data(), 0, size_t(t.numel() * t.itemsize()));
  return t;
}

// The feature map: a float32/float64 NCHW CPU tensor.
inline void check_features(const Tensor& input, const char* op) {
  EMBER_CHECK(input.device().type == ember::DeviceType::CPU, Value, op, ": input must be a CPU tensor");
  EMBER_CHECK(input.dtype() == ember::ScalarType::Float32 || input.dtype() == ember::ScalarType::Float64, Type, op,
              ": input must be float32 or float64, got ", ember::dtype_name(input.dtype()));
  EMBER_CHECK(input.dim() == 4, Runtime, op, ": input must be a 4-d (N, C, H, W) tensor, got ", input.dim(), "-d");
}

// Boxes in the Tensor[K, 5] form (batch index, x1, y1, x2, y2), same dtype as the input, finite.
inline void check_rois(const Tensor& input, const Tensor& rois, const char* op) {
  EMBER_CHECK(rois.dtype() == input.dtype(), Type, op, ": rois must have the input's dtype (",
              ember::dtype_name(input.dtype()), "), got ", ember::dtype_name(rois.dtype()));
  EMBER_CHECK(rois.dim() == 2 && rois.size(1) == 5, Runtime, op, ": rois must be a Tensor[K, 5], got shape ",
              rois.sizes());
  const Tensor r = ember::contiguous(rois);
  const int64_t k = r.size(0), n = input.size(0);
  for (int64_t i = 0; i < k; i++) {
    for (int64_t j = 0; j < 5; j++) {
      const double v = r.dtype() == ember::ScalarType::Float32 ? double(r.data_as<float>()[i * 5 + j])
                                                               : r.data_as<double>()[i * 5 + j];
      EMBER_CHECK(std::isfinite(v), Value, op, ": box ", i, " has a non-finite coordinate (", v, ")");
      if (j == 0)
        EMBER_CHECK(v >= 0 && v < double(n) && v == std::floor(v), Index, op, ": box ", i, " has batch index ", v,
                    ", but the input has ", n, " images");
    }
  }
}

inline void check_pooled(int64_t ph, int64_t pw, const char* op) {
  EMBER_CHECK(ph > 0 && pw > 0, Value, op, ": output_size must be positive, got (", ph, ", ", pw, ")");
}

// One bilinear sample: four flat offsets into an H*W plane and their weights (all zero when outside).
template <class T>
struct Sample {
  int64_t at[4] = {0, 0, 0, 0};
  T w[4] = {0, 0, 0, 0};
};

template <class T>
inline Sample<T> roi_sample(int64_t height, int64_t width, T y, T x) {
  Sample<T> s;
  if (y < T(-1) || y > T(height) || x < T(-1) || x > T(width)) return s;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = int64_t(y), x_low = int64_t(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = T(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = T(x_low);
  } else {
    x_high = x_low + 1;
  }
  const T ly = y - T(y_low), lx = x - T(x_low), hy = 1 - ly, hx = 1 - lx;
  s.at[0] = y_low * width + x_low, s.at[1] = y_low * width + x_high;
  s.at[2] = y_high * width + x_low, s.at[3] = y_high * width + x_high;
  s.w[0] = hy * hx, s.w[1] = hy * lx, s.w[2] = ly * hx, s.w[3] = ly * lx;
  return s;
}

// The sampling grid of one RoI bin layout (roi_align and ps_roi_align share it).
template <class T>
struct RoiGrid {
  T start_h, start_w, bin_h, bin_w;
  int64_t grid_h, grid_w;
  T count;
  T y(int64_t ph, int64_t iy) const { return start_h + T(ph) * bin_h + (T(iy) + T(0.5)) * bin_h / T(grid_h); }
  T x(int64_t pw, int64_t ix) const { return start_w + T(pw) * bin_w + (T(ix) + T(0.5)) * bin_w / T(grid_w); }
};

// aligned shifts the box by half a pixel; unaligned boxes are at least one pixel (legacy behaviour).
template <class T>
inline RoiGrid<T> roi_grid(const T* roi, double scale, int64_t ph, int64_t pw, int64_t sampling_ratio, bool aligned) {
  const T offset = aligned ? T(0.5) : T(0);
  RoiGrid<T> g;
  g.start_w = roi[1] * T(scale) - offset;
  g.start_h = roi[2] * T(scale) - offset;
  T w = roi[3] * T(scale) - offset - g.start_w, h = roi[4] * T(scale) - offset - g.start_h;
  if (!aligned) {
    w = std::max(w, T(1));
    h = std::max(h, T(1));
  }
  g.bin_h = h / T(ph);
  g.bin_w = w / T(pw);
  g.grid_h = sampling_ratio > 0 ? sampling_ratio : int64_t(std::ceil(h / T(ph)));
  g.grid_w = sampling_ratio > 0 ? sampling_ratio : int64_t(std::ceil(w / T(pw)));
  g.count = T(std::max<int64_t>(g.grid_h * g.grid_w, 1));
  return g;
}

}  // namespace embervision
