// Tensors made from Python data: ember.tensor (nested sequences, numbers, buffers), from_numpy
// (zero-copy through the buffer protocol) and DLPack exchange.
#pragma once
#include <Python.h>

#include <vector>

#include "tensor/tensor_impl.h"

namespace ember::py {

void add_data_creation_functions(std::vector<PyMethodDef>& functions);
void add_tolist_functions(std::vector<PyMethodDef>& functions);     // python/tolist.cpp
void add_callgrind_functions(std::vector<PyMethodDef>& functions);  // python/callgrind_region.cpp
void add_profiler_functions(std::vector<PyMethodDef>& functions);   // python/profiler_module.cpp
// Zero-copy view of any object exporting a strided buffer (NumPy arrays, memoryviews, array.array).
// A read-only buffer raises, unless `readonly` is given: it then tells the caller, who must copy.
Tensor tensor_from_buffer(PyObject* obj, bool* readonly = nullptr);

}  // namespace ember::py
