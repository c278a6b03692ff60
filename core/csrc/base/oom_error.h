// The error an allocation the machine cannot hold raises; it becomes ember.OutOfMemoryError (a
// RuntimeError, as PyTorch's, and a MemoryError). Its own header so that only the allocator and
// the Python error translation see it.
#pragma once
#include "base/error.h"

namespace ember {

struct OutOfMemoryError : Error {
  explicit OutOfMemoryError(const std::string& msg) : Error(ErrorKind::Runtime, msg) {}
};

}  // namespace ember
