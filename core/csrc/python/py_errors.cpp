// C++ to Python exception translation.
#include "python/py_errors.h"

#include <new>
#include <stdexcept>

#include "base/linalg_error.h"
#include "base/oom_error.h"
#include "device/device_unavailable.h"
#include "python/py_linalg_error.h"

namespace ember::py {

PyObject* ZeroDivisionRuntimeError = nullptr;
PyObject* OutOfMemoryErrorClass = nullptr;
PyObject* LinAlgErrorClass = nullptr;

namespace {

void set_out_of_memory(const char* op, const std::string& msg) {
  const std::string text = op ? str_cat(op, "(): ", msg) : msg;
  PyErr_SetString(OutOfMemoryErrorClass ? OutOfMemoryErrorClass : PyExc_MemoryError, text.c_str());
}

}  // namespace

void set_python_error(const char* op) {
  try {
    throw;
  } catch (const PythonError&) {
    // already set
  } catch (const OutOfMemoryError& e) {
    set_out_of_memory(op, e.what());
  } catch (const DeviceUnavailableError& e) {
    PyErr_SetString(PyExc_AssertionError, e.what());
  } catch (const LinAlgError& e) {
    PyErr_SetString(LinAlgErrorClass ? LinAlgErrorClass : PyExc_RuntimeError, e.what());
  } catch (const Error& e) {
    PyObject* type = PyExc_RuntimeError;
    switch (e.kind) {
      case ErrorKind::Value:
        type = PyExc_ValueError;
        break;
      case ErrorKind::Type:
        type = PyExc_TypeError;
        break;
      case ErrorKind::Index:
        type = PyExc_IndexError;
        break;
      case ErrorKind::NotImplemented:
        type = PyExc_NotImplementedError;
        break;
      case ErrorKind::ZeroDivision:
        type = ZeroDivisionRuntimeError ? ZeroDivisionRuntimeError : PyExc_ZeroDivisionError;
        break;
      default:
        break;
    }
    PyErr_SetString(type, e.what());
  } catch (const std::bad_alloc&) {  // a C++ container's own allocation
    set_out_of_memory(op, "not enough memory for a temporary buffer");
  } catch (const std::length_error&) {  // a container asked for more elements than it can hold
    set_out_of_memory(op, "not enough memory: a requested size is too large");
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

}  // namespace ember::py
