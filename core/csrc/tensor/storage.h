// Storage: a reference-counted block of bytes on a device, freed through its owner's deleter
// (the caching allocator, or a foreign owner such as a NumPy array or a DLPack capsule).
#pragma once
#include <atomic>
#include <cstdint>

#include "base/intrusive_ptr.h"
#include "device/allocator.h"
#include "device/device.h"

namespace ember {

struct StorageImpl : RefCounted {
  using Deleter = void (*)(void* ctx, void* data, size_t capacity);

  void* data = nullptr;
  int64_t nbytes = 0;
  size_t capacity = 0;
  Device device;
  Deleter deleter = nullptr;
  void* ctx = nullptr;
  bool resizable = true;             // false for memory we do not own
  std::atomic<uint32_t> version{0};  // bumped by in-place writes; autograd checks it

  ~StorageImpl() override {
    if (deleter) deleter(ctx, data, capacity);
  }
};
using Storage = IntrusivePtr<StorageImpl>;

// Allocates `nbytes` on `device` (no memory for meta).
Storage new_storage(int64_t nbytes, Device device);
// Wraps memory owned elsewhere; `deleter(ctx, data, 0)` runs when the last tensor lets go.
Storage foreign_storage(void* data, int64_t nbytes, Device device, StorageImpl::Deleter deleter, void* ctx);

}  // namespace ember
