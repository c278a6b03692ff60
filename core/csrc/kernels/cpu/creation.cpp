// Creation ops made by filling: empty, zeros, ones, full, empty_strided, scalar_tensor and the
// *_like family, with their out= forms; plus the argument helpers of kernels/creation_args.h.
#include <algorithm>
#include <cmath>
#include <limits>

#include "base/determinism.h"
#include "generated/ops/empty.h"
#include "generated/ops/empty_like.h"
#include "generated/ops/empty_strided.h"
#include "generated/ops/full.h"
#include "generated/ops/full_like.h"
#include "generated/ops/ones.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/scalar_tensor.h"
#include "generated/ops/zeros.h"
#include "generated/ops/zeros_like.h"
#include "kernels/creation_args.h"
#include "kernels/layout.h"
#include "types/scalar_fits.h"

namespace ember {

void check_fits(const Scalar& v, ScalarType dtype) { check_scalar_fits(v, dtype); }

void prepare_out(const char* op, const Tensor& out, const DimVec& sizes, ScalarType dtype, std::optional<Device> device,
                 bool requires_grad) {
  check_requires_grad(requires_grad);
  EMBER_CHECK(dtype == ScalarType::Undefined || dtype == out.dtype(), Runtime, op, "(): dtype ", dtype_name(dtype),
              " does not match the dtype of the out= tensor (", dtype_name(out.dtype()), ")");
  if (device) {
    Device dev = creation_device(device);
    EMBER_CHECK(dev.type == out.device().type, Runtime, op, "(): device ", dev.str(),
                " does not match the device of the out= tensor (", out.device().str(), ")");
  }
  shape_numel(sizes);  // names a negative dimension before anything is resized
  resize_out(out, sizes);
  // Filling an expanded out= would write one element many times (arange would leave its last value).
  assert_no_internal_overlap(out, op);
}

namespace ops {

namespace {

Tensor filled(const DimVec& size, const Scalar& value, ScalarType dtype, std::optional<Device> device,
              bool requires_grad) {
  check_requires_grad(requires_grad);
  check_fits(value, dtype);
  Tensor t = ember::empty(size, dtype, creation_device(device));
  fill_(t, value);
  return t;
}

Tensor filled_out(const char* op, const Tensor& out, const DimVec& size, const Scalar& value, ScalarType dtype,
                  std::optional<Device> device, bool requires_grad) {
  prepare_out(op, out, size, dtype, device, requires_grad);
  check_fits(value, out.dtype());
  fill_(out, value);
  return out;
}

// input's sizes and dim order (dense), with dtype and device overridable: PyTorch's preserve_format.
Tensor like(const Tensor& input, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  check_requires_grad(requires_grad);
  ScalarType dt = dtype == ScalarType::Undefined ? input.dtype() : dtype;
  Device dev = creation_device(device, input.device());
  // PyTorch's preserve_format: exact strides when dense, size-1 dims' included (NC11 channels_last stays so)
  if (input.is_contiguous() && input.strides() == contiguous_strides(input.sizes()))
    return ember::empty(input.sizes(), dt, dev);
  const DimVec strides =
      is_non_overlapping_and_dense(input) ? input.strides() : dense_strides_like(input.sizes(), input.strides());
  return ember::empty_strided(input.sizes(), strides, dt, dev);
}

// Under deterministic mode (with fill_uninitialized_memory) "uninitialized" memory is filled as
// PyTorch fills it: NaN for floating and complex dtypes, the largest value for integers, True for bool.
Tensor uninitialized(Tensor t) {
  if (!fill_uninitialized_memory() || t.is_meta() || t.numel() == 0) return t;
  const ScalarType dt = t.dtype();
  if (is_floating(dt) || is_complex(dt))
    fill_(t, Scalar(std::numeric_limits<double>::quiet_NaN()));
  else if (dt == ScalarType::Bool)
    fill_(t, Scalar(true));
  else
    visit_dtype(dt, [&](auto z) {
      using T = decltype(z);
      if constexpr (std::is_integral_v<T>) fill_(t, Scalar(int64_t(std::numeric_limits<T>::max())));
    });
  return t;
}

}  // namespace

Tensor empty(const DimVec& size, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  check_requires_grad(requires_grad);
  return uninitialized(ember::empty(size, or_default_dtype(dtype), creation_device(device)));
}

Tensor empty_out(const Tensor& out, const DimVec& size, ScalarType dtype, std::optional<Device> device,
                 bool requires_grad) {
  prepare_out("empty", out, size, dtype, device, requires_grad);
  return out;
}

Tensor zeros(const DimVec& size, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  return filled(size, Scalar(int64_t(0)), or_default_dtype(dtype), device, requires_grad);
}

Tensor zeros_out(const Tensor& out, const DimVec& size, ScalarType dtype, std::optional<Device> device,
                 bool requires_grad) {
  return filled_out("zeros", out, size, Scalar(int64_t(0)), dtype, device, requires_grad);
}

Tensor ones(const DimVec& size, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  return filled(size, Scalar(int64_t(1)), or_default_dtype(dtype), device, requires_grad);
}

Tensor ones_out(const Tensor& out, const DimVec& size, ScalarType dtype, std::optional<Device> device,
                bool requires_grad) {
  return filled_out("ones", out, size, Scalar(int64_t(1)), dtype, device, requires_grad);
}

Tensor full(const DimVec& size, const Scalar& fill_value, ScalarType dtype, std::optional<Device> device,
            bool requires_grad) {
  ScalarType dt = dtype == ScalarType::Undefined ? dtype_of_fill(fill_value) : dtype;
  return filled(size, fill_value, dt, device, requires_grad);
}

Tensor full_out(const Tensor& out, const DimVec& size, const Scalar& fill_value, ScalarType dtype,
                std::optional<Device> device, bool requires_grad) {
  return filled_out("full", out, size, fill_value, dtype, device, requires_grad);
}

Tensor empty_strided(const DimVec& size, const DimVec& stride, ScalarType dtype, std::optional<Device> device,
                     bool requires_grad) {
  check_requires_grad(requires_grad);
  shape_numel(size);  // negative sizes are named before the stride checks
  return uninitialized(ember::empty_strided(size, stride, or_default_dtype(dtype), creation_device(device)));
}

Tensor scalar_tensor(const Scalar& s, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  ScalarType dt = dtype != ScalarType::Undefined ? dtype : s.is_complex() ? default_complex_dtype() : default_dtype();
  return filled({}, s, dt, device, requires_grad);
}

Tensor empty_like(const Tensor& input, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  return uninitialized(like(input, dtype, device, requires_grad));
}

Tensor zeros_like(const Tensor& input, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  Tensor t = like(input, dtype, device, requires_grad);
  fill_(t, Scalar(int64_t(0)));
  return t;
}

Tensor ones_like(const Tensor& input, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  Tensor t = like(input, dtype, device, requires_grad);
  fill_(t, Scalar(int64_t(1)));
  return t;
}

Tensor full_like(const Tensor& input, const Scalar& fill_value, ScalarType dtype, std::optional<Device> device,
                 bool requires_grad) {
  Tensor t = like(input, dtype, device, requires_grad);
  check_fits(fill_value, t.dtype());
  fill_(t, fill_value);
  return t;
}

}  // namespace ops
}  // namespace ember
