// Private bindings of the memory-format rules (tensor/memory_format.h) for ember/_memory_format.py.
#pragma once
#include <Python.h>

#include <vector>

namespace ember::py {

void add_memory_format_functions(std::vector<PyMethodDef>& functions);

}  // namespace ember::py
