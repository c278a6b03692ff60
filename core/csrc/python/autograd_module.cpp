// Module functions of autograd: _run_backward (the engine from Python), the grad / inference /
// anomaly modes, and _record_function, which makes a Python autograd.Function call a graph node.
#include <Python.h>

#include "autograd/engine.h"
#include "autograd/formulas.h"
#include "python/arg_parser.h"
#include "python/autograd_python.h"
#include "python/binding_util.h"
#include "python/objects.h"
#include "python/py_errors.h"

namespace ember::py {

using namespace ember::autograd;

namespace {

std::vector<Tensor> tensors_of(PyObject* seq_in, const char* what) {
  std::vector<Tensor> out;
  PyObject* seq = PySequence_Fast(seq_in, what);
  if (!seq) throw PythonError();
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
    PyObject* x = PySequence_Fast_GET_ITEM(seq, i);
    if (x == Py_None) {
      out.push_back(Tensor());
      continue;
    }
    if (!is_tensor(x)) {
      Py_DECREF(seq);
      EMBER_FAIL(Type, what, ": expected a Tensor or None, got ", Py_TYPE(x)->tp_name);
    }
    out.push_back(unwrap(x));
  }
  Py_DECREF(seq);
  return out;
}

// _run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs, allow_unused, accumulate_grad)
PyObject* fn_run_backward(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p(
      "_run_backward(object tensors, object grad_tensors, bool keep_graph, bool create_graph, "
      "object inputs, bool allow_unused, bool accumulate_grad)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  std::vector<Tensor> roots = tensors_of(r.object(0), "backward tensors");
  std::vector<Tensor> grads = tensors_of(r.object(1), "grad_tensors");
  std::vector<Tensor> inputs = tensors_of(r.object(4), "inputs");
  EMBER_CHECK(roots.size() == grads.size(), Runtime, "got ", grads.size(), " gradients for ", roots.size(), " tensors");
  std::vector<Edge> edges;
  for (size_t i = 0; i < roots.size(); i++) {
    const Tensor& t = roots[i];
    EMBER_CHECK(requires_grad(t), Runtime, "element ", i,
                " of tensors does not require grad and does not have a grad_fn");
    edges.push_back(gradient_edge(t));
    if (!grads[i].defined()) {
      EMBER_CHECK(t.numel() == 1, Runtime, "grad can be implicitly created only for scalar outputs");
      EMBER_CHECK(is_floating(t.dtype()) || is_complex(t.dtype()), Runtime,
                  "grad can be implicitly created only for real scalar outputs but got ", dtype_name(t.dtype()));
      Tensor one = empty(t.sizes(), t.dtype(), t.device());
      fill_(one, Scalar(int64_t(1)));
      grads[i] = one;
    } else {
      EMBER_CHECK(grads[i].sizes() == t.sizes(), Runtime, "Mismatch in shape: grad_output[", i, "] has a shape of ",
                  grads[i].sizes(), " and output[", i, "] has a shape of ", t.sizes(), ".");
    }
  }
  BackwardOptions opt;
  opt.keep_graph = r.boolean(2);
  opt.create_graph = r.boolean(3);
  opt.accumulate_grad = r.boolean(6);
  bool allow_unused = r.boolean(5);
  for (size_t i = 0; i < inputs.size(); i++) {
    const Tensor& t = inputs[i];
    EMBER_CHECK(t.defined(), Runtime, "inputs[", i, "] is None; expected a Tensor");
    EMBER_CHECK(requires_grad(t), Runtime, "One of the differentiated Tensors does not require grad");
    opt.capture.push_back(gradient_edge(t));
  }
  variable_list res = run_backward(edges, grads, opt);
  if (!opt.accumulate_grad) {
    for (size_t i = 0; i < res.size(); i++)
      EMBER_CHECK(res[i].defined() || allow_unused, Runtime,
                  "One of the differentiated Tensors appears to not have been used in the graph. Set "
                  "allow_unused=True if this is the desired behavior.");
  }
  return wrap_list(res, true);
  EMBER_PY_END(nullptr)
}

PyObject* fn_is_grad_enabled(PyObject*, PyObject*) { return PyBool_FromLong(GradMode::is_enabled()); }
PyObject* fn_set_grad_enabled(PyObject*, PyObject* on) {
  GradMode::set_enabled(PyObject_IsTrue(on));
  Py_RETURN_NONE;
}
PyObject* fn_is_inference_mode_enabled(PyObject*, PyObject*) { return PyBool_FromLong(InferenceMode::is_enabled()); }
PyObject* fn_set_inference_mode(PyObject*, PyObject* on) {
  InferenceMode::set_enabled(PyObject_IsTrue(on));
  Py_RETURN_NONE;
}
PyObject* fn_is_anomaly_enabled(PyObject*, PyObject*) { return PyBool_FromLong(AnomalyMode::is_enabled()); }
PyObject* fn_is_anomaly_check_nan_enabled(PyObject*, PyObject*) { return PyBool_FromLong(AnomalyMode::check_nan()); }

PyObject* anomaly_stack_fn = nullptr;  // ember.autograd.anomaly_mode._current_stack
PyObject* anomaly_warn_fn = nullptr;

std::string current_stack() {
  if (!anomaly_stack_fn) return "";
  PyObject* r = PyObject_CallNoArgs(anomaly_stack_fn);
  if (!r) {
    PyErr_Clear();
    return "";
  }
  const char* s = PyUnicode_AsUTF8(r);
  std::string out = s ? s : "";
  Py_DECREF(r);
  return out;
}

void warn(const std::string& msg) {
  if (!anomaly_warn_fn) return;
  PyObject* r = PyObject_CallFunction(anomaly_warn_fn, "s", msg.c_str());
  if (!r) PyErr_Clear();
  Py_XDECREF(r);
}

// _set_anomaly_enabled(on, check_nan, stack_fn, warn_fn)
PyObject* fn_set_anomaly_enabled(PyObject*, PyObject* args) {
  int on, check_nan;
  PyObject *stack_fn, *warn_fn;
  if (!PyArg_ParseTuple(args, "ppOO", &on, &check_nan, &stack_fn, &warn_fn)) return nullptr;
  Py_XSETREF(anomaly_stack_fn, Py_NewRef(stack_fn));
  Py_XSETREF(anomaly_warn_fn, Py_NewRef(warn_fn));
  anomaly_hooks().current_stack = &current_stack;
  anomaly_hooks().warn = &warn;
  AnomalyMode::set_enabled(on, check_nan);
  Py_RETURN_NONE;
}

// A custom autograd.Function in the graph: backward calls back into Python.
struct PyFunctionNode final : Node {
  std::shared_ptr<PyObject> backward;  // callable(*grads) -> a tuple, one gradient per tensor input
  std::shared_ptr<PyObject> release;   // callable() freeing the ctx's saved tensors
  std::string fn_name;
  std::string name() const override { return fn_name; }
  void release_variables() override {
    GilGuard gil;
    PyRef r{PyObject_CallNoArgs(release.get())};
    if (!r.p) PyErr_Clear();
  }
  variable_list apply(variable_list&& grads) override {
    GilGuard gil;
    PyRef args{wrap_list(grads, true)};
    PyRef r{PyObject_Call(backward.get(), args.p, nullptr)};
    if (!r.p) throw PythonError();
    return grads_from_python(r.p, next_edges.size(), (fn_name + ".backward").c_str());
  }
};

// _record_function(name, backward, release, inputs, outputs, dirty, non_differentiable, materialize)
// -> the outputs, each made an output of the new node (an input returned unchanged is aliased).
PyObject* fn_record_function(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  const char* name;
  PyObject *backward, *release, *inputs_o, *outputs_o, *dirty_o, *nondiff_o;
  int materialize;
  if (!PyArg_ParseTuple(args, "sOOOOOOp", &name, &backward, &release, &inputs_o, &outputs_o, &dirty_o, &nondiff_o,
                        &materialize))
    return nullptr;
  std::vector<Tensor> inputs = tensors_of(inputs_o, "inputs");
  std::vector<Tensor> outputs = tensors_of(outputs_o, "outputs");
  std::vector<Tensor> dirty = tensors_of(dirty_o, "dirty tensors");
  std::vector<Tensor> nondiff = tensors_of(nondiff_o, "non-differentiable tensors");
  auto in = [](const std::vector<Tensor>& v, const Tensor& t) {
    for (const Tensor& x : v)
      if (x.defined() && t.defined() && x.is_same(t)) return true;
    return false;
  };
  bool records = GradMode::is_enabled();
  bool any = false;
  for (const Tensor& t : inputs) any = any || (t.defined() && requires_grad(t));
  records = records && any;
  std::shared_ptr<PyFunctionNode> node;
  if (records) {
    node = std::make_shared<PyFunctionNode>();
    node->backward = hold_callable(backward);
    node->release = hold_callable(release);
    node->fn_name = name;
    node->materialize_grads = materialize;
    for (const Tensor& t : inputs) node->next_edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
    ad::record_anomaly(*node);
  }
  PyObject* result = PyTuple_New(outputs.size());
  for (size_t i = 0; i < outputs.size(); i++) {
    Tensor t = outputs[i];
    if (!t.defined()) {
      PyTuple_SET_ITEM(result, i, Py_NewRef(Py_None));
      continue;
    }
    const bool is_dirty = in(dirty, t), is_input = in(inputs, t);
    if (is_dirty) check_inplace(t, records);
    if (records && !in(nondiff, t) && (is_floating(t.dtype()) || is_complex(t.dtype()))) {
      if (is_dirty) {
        rebase_history(t, node);
      } else {
        if (is_input) t = alias(t);  // returned unchanged: a new tensor with this node as history
        set_history(t, node);
      }
    } else {
      if (is_input && !is_dirty && records) t = alias(t);
      if (records) node->add_input_metadata(t);  // no history, but backward still gets its slot
    }
    PyTuple_SET_ITEM(result, i, wrap(t));
  }
  return result;
  EMBER_PY_END(nullptr)
}

// _make_subclass(cls, data, requires_grad): an instance of cls (a Tensor subclass such as
// nn.Parameter) over data's storage: a leaf without history.
PyObject* fn_make_subclass(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject *cls, *data;
  int rg;
  if (!PyArg_ParseTuple(args, "OOp", &cls, &data, &rg)) return nullptr;
  EMBER_CHECK(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), TensorBaseType), Type,
              "_make_subclass: cls must be a subclass of Tensor");
  EMBER_CHECK(is_tensor(data), Type, "_make_subclass: data must be a Tensor, got ", Py_TYPE(data)->tp_name);
  Tensor t = alias(unwrap(data));
  if (rg) set_requires_grad(t, true);
  auto* type = reinterpret_cast<PyTypeObject*>(cls);
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) return nullptr;
  new (&reinterpret_cast<TensorObject*>(o)->tensor) Tensor(t);
  t.impl()->pyobj = o;
  return o;
  EMBER_PY_END(nullptr)
}

}  // namespace

void add_autograd_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_make_subclass", fn_make_subclass, METH_VARARGS, nullptr});
  v.push_back({"_run_backward", FASTCALL(fn_run_backward), nullptr});
  v.push_back({"is_grad_enabled", fn_is_grad_enabled, METH_NOARGS, nullptr});
  v.push_back({"_set_grad_enabled", fn_set_grad_enabled, METH_O, nullptr});
  v.push_back({"is_inference_mode_enabled", fn_is_inference_mode_enabled, METH_NOARGS, nullptr});
  v.push_back({"_set_inference_mode", fn_set_inference_mode, METH_O, nullptr});
  v.push_back({"is_anomaly_enabled", fn_is_anomaly_enabled, METH_NOARGS, nullptr});
  v.push_back({"is_anomaly_check_nan_enabled", fn_is_anomaly_check_nan_enabled, METH_NOARGS, nullptr});
  v.push_back({"_set_anomaly_enabled", fn_set_anomaly_enabled, METH_VARARGS, nullptr});
  v.push_back({"_record_function", fn_record_function, METH_VARARGS, nullptr});
}

}  // namespace ember::py
