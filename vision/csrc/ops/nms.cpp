// nms: greedy non-maximum suppression. Boxes are taken in decreasing score order (stable, so equal
// scores keep their input order); each kept box drops every later box whose IoU with it exceeds the
// threshold. Returns the kept indices (int64) in decreasing score order.
#include <algorithm>
#include <numeric>
#include <vector>

#include "common.h"

namespace embervision {

namespace {

template <class T>
Tensor nms_kernel(const Tensor& boxes, const Tensor& scores, double iou_threshold) {
  const int64_t n = boxes.size(0);
  const T* b = boxes.data_as<T>();
  const T* s = scores.data_as<T>();
  for (int64_t i = 0; i < 4 * n; i++)
    EMBER_CHECK(std::isfinite(double(b[i])), Value, "nms: box ", i / 4, " has a non-finite coordinate (", b[i], ")");
  std::vector<int64_t> order(size_t(n), 0);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
  std::vector<T> area(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) area[i] = (b[4 * i + 2] - b[4 * i]) * (b[4 * i + 3] - b[4 * i + 1]);
  std::vector<char> dropped(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  for (int64_t oi = 0; oi < n; oi++) {
    const int64_t i = order[oi];
    if (dropped[i]) continue;
    keep.push_back(i);
    const T* bi = b + 4 * i;
    for (int64_t oj = oi + 1; oj < n; oj++) {
      const int64_t j = order[oj];
      if (dropped[j]) continue;
      const T* bj = b + 4 * j;
      const T w = std::max(T(0), std::min(bi[2], bj[2]) - std::max(bi[0], bj[0]));
      const T h = std::max(T(0), std::min(bi[3], bj[3]) - std::max(bi[1], bj[1]));
      const T inter = w * h;
      if (inter / (area[i] + area[j] - inter) > T(iou_threshold)) dropped[j] = 1;
    }
  }
  Tensor out = ember::empty({int64_t(keep.size())}, ember::ScalarType::Int64);
  std::copy(keep.begin(), keep.end(), out.data_as<int64_t>());
  return out;
}

Tensor nms(const Tensor& boxes, const Tensor& scores, double iou_threshold) {
  EMBER_CHECK(boxes.device().type == ember::DeviceType::CPU && scores.device().type == ember::DeviceType::CPU, Value,
              "nms: boxes and scores must be CPU tensors");
  EMBER_CHECK(boxes.dim() == 2, Runtime, "boxes should be a 2d tensor, got ", boxes.dim(), "D");
  EMBER_CHECK(boxes.size(1) == 4, Runtime, "boxes should have 4 elements in dimension 1, got ", boxes.size(1));
  EMBER_CHECK(scores.dim() == 1, Runtime, "scores should be a 1d tensor, got ", scores.dim(), "D");
  EMBER_CHECK(boxes.size(0) == scores.size(0), Runtime,
              "boxes and scores should have same number of elements in dimension 0, got ", boxes.size(0), " and ",
              scores.size(0));
  EMBER_CHECK(boxes.dtype() == scores.dtype(), Type, "nms: boxes (", ember::dtype_name(boxes.dtype()), ") and scores (",
              ember::dtype_name(scores.dtype()), ") must have the same dtype");
  EMBER_CHECK(boxes.dtype() == ember::ScalarType::Float32 || boxes.dtype() == ember::ScalarType::Float64, Type,
              "nms: boxes must be float32 or float64, got ", ember::dtype_name(boxes.dtype()));
  const Tensor b = ember::contiguous(boxes), s = ember::contiguous(scores);
  if (b.dtype() == ember::ScalarType::Float32) return nms_kernel<float>(b, s, iou_threshold);
  return nms_kernel<double>(b, s, iou_threshold);
}

}  // namespace

}  // namespace embervision

EMBER_LIBRARY(vision, m) { m.def("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor", embervision::nms); }
