// The autograd face of TensorBase: requires_grad, grad, grad_fn, is_leaf, detach, retain_grad and
// hooks; Python callables become C++ hooks that hold the GIL while they run.
#include <Python.h>

#include "autograd/formulas.h"
#include "python/arg_parser.h"
#include "python/autograd_python.h"
#include "python/binding_util.h"
#include "python/objects.h"
#include "python/py_errors.h"
#include "python/torch_function.h"

namespace ember::py {

using namespace ember::autograd;

namespace {

const Tensor& T(PyObject* self) { return unwrap(self); }

PyObject* get_requires_grad(PyObject* self, void*) { return PyBool_FromLong(requires_grad(T(self))); }
int set_requires_grad_attr(PyObject* self, PyObject* v, void*) {
  EMBER_PY_BEGIN
  EMBER_CHECK(v && PyBool_Check(v), Type, "requires_grad must be a bool");
  set_requires_grad(T(self), v == Py_True);
  return 0;
  EMBER_PY_END(-1)
}

PyObject* get_grad(PyObject* self, void*) {
  AutogradMeta* m = meta(T(self));
  if (!m || !m->grad.defined()) Py_RETURN_NONE;
  return wrap(m->grad);
}
int set_grad(PyObject* self, PyObject* v, void*) {
  EMBER_PY_BEGIN
  const Tensor& t = T(self);
  if (!v || v == Py_None) {
    if (AutogradMeta* m = meta(t)) m->grad = Tensor();
    return 0;
  }
  EMBER_CHECK(is_tensor(v), Type, "assigned grad expected to be a Tensor or None but got grad of type ",
              Py_TYPE(v)->tp_name);
  const Tensor& g = unwrap(v);
  // PyTorch's checks and wording, in its order (ember has no grad_dtype: the grad takes the tensor's dtype).
  EMBER_CHECK(!g.is_same(t), Runtime, "can't assign Variable as its own grad");
  EMBER_CHECK(g.dtype() == t.dtype(), Runtime, "attempting to assign a gradient with dtype '", dtype_name(g.dtype()),
              "' to a tensor with dtype '", dtype_name(t.dtype()), "'. The gradient must match the tensor's dtype");
  EMBER_CHECK(g.device() == t.device(), Runtime, "attempting to assign a gradient with device type '", g.device().str(),
              "' to a tensor with device type '", t.device().str(),
              "'. Please ensure that the gradient and the tensor are on the same device");
  EMBER_CHECK(g.sizes() == t.sizes(), Runtime, "attempting to assign a gradient of size '", g.sizes(),
              "' to a tensor of size '", t.sizes(),
              "'. Please ensure that the gradient and the tensor are the same size");
  materialize_meta(t).grad = g;
  return 0;
  EMBER_PY_END(-1)
}

PyObject* get_grad_fn(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return wrap_node(grad_fn(T(self)));
  EMBER_PY_END(nullptr)
}
PyObject* get_is_leaf(PyObject* self, void*) { return PyBool_FromLong(is_leaf(T(self))); }
PyObject* get_retains_grad(PyObject* self, void*) {
  AutogradMeta* m = meta(T(self));
  return PyBool_FromLong(m && m->retains_grad);
}
PyObject* get_output_nr(PyObject* self, void*) {
  AutogradMeta* m = meta(T(self));
  return PyLong_FromLong(m ? m->output_nr : 0);
}
PyObject* get_base(PyObject* self, void*) {
  AutogradMeta* m = meta(T(self));
  if (!m || !m->base.defined()) Py_RETURN_NONE;
  return wrap(m->base);
}
PyObject* get_data(PyObject* self, void*) { return wrap(alias(T(self))); }
// t.data = other: t now holds other's data (storage, shape, dtype), keeping its own autograd state.
int set_data(PyObject* self, PyObject* value, void*) {
  EMBER_PY_BEGIN
  EMBER_CHECK(value != nullptr, Type, "can't delete the data of a tensor");
  EMBER_CHECK(is_tensor(value), Type, "data must be a Tensor, got ", Py_TYPE(value)->tp_name);
  TensorImpl* dst = T(self).impl();
  const TensorImpl* src = unwrap(value).impl();
  AutogradMeta* m = meta(T(self));
  EMBER_CHECK(!m || !m->grad.defined() || (m->grad.sizes() == src->sizes && m->grad.dtype() == src->dtype), Runtime,
              "data set to a tensor that requires gradients must match the shape and dtype of its .grad (",
              dtype_name(src->dtype), " ", src->sizes, ")");
  dst->storage = src->storage;
  dst->sizes = src->sizes;
  dst->strides = src->strides;
  dst->offset = src->offset;
  dst->numel = src->numel;
  dst->dtype = src->dtype;
  dst->contiguous = src->contiguous;
  return 0;
  EMBER_PY_END(-1)
}

PyObject* m_requires_grad_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("requires_grad_(bool requires_grad=True)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  set_requires_grad(T(self), r.boolean(0));
  return Py_NewRef(self);
  EMBER_PY_END(nullptr)
}

PyObject* m_detach(PyObject* self, PyObject*) {
  // a subclass keeps its class through detach (PyTorch's), by __torch_function__
  if (!torch_function_plain(self) && torch_function_slow(self))
    return torch_function_dispatch("detach", "", true, self, nullptr, 0, nullptr);
  EMBER_PY_BEGIN
  Tensor d = alias(T(self));
  return wrap(d);
  EMBER_PY_END(nullptr)
}

PyObject* m_detach_(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  const Tensor& t = T(self);
  if (AutogradMeta* m = meta(t)) {
    EMBER_CHECK(!m->base.defined() || !requires_grad(t), Runtime, "Can't detach views in-place. Use detach() instead.");
    m->grad_fn = nullptr;
    m->requires_grad = false;
    m->output_nr = 0;
  }
  return Py_NewRef(self);
  EMBER_PY_END(nullptr)
}

PyObject* m_retain_grad(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  const Tensor& t = T(self);
  EMBER_CHECK(requires_grad(t), Runtime, "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf(t)) Py_RETURN_NONE;  // leaves keep their grad anyway
  AutogradMeta& m = materialize_meta(t);
  if (m.retains_grad) Py_RETURN_NONE;
  m.retains_grad = true;
  grad_fn(t)->retained.push_back({m.output_nr, t.impl()});
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}

PyObject* m_is_inference(PyObject* self, PyObject*) { return PyBool_FromLong(T(self).impl()->inference); }

// register_hook(fn) -> hook id; fn(grad) may return a replacement gradient.
PyObject* m_register_hook(PyObject* self, PyObject* fn) {
  EMBER_PY_BEGIN
  const Tensor& t = T(self);
  EMBER_CHECK(requires_grad(t), Runtime, "cannot register a hook on a tensor that doesn't require gradient");
  EMBER_CHECK(PyCallable_Check(fn), Type, "hook must be callable");
  GradHook hook = tensor_hook(fn);
  int id = next_hook_id();
  if (is_leaf(t)) {
    materialize_meta(t).leaf_hooks.push_back({id, hook});
  } else {
    grad_fn(t)->tensor_hooks.push_back({id, meta(t)->output_nr, hook});
  }
  return PyLong_FromLong(id);
  EMBER_PY_END(nullptr)
}

PyObject* m_remove_hook(PyObject* self, PyObject* arg) {
  EMBER_PY_BEGIN
  int id = int(PyLong_AsLong(arg));
  const Tensor& t = T(self);
  if (AutogradMeta* m = meta(t)) {
    auto& lh = m->leaf_hooks;
    for (size_t i = 0; i < lh.size(); i++)
      if (lh[i].first == id) lh.erase(lh.begin() + i--);
    auto& ph = m->post_accumulate_hooks;
    for (size_t i = 0; i < ph.size(); i++)
      if (ph[i].first == id) ph.erase(ph.begin() + i--);
    if (auto fn = grad_fn(t)) {
      auto& th = fn->tensor_hooks;
      for (size_t i = 0; i < th.size(); i++)
        if (th[i].id == id) th.erase(th.begin() + i--);
    }
  }
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}

PyObject* m_register_post_accumulate_grad_hook(PyObject* self, PyObject* fn) {
  EMBER_PY_BEGIN
  const Tensor& t = T(self);
  EMBER_CHECK(requires_grad(t) && is_leaf(t), Runtime,
              "post accumulate grad hooks cannot be registered on non-leaf tensors");
  EMBER_CHECK(PyCallable_Check(fn), Type, "hook must be callable");
  auto holder = hold_callable(fn);
  int id = next_hook_id();
  materialize_meta(t).post_accumulate_hooks.push_back({id, [holder](const Tensor& v) {
                                                         GilGuard gil;
                                                         PyRef arg{wrap(v)};
                                                         PyRef r{PyObject_CallOneArg(holder.get(), arg.p)};
                                                         if (!r.p) throw PythonError();
                                                       }});
  return PyLong_FromLong(id);
  EMBER_PY_END(nullptr)
}

}  // namespace

std::shared_ptr<PyObject> hold_callable(PyObject* fn) {
  Py_INCREF(fn);
  return std::shared_ptr<PyObject>(fn, [](PyObject* o) {
    GilGuard gil;
    Py_DECREF(o);
  });
}

GradHook tensor_hook(PyObject* fn) {
  auto holder = hold_callable(fn);
  return [holder](const Tensor& g) -> Tensor {
    GilGuard gil;
    PyRef arg{wrap(g)};
    PyRef r{PyObject_CallOneArg(holder.get(), arg.p)};
    if (!r.p) throw PythonError();
    if (r.p == Py_None) return Tensor();
    EMBER_CHECK(is_tensor(r.p), Type, "a tensor hook must return a Tensor or None, got ", Py_TYPE(r.p)->tp_name);
    Tensor out = unwrap(r.p);
    EMBER_CHECK(out.sizes() == g.sizes(), Runtime, "hook returned a gradient of shape ", out.sizes(),
                " for a tensor of shape ", g.sizes());
    return out;
  };
}

void add_autograd_getset(std::vector<PyGetSetDef>& v) {
  v.push_back({"requires_grad", get_requires_grad, set_requires_grad_attr, nullptr, nullptr});
  v.push_back({"grad", get_grad, set_grad, nullptr, nullptr});
  v.push_back({"grad_fn", get_grad_fn, nullptr, nullptr, nullptr});
  v.push_back({"is_leaf", get_is_leaf, nullptr, nullptr, nullptr});
  v.push_back({"retains_grad", get_retains_grad, nullptr, nullptr, nullptr});
  v.push_back({"output_nr", get_output_nr, nullptr, nullptr, nullptr});
  v.push_back({"_base", get_base, nullptr, nullptr, nullptr});
  v.push_back({"data", get_data, set_data, nullptr, nullptr});
}

void add_autograd_methods(std::vector<PyMethodDef>& v) {
  v.push_back({"requires_grad_", FASTCALL(m_requires_grad_), nullptr});
  v.push_back({"detach", m_detach, METH_NOARGS, nullptr});
  v.push_back({"detach_", m_detach_, METH_NOARGS, nullptr});
  v.push_back({"retain_grad", m_retain_grad, METH_NOARGS, nullptr});
  v.push_back({"is_inference", m_is_inference, METH_NOARGS, nullptr});
  v.push_back({"_register_hook", m_register_hook, METH_O, nullptr});
  v.push_back({"_remove_hook", m_remove_hook, METH_O, nullptr});
  v.push_back({"_register_post_accumulate_grad_hook", m_register_post_accumulate_grad_hook, METH_O, nullptr});
}

}  // namespace ember::py
