// The Python bindings of autograd: tensor attributes and hooks (autograd_tensor.cpp), graph nodes as
// Python objects (autograd_node.cpp), and the module functions: backward, modes, custom Functions
// (autograd_module.cpp).
#pragma once
#include <Python.h>

#include <memory>
#include <vector>

#include "autograd/node.h"

namespace ember::py {

PyObject* wrap_node(const std::shared_ptr<autograd::Node>& node);  // None for null
bool init_node_type(PyObject* module);
autograd::GradHook tensor_hook(PyObject* fn);
// Holds the GIL for a scope (hooks and custom Functions may run where it is not held).
struct GilGuard {
  PyGILState_STATE state = PyGILState_Ensure();
  ~GilGuard() { PyGILState_Release(state); }
};
// Owns one reference (released at scope end; the GIL must be held then).
struct PyRef {
  PyObject* p;
  ~PyRef() { Py_XDECREF(p); }
};

// A sequence of Tensors/None returned by Python code as n gradients (TypeError/RuntimeError otherwise).
autograd::variable_list grads_from_python(PyObject* r, size_t n, const char* what);
// A strong reference to a Python callable that hooks can share; released under the GIL.
std::shared_ptr<PyObject> hold_callable(PyObject* fn);
void add_autograd_getset(std::vector<PyGetSetDef>& v);
void add_autograd_methods(std::vector<PyMethodDef>& v);
void add_autograd_functions(std::vector<PyMethodDef>& v);
void add_forward_ad_functions(std::vector<PyMethodDef>& v);

}  // namespace ember::py
