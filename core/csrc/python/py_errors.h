// Turning C++ errors into Python exceptions at the boundary of every binding.
#pragma once
#include <Python.h>

#include "base/error.h"

namespace ember::py {

// Set by the Python error type that is already pending; carries no message of its own.
struct PythonError {};

// Raises the Python exception matching the in-flight C++ exception. Call inside catch(...).
// `op` (the public name of the op a binding called) is put before an out-of-memory message, which
// comes from the allocator and cannot know it.
void set_python_error(const char* op = nullptr);

// The exception ember raises for integer division by zero: both ZeroDivisionError and RuntimeError.
extern PyObject* ZeroDivisionRuntimeError;
// The exception for allocations the machine cannot hold: both RuntimeError (PyTorch's type) and MemoryError.
extern PyObject* OutOfMemoryErrorClass;

}  // namespace ember::py

#define EMBER_PY_BEGIN try {
#define EMBER_PY_END(retval)         \
  }                                  \
  catch (...) {                      \
    ::ember::py::set_python_error(); \
    return retval;                   \
  }
// The same, naming the op `name` in out-of-memory errors.
#define EMBER_PY_END_OP(retval, name)    \
  }                                      \
  catch (...) {                          \
    ::ember::py::set_python_error(name); \
    return retval;                       \
  }
