// Module functions of forward-mode AD (ember.autograd.forward_ad): levels, dual tensors, and the
// switch custom Functions use to run their forward on primals alone.
#include <Python.h>

#include "autograd/formulas.h"
#include "python/arg_parser.h"
#include "python/autograd_python.h"
#include "python/binding_util.h"
#include "python/objects.h"
#include "python/py_errors.h"

namespace ember::py {

namespace forward = autograd::forward;

namespace {

PyObject* fn_enter_dual_level(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  return PyLong_FromLongLong(forward::enter_level());
  EMBER_PY_END(nullptr)
}

PyObject* fn_exit_dual_level(PyObject*, PyObject* level) {
  EMBER_PY_BEGIN
  forward::exit_level(PyLong_AsLongLong(level));
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}

PyObject* fn_current_dual_level(PyObject*, PyObject*) { return PyLong_FromLongLong(forward::current_level()); }

// _make_dual(tensor, tangent, level)
PyObject* fn_make_dual(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject *t, *tan;
  long long level;
  if (!PyArg_ParseTuple(args, "OOL", &t, &tan, &level)) return nullptr;
  EMBER_CHECK(is_tensor(t) && is_tensor(tan), Type, "make_dual: expected tensor and tangent to be Tensors, got ",
              Py_TYPE(t)->tp_name, " and ", Py_TYPE(tan)->tp_name);
  return wrap(forward::make_dual(unwrap(t), unwrap(tan), level));
  EMBER_PY_END(nullptr)
}

// _unpack_dual(tensor, level) -> (primal, tangent or None); the primal is a view of the tensor
// without the tangent (keeping its reverse-mode history).
PyObject* fn_unpack_dual(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject* t;
  long long level;
  if (!PyArg_ParseTuple(args, "OL", &t, &level)) return nullptr;
  EMBER_CHECK(is_tensor(t), Type, "unpack_dual: expected a Tensor, got ", Py_TYPE(t)->tp_name);
  const Tensor& x = unwrap(t);
  Tensor tangent = level == forward::current_level() ? forward::tangent(x) : Tensor();
  if (!tangent.defined()) return Py_BuildValue("(OO)", t, Py_None);
  Tensor primal;
  {
    forward::Suspend s;
    primal = autograd::requires_grad(x) && autograd::GradMode::is_enabled()
                 ? ad::as_strided(x, x.sizes(), x.strides(), x.offset())
                 : autograd::alias(x);
  }
  PyObject* p = wrap(primal);
  PyObject* tg = wrap(tangent);
  PyObject* r = PyTuple_Pack(2, p, tg);
  Py_DECREF(p);
  Py_DECREF(tg);
  return r;
  EMBER_PY_END(nullptr)
}

// _set_fw_tangent(tensor, tangent): a custom Function's jvp result on its output.
PyObject* fn_set_fw_tangent(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject *t, *tan;
  if (!PyArg_ParseTuple(args, "OO", &t, &tan)) return nullptr;
  const Tensor& x = unwrap(t);
  const Tensor& g = unwrap(tan);
  EMBER_CHECK(g.sizes() == x.sizes(), Runtime, "jvp returned a tangent of shape ", g.sizes(),
              " for an output of shape ", x.sizes());
  forward::set_tangent(x, g);
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}

// _suspend_forward_ad(on): ops run while suspended compute no tangents (nests).
PyObject* fn_suspend_forward_ad(PyObject*, PyObject* on) {
  const int flag = PyObject_IsTrue(on);
  if (flag < 0) return nullptr;  // its truth raised (a tensor of several values): a Python error, not SystemError
  if (flag)
    forward::suspend_begin();
  else
    forward::suspend_end();
  Py_RETURN_NONE;
}

}  // namespace

void add_forward_ad_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_enter_dual_level", fn_enter_dual_level, METH_NOARGS, nullptr});
  v.push_back({"_exit_dual_level", fn_exit_dual_level, METH_O, nullptr});
  v.push_back({"_current_dual_level", fn_current_dual_level, METH_NOARGS, nullptr});
  v.push_back({"_make_dual", fn_make_dual, METH_VARARGS, nullptr});
  v.push_back({"_unpack_dual", fn_unpack_dual, METH_VARARGS, nullptr});
  v.push_back({"_set_fw_tangent", fn_set_fw_tangent, METH_VARARGS, nullptr});
  v.push_back({"_suspend_forward_ad", fn_suspend_forward_ad, METH_O, nullptr});
}

}  // namespace ember::py
