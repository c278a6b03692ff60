// ember._C._Node: a graph node seen from Python (tensor.grad_fn): name(), next_functions, node hooks.
// Wrappers are made on demand and compare equal when they hold the same node.
#include <Python.h>

#include "autograd/node.h"
#include "python/autograd_python.h"
#include "python/binding_util.h"
#include "python/objects.h"
#include "python/py_errors.h"

namespace ember::py {

using autograd::Node;
using autograd::variable_list;

namespace {

struct NodeObject {
  PyObject_HEAD std::shared_ptr<Node> node;
};
PyTypeObject* NodeType = nullptr;

const std::shared_ptr<Node>& N(PyObject* self) { return reinterpret_cast<NodeObject*>(self)->node; }

void node_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  reinterpret_cast<NodeObject*>(self)->node.~shared_ptr<Node>();
  tp->tp_free(self);
  Py_DECREF(tp);
}

PyObject* node_name(PyObject* self, PyObject*) { return PyUnicode_FromString(N(self)->name().c_str()); }

PyObject* node_repr(PyObject* self) {
  return PyUnicode_FromFormat("<%s object at %p>", N(self)->name().c_str(), (void*)N(self).get());
}

PyObject* get_next_functions(PyObject* self, void*) {
  EMBER_PY_BEGIN
  const auto& edges = N(self)->next_edges;
  PyObject* t = PyTuple_New(edges.size());
  for (size_t i = 0; i < edges.size(); i++) {
    PyObject* pair = Py_BuildValue("(NI)", wrap_node(edges[i].fn), edges[i].input_nr);
    PyTuple_SET_ITEM(t, i, pair);
  }
  return t;
  EMBER_PY_END(nullptr)
}

}  // namespace

variable_list grads_from_python(PyObject* r, size_t n, const char* what) {
  PyObject* seq = PySequence_Fast(r, what);
  if (!seq) throw PythonError();
  variable_list out;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < len; i++) {
    PyObject* x = PySequence_Fast_GET_ITEM(seq, i);
    if (x != Py_None && !is_tensor(x)) {
      Py_DECREF(seq);
      EMBER_FAIL(Type, what, " must return Tensors or None, got ", Py_TYPE(x)->tp_name);
    }
    out.push_back(x == Py_None ? Tensor() : unwrap(x));
  }
  Py_DECREF(seq);
  EMBER_CHECK(out.size() == n, Runtime, what, " returned ", out.size(), " gradients, expected ", n);
  return out;
}

namespace {

// Calls hook(*make_args()) under the GIL; its result replaces the n gradients (None keeps them).
template <class MakeArgs>
variable_list call_node_hook(PyObject* hook, MakeArgs make_args, size_t n, const char* what) {
  GilGuard gil;
  PyRef args{make_args()};
  PyRef r{args.p ? PyObject_CallObject(hook, args.p) : nullptr};
  if (!r.p) throw PythonError();
  return r.p == Py_None ? variable_list() : grads_from_python(r.p, n, what);
}

// register_hook(fn(grad_inputs, grad_outputs)) -> id
PyObject* node_register_hook(PyObject* self, PyObject* fn) {
  EMBER_PY_BEGIN
  EMBER_CHECK(PyCallable_Check(fn), Type, "hook must be callable");
  auto h = hold_callable(fn);
  int id = autograd::next_hook_id();
  N(self)->post_hooks.push_back(
      {id, [h](const variable_list& gin, const variable_list& gout) {
         return call_node_hook(
             h.get(), [&] { return Py_BuildValue("(NN)", wrap_list(gin, true), wrap_list(gout, true)); }, gin.size(),
             "a node hook");
       }});
  return PyLong_FromLong(id);
  EMBER_PY_END(nullptr)
}

// register_prehook(fn(grad_outputs)) -> id
PyObject* node_register_prehook(PyObject* self, PyObject* fn) {
  EMBER_PY_BEGIN
  EMBER_CHECK(PyCallable_Check(fn), Type, "hook must be callable");
  auto h = hold_callable(fn);
  int id = autograd::next_hook_id();
  N(self)->pre_hooks.push_back({id, [h](const variable_list& gout) {
                                  return call_node_hook(
                                      h.get(), [&] { return Py_BuildValue("(N)", wrap_list(gout, true)); }, gout.size(),
                                      "a node pre-hook");
                                }});
  return PyLong_FromLong(id);
  EMBER_PY_END(nullptr)
}

PyObject* node_remove_hook(PyObject* self, PyObject* arg) {
  int id = int(PyLong_AsLong(arg));
  auto& post = N(self)->post_hooks;
  for (size_t i = 0; i < post.size(); i++)
    if (post[i].first == id) post.erase(post.begin() + i--);
  auto& pre = N(self)->pre_hooks;
  for (size_t i = 0; i < pre.size(); i++)
    if (pre[i].first == id) pre.erase(pre.begin() + i--);
  Py_RETURN_NONE;
}

PyObject* node_richcompare(PyObject* a, PyObject* b, int op) {
  if (Py_TYPE(b) != NodeType || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bool same = N(a).get() == N(b).get();
  return PyBool_FromLong(op == Py_EQ ? same : !same);
}

Py_hash_t node_hash(PyObject* self) { return Py_hash_t(reinterpret_cast<uintptr_t>(N(self).get()) >> 4); }

PyMethodDef node_methods[] = {{"name", node_name, METH_NOARGS, nullptr},
                              {"register_hook", node_register_hook, METH_O, nullptr},
                              {"register_prehook", node_register_prehook, METH_O, nullptr},
                              {"_remove_hook", node_remove_hook, METH_O, nullptr},
                              {nullptr}};

PyGetSetDef node_getset[] = {{"next_functions", get_next_functions, nullptr, nullptr, nullptr}, {nullptr}};

}  // namespace

PyObject* wrap_node(const std::shared_ptr<Node>& node) {
  if (!node) Py_RETURN_NONE;
  PyObject* o = NodeType->tp_alloc(NodeType, 0);
  if (!o) throw PythonError();
  new (&reinterpret_cast<NodeObject*>(o)->node) std::shared_ptr<Node>(node);
  return o;
}

bool init_node_type(PyObject* m) {
  static PyType_Slot slots[] = {{Py_tp_dealloc, (void*)node_dealloc},
                                {Py_tp_methods, node_methods},
                                {Py_tp_getset, node_getset},
                                {Py_tp_repr, (void*)node_repr},
                                {Py_tp_richcompare, (void*)node_richcompare},
                                {Py_tp_hash, (void*)node_hash},
                                {0, nullptr}};
  static PyType_Spec spec = {"ember._C._Node", sizeof(NodeObject), 0, Py_TPFLAGS_DEFAULT, slots};
  NodeType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  return NodeType && PyModule_AddObjectRef(m, "_Node", (PyObject*)NodeType) >= 0;
}

}  // namespace ember::py
