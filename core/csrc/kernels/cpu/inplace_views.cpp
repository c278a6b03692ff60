// In-place view ops (core/ops/inplace_views.yaml): the tensor takes the geometry of the matching view
// of itself, computed (and checked) by the view op; and _resize_, Tensor.resize_'s kernel.
#include <algorithm>
#include <limits>

#include "base/determinism.h"
#include "generated/ops/_resize_.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/as_strided_.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/squeeze_.h"
#include "generated/ops/t.h"
#include "generated/ops/t_.h"
#include "generated/ops/transpose.h"
#include "generated/ops/transpose_.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/unsqueeze_.h"

namespace ember::ops {

namespace {

Tensor take_geometry(const Tensor& input, const Tensor& view) {
  TensorImpl* impl = input.impl();
  impl->sizes = view.sizes();
  impl->strides = view.strides();
  impl->offset = view.offset();
  impl->refresh();
  return input;
}

// Under deterministic mode, the bytes resize_ added to the storage get PyTorch's fill (NaN, the
// largest integer, True), as ember.empty's memory does.
void fill_new_memory(const Tensor& t, int64_t old_nbytes) {
  if (!fill_uninitialized_memory() || t.is_meta() || t.numel() == 0) return;
  const int64_t first_new = (old_nbytes + t.itemsize() - 1) / t.itemsize() - t.offset();
  if (first_new >= t.numel()) return;
  const Tensor flat = make_view(t, {t.numel()}, {1}, t.offset());
  const Tensor fresh =
      make_view(flat, {t.numel() - std::max<int64_t>(first_new, 0)}, {1}, t.offset() + std::max<int64_t>(first_new, 0));
  const ScalarType dt = t.dtype();
  if (is_floating(dt) || is_complex(dt))
    fill_(fresh, Scalar(std::numeric_limits<double>::quiet_NaN()));
  else if (dt == ScalarType::Bool)
    fill_(fresh, Scalar(true));
  else
    visit_dtype(dt, [&](auto z) {
      using T = decltype(z);
      if constexpr (std::is_integral_v<T>) fill_(fresh, Scalar(int64_t(std::numeric_limits<T>::max())));
    });
}

}  // namespace

Tensor t_(const Tensor& input) { return take_geometry(input, t(input)); }

Tensor transpose_(const Tensor& input, int64_t dim0, int64_t dim1) {
  return take_geometry(input, transpose(input, dim0, dim1));
}

Tensor squeeze_(const Tensor& input, const std::optional<DimVec>& dim) {
  return take_geometry(input, squeeze(input, dim));
}

Tensor unsqueeze_(const Tensor& input, int64_t dim) { return take_geometry(input, unsqueeze(input, dim)); }

Tensor as_strided_(const Tensor& input, const DimVec& size, const DimVec& stride,
                   std::optional<int64_t> storage_offset) {
  return take_geometry(input, as_strided(input, size, stride, storage_offset));
}

Tensor _resize_(const Tensor& input, const DimVec& size) {
  for (int64_t s : size)
    EMBER_CHECK(s >= 0, Runtime, "Trying to create tensor with negative dimension ", s, ": ", size);
  const int64_t old_nbytes = input.storage()->nbytes;
  resize_out(input, size);
  fill_new_memory(input, old_nbytes);
  return input;
}

}  // namespace ember::ops
