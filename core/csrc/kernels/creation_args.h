// Argument handling shared by the creation ops (creation*.cpp): target device and dtype, the
// requires_grad refusal, out= checks, and range checks for fill values.
#pragma once
#include <optional>

#include "device/default_device.h"
#include "device/device_unavailable.h"
#include "tensor/factory.h"
#include "types/promotion.h"

namespace ember {

// A factory's device: the one named, else `fallback` (a *_like op's input), else the default device.
inline Device creation_device(std::optional<Device> device, std::optional<Device> fallback = std::nullopt) {
  Device dev = device ? *device : fallback ? *fallback : default_device();
  if (dev.type == DeviceType::CPU) dev.index = -1;
  check_device_available(dev);
  return dev;
}

inline void check_requires_grad(bool requires_grad) {
  EMBER_CHECK(!requires_grad, NotImplemented,
              "requires_grad=True needs autograd, which this build of ember does not have yet");
}

inline ScalarType or_default_dtype(ScalarType dtype) {
  return dtype == ScalarType::Undefined ? default_dtype() : dtype;
}

// The dtype a fill value gives when none is named: bool, int64, or the default float/complex dtype.
inline ScalarType dtype_of_fill(const Scalar& v) {
  if (v.is_bool()) return ScalarType::Bool;
  if (v.is_int()) return ScalarType::Int64;
  return v.is_complex() ? default_complex_dtype() : default_dtype();
}

// Refuses values the dtype cannot hold rather than wrapping them (PyTorch's rule, types/scalar_fits.h).
void check_fits(const Scalar& v, ScalarType dtype);

// out= forms: a named dtype/device must be out's; out is then resized to `sizes`.
void prepare_out(const char* op, const Tensor& out, const DimVec& sizes, ScalarType dtype, std::optional<Device> device,
                 bool requires_grad);

}  // namespace ember
