// ember._C.TensorBase: the C type under ember.Tensor. Owns one Tensor handle; the TensorImpl points
// back at its Python object so an op returning an existing tensor returns the same object.
#include <Python.h>
#include <structmember.h>

#include "python/arg_parser.h"
#include "python/autograd_python.h"
#include "python/binding_util.h"
#include "python/objects.h"
#include "python/py_errors.h"
#include "python/tensor_methods.h"

namespace ember::py {

PyTypeObject* TensorBaseType = nullptr;
PyTypeObject* TensorClass = nullptr;
PyObject* SizeClass = nullptr;  // ember.Size, registered from Python

namespace {

int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<TensorObject*>(self)->dict);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int tensor_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<TensorObject*>(self)->dict);
  return 0;
}

void tensor_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  auto* o = reinterpret_cast<TensorObject*>(self);
  // Unlinked first: weakref callbacks and __dict__ contents run Python code, which must not find
  // (and resurrect) this dying object through wrap().
  if (o->tensor.defined() && o->tensor.impl()->pyobj == self) o->tensor.impl()->pyobj = nullptr;
  if (o->weaklist) PyObject_ClearWeakRefs(self);
  Py_CLEAR(o->dict);
  o->tensor.~Tensor();
  tp->tp_free(self);
  Py_DECREF(tp);
}

PyObject* tensor_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyErr_Format(PyExc_TypeError, "use ember.tensor(data), ember.empty(size) or another factory to make a %s",
               type->tp_name);
  return nullptr;
}

PyObject* size_tuple(const DimVec& v) {
  PyObject* t = PyTuple_New(v.size());
  if (!t) return nullptr;
  for (int64_t i = 0; i < v.size(); i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
  if (!SizeClass) return t;
  // tuple's own constructor for the subclass: these are ints already, so Size.__new__'s checks
  // (and the cost of a Python call on every .shape) are skipped.
  PyObject* args = PyTuple_Pack(1, t);
  Py_DECREF(t);
  if (!args) return nullptr;
  PyObject* s = PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(SizeClass), args, nullptr);
  Py_DECREF(args);
  return s;
}

const Tensor& T(PyObject* self) { return unwrap(self); }

PyObject* get_shape(PyObject* self, void*) { return size_tuple(T(self).sizes()); }
PyObject* get_dtype(PyObject* self, void*) { return Py_NewRef(dtype_object(T(self).dtype())); }
PyObject* get_device(PyObject* self, void*) { return device_object(T(self).device()); }
PyObject* get_ndim(PyObject* self, void*) { return PyLong_FromLongLong(T(self).dim()); }
PyObject* get_is_meta(PyObject* self, void*) { return PyBool_FromLong(T(self).is_meta()); }
PyObject* get_is_cpu(PyObject* self, void*) { return PyBool_FromLong(T(self).device().is_cpu()); }
PyObject* get_is_cuda(PyObject* self, void*) { return PyBool_FromLong(T(self).device().type == DeviceType::CUDA); }
PyObject* get_itemsize(PyObject* self, void*) { return PyLong_FromLongLong(T(self).itemsize()); }
PyObject* get_nbytes(PyObject* self, void*) { return PyLong_FromLongLong(T(self).itemsize() * T(self).numel()); }
PyObject* get_version(PyObject* self, void*) { return PyLong_FromUnsignedLong(T(self).storage()->version.load()); }

std::vector<PyGetSetDef> tensor_getset = {
    {"shape", get_shape, nullptr, nullptr, nullptr},     {"dtype", get_dtype, nullptr, nullptr, nullptr},
    {"device", get_device, nullptr, nullptr, nullptr},   {"ndim", get_ndim, nullptr, nullptr, nullptr},
    {"is_meta", get_is_meta, nullptr, nullptr, nullptr}, {"is_cpu", get_is_cpu, nullptr, nullptr, nullptr},
    {"is_cuda", get_is_cuda, nullptr, nullptr, nullptr}, {"itemsize", get_itemsize, nullptr, nullptr, nullptr},
    {"nbytes", get_nbytes, nullptr, nullptr, nullptr},   {"_version", get_version, nullptr, nullptr, nullptr}};

PyMemberDef tensor_members[] = {{"__dictoffset__", T_PYSSIZET, offsetof(TensorObject, dict), READONLY, nullptr},
                                {"__weaklistoffset__", T_PYSSIZET, offsetof(TensorObject, weaklist), READONLY, nullptr},
                                {nullptr}};

PyObject* m_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("size(int? dim=None)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  if (r.has(0)) return PyLong_FromLongLong(T(self).size(r.int64(0)));
  return size_tuple(T(self).sizes());
  EMBER_PY_END(nullptr)
}

PyObject* m_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("stride(int? dim=None)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  if (r.has(0)) return PyLong_FromLongLong(T(self).stride(r.int64(0)));
  const DimVec& st = T(self).strides();
  PyObject* t = PyTuple_New(st.size());
  for (int64_t i = 0; i < st.size(); i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(st[i]));
  return t;
  EMBER_PY_END(nullptr)
}

