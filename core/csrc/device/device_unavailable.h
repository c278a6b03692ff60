// The error for a device this build cannot allocate on (cuda: ember has no CUDA build). It becomes
// an AssertionError in Python, as PyTorch's CPU-only build raises ("Torch not compiled with CUDA
// enabled"). Its own header so that only the allocation points and the error translation see it.
#pragma once
#include "device/device.h"

namespace ember {

struct DeviceUnavailableError : Error {
  explicit DeviceUnavailableError(const std::string& msg) : Error(ErrorKind::Runtime, msg) {}
};

// cpu and meta pass; anything else throws DeviceUnavailableError naming the device type.
inline void check_device_available(const Device& d) {
  if (d.is_cpu() || d.is_meta()) return;
  throw DeviceUnavailableError(d.type == DeviceType::CUDA ? "Ember not compiled with CUDA enabled"
                                                          : str_cat("Ember not compiled with ", d.str(), " enabled"));
}

}  // namespace ember
