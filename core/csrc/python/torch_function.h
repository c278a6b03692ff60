// PyTorch's __torch_function__ protocol at the binding layer: a test that every argument is a plain
// Tensor, number, None or string (a few pointer compares: the usual case costs nothing measurable),
// else the call goes to the Python handler (ember.overrides), which calls the overriding types.
#pragma once
#include <Python.h>

#include <vector>

#include "python/objects.h"

namespace ember::py {

// Whether o (not a plain argument) asks for dispatch: a Tensor subclass or any object whose type
// defines __torch_function__ other than the disabled one; lists and tuples are looked into.
bool torch_function_slow(PyObject* o);

inline bool torch_function_plain(PyObject* o) {
  PyTypeObject* t = Py_TYPE(o);
  return t == TensorClass || t == &PyLong_Type || t == &PyFloat_Type || o == Py_None || t == &PyBool_Type ||
         t == DTypeType || t == &PyUnicode_Type || t == DeviceType;
}

// Whether a call with these arguments (self for methods, else nullptr) goes to __torch_function__.
inline bool torch_function_needed(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (self && !torch_function_plain(self) && torch_function_slow(self)) return true;
  Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  for (Py_ssize_t i = 0; i < n; ++i)
    if (!torch_function_plain(args[i]) && torch_function_slow(args[i])) return true;
  return false;
}

// Calls ember.overrides' handler with the public callable's name (ns: "", "linalg", "special", "fft",
// "nn.functional"; method: a Tensor method, self first) and the arguments as Python passed them.
PyObject* torch_function_dispatch(const char* name, const char* ns, bool method, PyObject* self, PyObject* const* args,
                                  Py_ssize_t nargs, PyObject* kwnames);

void add_torch_function_functions(std::vector<PyMethodDef>& v);

}  // namespace ember::py
