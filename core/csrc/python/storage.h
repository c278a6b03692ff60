// Private storage access for ember.serialization (python/storage.cpp): a storage's identity and size,
// its raw bytes, and tensors of any dtype and layout over an existing storage.
#pragma once
#include <Python.h>

#include <vector>

namespace ember::py {

void add_storage_functions(std::vector<PyMethodDef>& functions);

}  // namespace ember::py
