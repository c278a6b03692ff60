// DLPack exchange (the unversioned v0.8 ABI, which NumPy and every framework read).
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

// Calls obj.__dlpack__() and wraps the result without copying.
Tensor from_dlpack_object(PyObject* obj);
void add_dlpack_functions(std::vector<PyMethodDef>& functions);

}  // namespace ember::py
