// Turning C++ errors into Python exceptions at the boundary of every binding.
#pragma once
#include <Python.h>

#include "base/error.h"

namespace ember::py {

// Set by the Python error type that is already pending; carries no message of its own.
struct PythonError {};

// Raises the Python exception matching the in-flight C++ exception. Call inside catch(...).
void set_python_error();

// The exception ember raises for integer division by zero: both ZeroDivisionError and RuntimeError.
extern PyObject* ZeroDivisionRuntimeError;

}  // namespace ember::py

#define EMBER_PY_BEGIN try {
#define EMBER_PY_END(retval)       \
  }                                \
  catch (...) {                    \
    ::ember::py::set_python_error(); \
    return retval;                 \
  }
