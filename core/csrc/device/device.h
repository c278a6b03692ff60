// Device: where a tensor's data lives. "meta" tensors carry shapes and dtypes but no data.
#pragma once
#include <cstdint>
#include <string>

#include "base/error.h"

namespace ember {

enum class DeviceType : int8_t { CPU, Meta, CUDA };

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: the current one

  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_meta() const { return type == DeviceType::Meta; }
  std::string str() const;                    // "cpu", "cuda:0"
  static Device parse(const std::string& s);  // raises ValueError on anything else
};

inline const char* device_type_name(DeviceType t) {
  return t == DeviceType::CPU ? "cpu" : t == DeviceType::Meta ? "meta" : "cuda";
}

}  // namespace ember
