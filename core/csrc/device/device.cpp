// Device names: parsing and printing "cpu", "meta", "cuda", "cuda:1".
#include "device/device.h"

#include <cstdlib>

namespace ember {

std::string Device::str() const {
  std::string s = device_type_name(type);
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

Device Device::parse(const std::string& s) {
  auto colon = s.find(':');
  std::string kind = s.substr(0, colon);
  Device d;
  if (kind == "cpu")
    d.type = DeviceType::CPU;
  else if (kind == "meta")
    d.type = DeviceType::Meta;
  else if (kind == "cuda")
    d.type = DeviceType::CUDA;
  else
    EMBER_FAIL(Runtime, "Expected one of cpu, cuda, meta device type at start of device string: ", s);
  if (colon != std::string::npos) {
    std::string idx = s.substr(colon + 1);
    char* end = nullptr;
    long v = std::strtol(idx.c_str(), &end, 10);
    EMBER_CHECK(!idx.empty() && *end == 0 && v >= 0 && v < 128, Runtime, "Invalid device string: '", s, "'");
    d.index = int8_t(v);
  }
  return d;
}

}  // namespace ember
