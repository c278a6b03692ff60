// DLPack exchange: the unversioned v0.8 ABI (capsule "dltensor", which every framework reads) and the
// versioned 1.0 ABI ("dltensor_versioned", with flags: NumPy only writes through arrays imported this way).
#pragma once
#include <Python.h>

#include <cstdint>
#include <vector>

#include "tensor/tensor_impl.h"

namespace ember::py {

struct DLDevice {
  int32_t device_type;  // 1 CPU, 2 CUDA
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // 0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;  // kDLReadOnly | kDLIsCopied
  DLTensor dl_tensor;
};
constexpr uint64_t kDLReadOnly = 1, kDLIsCopied = 2;

// Calls obj.__dlpack__() and wraps the result without copying.
Tensor from_dlpack_object(PyObject* obj);
void add_dlpack_functions(std::vector<PyMethodDef>& functions);

}  // namespace ember::py
