// Private storage access for ember.serialization and ember.storage (python/storage.cpp): a storage's
// identity and size, its raw bytes, tensors of any dtype and layout over an existing storage, set_,
// resizing, and the shared-memory and file mappings of tensor/mapped_storage.h.
#pragma once
#include <Python.h>

#include <vector>

namespace ember::py {

void add_storage_functions(std::vector<PyMethodDef>& functions);

}  // namespace ember::py
