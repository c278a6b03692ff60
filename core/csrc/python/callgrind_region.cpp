// _C._callgrind_region(fn): calls fn() inside a C function with a fixed, unmangled name, so that
// `valgrind --tool=callgrind --toggle-collect=ember_callgrind_region` counts the instructions of
// exactly that call (ember.utils.benchmark's collect_callgrind), without valgrind's headers.
#include <Python.h>

#include <vector>

#include "python/creation.h"

extern "C" __attribute__((noinline, visibility("default"))) PyObject* ember_callgrind_region(PyObject* fn) {
  PyObject* res = PyObject_CallNoArgs(fn);
  asm volatile("" ::: "memory");  // keep the call inside this frame (no tail call the toggle would miss)
  return res;
}

namespace ember::py {
namespace {
PyObject* fn_callgrind_region(PyObject*, PyObject* fn) {
  if (!PyCallable_Check(fn)) {
    PyErr_Format(PyExc_TypeError, "_callgrind_region expects a callable, got %s", Py_TYPE(fn)->tp_name);
    return nullptr;
  }
  return ember_callgrind_region(fn);
}
}  // namespace

void add_callgrind_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_callgrind_region", fn_callgrind_region, METH_O, nullptr});
}
}  // namespace ember::py
