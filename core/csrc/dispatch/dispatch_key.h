// Dispatch keys: which kernel of an op-table entry runs for a call. Backends are picked from the
// devices of the tensor arguments (Meta before CUDA before CPU); Autograd wraps them (issue 4).
#pragma once
#include <cstdint>

namespace ember {

enum class DispatchKey : int8_t { CPU, CUDA, Meta, NumKeys };

inline const char* dispatch_key_name(DispatchKey k) {
  switch (k) {
    case DispatchKey::CPU:
      return "CPU";
    case DispatchKey::CUDA:
      return "CUDA";
    case DispatchKey::Meta:
      return "Meta";
    default:
      return "?";
  }
}

}  // namespace ember
