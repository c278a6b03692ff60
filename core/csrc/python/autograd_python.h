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
void add_autograd_getset(std::vector<PyGetSetDef>& v);
void add_autograd_methods(std::vector<PyMethodDef>& v);
void add_autograd_functions(std::vector<PyMethodDef>& v);

}  // namespace ember::py