PyObject* m_dim(PyObject* self, PyObject*) { return PyLong_FromLongLong(T(self).dim()); }
PyObject* m_numel(PyObject* self, PyObject*) { return PyLong_FromLongLong(T(self).numel()); }
PyObject* m_element_size(PyObject* self, PyObject*) { return PyLong_FromLongLong(T(self).itemsize()); }
PyObject* m_storage_offset(PyObject* self, PyObject*) { return PyLong_FromLongLong(T(self).offset()); }
PyObject* m_is_contiguous(PyObject* self, PyObject*) { return PyBool_FromLong(T(self).is_contiguous()); }
PyObject* m_data_ptr(PyObject* self, PyObject*) {
  const Tensor& t = T(self);
  if (t.is_meta() || !t.storage()->data) return PyLong_FromLong(0);
  // The address is now held outside ember (a NumPy array over it, ctypes): the storage must
  // never move, so an out= resize that would reallocate it raises instead of leaving it dangling.
  t.storage()->resizable = false;
  return PyLong_FromVoidPtr(t.data());
}
PyObject* m_is_floating_point(PyObject* self, PyObject*) { return PyBool_FromLong(is_floating(T(self).dtype())); }
PyObject* m_is_complex(PyObject* self, PyObject*) { return PyBool_FromLong(is_complex(T(self).dtype())); }
PyObject* m_is_signed(PyObject* self, PyObject*) { return PyBool_FromLong(is_signed(T(self).dtype())); }
PyObject* m_untyped_storage_ptr(PyObject* self, PyObject*) { return PyLong_FromVoidPtr(T(self).storage()->data); }

PyObject* m_item(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  const Tensor& t = T(self);
  EMBER_CHECK(t.numel() == 1, Runtime, "a Tensor with ", t.numel(),
              " elements cannot be converted to Scalar (item() needs exactly one element)");
  Scalar s = to_scalar(self);
  switch (s.kind()) {
    case Scalar::Kind::Bool:
      return PyBool_FromLong(s.to_bool());
    case Scalar::Kind::Int:
      return PyLong_FromLongLong(s.to_int());
    case Scalar::Kind::Float:
      return PyFloat_FromDouble(s.to_double());
    default:
      return PyComplex_FromDoubles(s.to_complex().real(), s.to_complex().imag());
  }
  EMBER_PY_END(nullptr)
}

std::vector<PyMethodDef> core_methods() {
  return {
      {"size", FASTCALL(m_size), nullptr},
      {"stride", FASTCALL(m_stride), nullptr},
      {"dim", m_dim, METH_NOARGS, nullptr},
      {"ndimension", m_dim, METH_NOARGS, nullptr},
      {"numel", m_numel, METH_NOARGS, nullptr},
      {"nelement", m_numel, METH_NOARGS, nullptr},
      {"element_size", m_element_size, METH_NOARGS, nullptr},
      {"storage_offset", m_storage_offset, METH_NOARGS, nullptr},
      {"is_contiguous", m_is_contiguous, METH_NOARGS, nullptr},
      {"data_ptr", m_data_ptr, METH_NOARGS, nullptr},
      {"_storage_ptr", m_untyped_storage_ptr, METH_NOARGS, nullptr},
      {"is_floating_point", m_is_floating_point, METH_NOARGS, nullptr},
      {"is_complex", m_is_complex, METH_NOARGS, nullptr},
      {"is_signed", m_is_signed, METH_NOARGS, nullptr},
      {"item", m_item, METH_NOARGS, nullptr},
  };
}

}  // namespace

PyObject* wrap(Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  TensorImpl* impl = t.impl();
  if (impl->pyobj) return Py_NewRef(static_cast<PyObject*>(impl->pyobj));
  PyTypeObject* cls = TensorClass ? TensorClass : TensorBaseType;
  PyObject* o = cls->tp_alloc(cls, 0);
  if (!o) throw PythonError();
  auto* to = reinterpret_cast<TensorObject*>(o);
  new (&to->tensor) Tensor(std::move(t));
  impl->pyobj = o;
  return o;
}

PyObject* wrap_list(const std::vector<Tensor>& ts, bool as_tuple) {
  PyObject* out = as_tuple ? PyTuple_New(ts.size()) : PyList_New(ts.size());
  for (size_t i = 0; i < ts.size(); i++) {
    PyObject* x = wrap(ts[i]);
    if (as_tuple)
      PyTuple_SET_ITEM(out, i, x);
    else
      PyList_SET_ITEM(out, i, x);
  }
  return out;
}

bool init_tensor_type(PyObject* m) {
  static std::vector<PyMethodDef> methods;
  methods = core_methods();
  add_generated_methods(methods);
  add_autograd_methods(methods);
  methods.push_back({nullptr, nullptr, 0, nullptr});
  add_autograd_getset(tensor_getset);
  tensor_getset.push_back({nullptr, nullptr, nullptr, nullptr, nullptr});
  std::vector<PyType_Slot> slots = {
      {Py_tp_dealloc, (void*)tensor_dealloc}, {Py_tp_traverse, (void*)tensor_traverse},
      {Py_tp_clear, (void*)tensor_clear},     {Py_tp_new, (void*)tensor_new},
      {Py_tp_getset, tensor_getset.data()},   {Py_tp_members, tensor_members},
      {Py_tp_methods, methods.data()},
  };
  add_operator_slots(slots);
  add_indexing_slots(slots);
  slots.push_back({0, nullptr});
  static PyType_Spec spec = {"ember._C.TensorBase", sizeof(TensorObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, nullptr};
  spec.slots = slots.data();
  TensorBaseType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  return TensorBaseType && PyModule_AddObjectRef(m, "TensorBase", (PyObject*)TensorBaseType) >= 0;
}

}  // namespace ember::py
