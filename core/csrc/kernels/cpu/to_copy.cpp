// _to_copy: the op behind Tensor.to when a copy is needed.
#include "device/device_unavailable.h"
#include "generated/ops/_to_copy.h"
#include "iter/copy.h"

namespace ember::ops {

Tensor _to_copy(const Tensor& input, ScalarType dtype, std::optional<Device> device) {
  ScalarType dt = dtype == ScalarType::Undefined ? input.dtype() : dtype;
  Device dev = device ? *device : input.device();
  if (dev.type == DeviceType::CPU) dev.index = -1;
  check_device_available(dev);
  // exactly contiguous strides take the short way; others (an NC11 channels_last tensor is contiguous
  // too) keep their layout as preserve_format does
  const bool plain = input.strides() == contiguous_strides(input.sizes());
  Tensor out = plain ? empty(input.sizes(), dt, dev) : empty_like_layout(input);
  if (out.dtype() != dt || out.device() != dev) out = empty_strided(out.sizes(), out.strides(), dt, dev);
  if (input.is_meta() || dev.is_meta()) {
    EMBER_CHECK(!(input.is_meta() && !dev.is_meta()), NotImplemented,
                "Cannot copy out of meta tensor; no data! (a meta tensor has shapes and dtypes only)");
    return out;
  }
  copy_(out, input);
  return out;
}

}  // namespace ember::ops
