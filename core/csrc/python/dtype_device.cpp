// ember.dtype (one singleton per element type) and ember.device objects.
#include <Python.h>
#include <structmember.h>

#include "python/arg_parser.h"
#include "python/objects.h"
#include "python/py_errors.h"

namespace ember::py {

PyTypeObject* DTypeType = nullptr;
PyTypeObject* DeviceType = nullptr;

namespace {

PyObject* g_dtypes[kNumScalarTypes] = {};

PyObject* dtype_repr(PyObject* self) {
  return PyUnicode_FromFormat("ember.%s", dtype_name(reinterpret_cast<DTypeObject*>(self)->st));
}
ScalarType st_of(PyObject* self) { return reinterpret_cast<DTypeObject*>(self)->st; }
PyObject* dtype_is_floating(PyObject* self, void*) { return PyBool_FromLong(is_floating(st_of(self))); }
PyObject* dtype_is_complex(PyObject* self, void*) { return PyBool_FromLong(is_complex(st_of(self))); }
PyObject* dtype_is_signed(PyObject* self, void*) { return PyBool_FromLong(is_signed(st_of(self))); }
PyObject* dtype_itemsize(PyObject* self, void*) { return PyLong_FromLong(long(itemsize(st_of(self)))); }
PyObject* dtype_to_real(PyObject* self, PyObject*) { return Py_NewRef(dtype_object(to_real(st_of(self)))); }
PyObject* dtype_to_complex(PyObject* self, PyObject*) {
  ScalarType t = st_of(self);
  EMBER_PY_BEGIN
  EMBER_CHECK(is_floating(t) || is_complex(t), Runtime, "to_complex(): ", dtype_name(t), " is not a floating dtype");
  return Py_NewRef(dtype_object(to_complex(t)));
  EMBER_PY_END(nullptr)
}
PyObject* dtype_reduce(PyObject* self, PyObject*) { return PyUnicode_FromString(dtype_name(st_of(self))); }

PyGetSetDef dtype_getset[] = {{"is_floating_point", dtype_is_floating, nullptr, nullptr, nullptr},
                              {"is_complex", dtype_is_complex, nullptr, nullptr, nullptr},
                              {"is_signed", dtype_is_signed, nullptr, nullptr, nullptr},
                              {"itemsize", dtype_itemsize, nullptr, nullptr, nullptr},
                              {nullptr}};
PyMethodDef dtype_methods[] = {{"to_real", dtype_to_real, METH_NOARGS, nullptr},
                               {"to_complex", dtype_to_complex, METH_NOARGS, nullptr},
                               {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
                               {nullptr}};

PyObject* device_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"type", "index", nullptr};
  PyObject *type = nullptr, *index = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", const_cast<char**>(kw), &type, &index)) return nullptr;
  EMBER_PY_BEGIN
  Device d = to_device(type);
  if (index != Py_None) {
    EMBER_CHECK(d.index < 0, Runtime,
                "type (string) must not include an index because index was passed explicitly: ", d.str());
    int64_t i = to_int64(index, "device index");
    EMBER_CHECK(i >= 0, Runtime, "Device index must not be negative");
    EMBER_CHECK(i < 128, Runtime, "Device index must be at most 127, got ", i);
    d.index = int8_t(i);
  }
  return device_object(d);
  EMBER_PY_END(nullptr)
}
Device dev_of(PyObject* self) { return reinterpret_cast<DeviceObject*>(self)->device; }
PyObject* device_repr(PyObject* self) {
  Device d = dev_of(self);
  if (d.index >= 0) return PyUnicode_FromFormat("device(type='%s', index=%d)", device_type_name(d.type), int(d.index));
  return PyUnicode_FromFormat("device(type='%s')", device_type_name(d.type));
}
PyObject* device_str(PyObject* self) { return PyUnicode_FromString(dev_of(self).str().c_str()); }
PyObject* device_type_get(PyObject* self, void*) { return PyUnicode_FromString(device_type_name(dev_of(self).type)); }
PyObject* device_index_get(PyObject* self, void*) {
  Device d = dev_of(self);
  if (d.index < 0) Py_RETURN_NONE;
  return PyLong_FromLong(d.index);
}
PyObject* device_richcompare(PyObject* a, PyObject* b, int op) {
  if (!is_device(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = dev_of(a) == dev_of(b);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
Py_hash_t device_hash(PyObject* self) {
  Device d = dev_of(self);
  return Py_hash_t(int(d.type) * 256 + d.index + 1);
}
PyGetSetDef device_getset[] = {{"type", device_type_get, nullptr, nullptr, nullptr},
                               {"index", device_index_get, nullptr, nullptr, nullptr},
                               {nullptr}};
// Pickled as ember.device("cpu") (PyTorch's torch.device pickles too: it crosses process boundaries
// in multiprocessing arguments).
PyObject* device_reduce(PyObject* self, PyObject*) {
  return Py_BuildValue("(O(s))", (PyObject*)Py_TYPE(self), dev_of(self).str().c_str());
}
PyMethodDef device_methods[] = {{"__reduce__", device_reduce, METH_NOARGS, nullptr}, {nullptr}};

}  // namespace

PyObject* dtype_object(ScalarType t) { return g_dtypes[int(t)]; }

PyObject* device_object(Device d) {
  auto* o = PyObject_New(DeviceObject, DeviceType);
  if (!o) return nullptr;
  o->device = d;
  return reinterpret_cast<PyObject*>(o);
}

bool init_dtype_type(PyObject* m) {
  PyType_Slot slots[] = {
      {Py_tp_repr, (void*)dtype_repr}, {Py_tp_getset, dtype_getset}, {Py_tp_methods, dtype_methods}, {0, nullptr}};
  PyType_Spec spec = {"ember.dtype", sizeof(DTypeObject), 0, Py_TPFLAGS_DEFAULT, slots};
  DTypeType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (!DTypeType || PyModule_AddObjectRef(m, "dtype", (PyObject*)DTypeType) < 0) return false;
  for (int i = 0; i < kNumScalarTypes; i++) {
    auto* o = PyObject_New(DTypeObject, DTypeType);
    o->st = ScalarType(i);
    g_dtypes[i] = reinterpret_cast<PyObject*>(o);
    if (PyModule_AddObjectRef(m, dtype_name(ScalarType(i)), g_dtypes[i]) < 0) return false;
  }
  return true;
}

bool init_device_type(PyObject* m) {
  PyType_Slot slots[] = {{Py_tp_new, (void*)device_new},   {Py_tp_repr, (void*)device_repr},
                         {Py_tp_str, (void*)device_str},   {Py_tp_richcompare, (void*)device_richcompare},
                         {Py_tp_hash, (void*)device_hash}, {Py_tp_getset, device_getset},
                         {Py_tp_methods, device_methods},  {0, nullptr}};
  PyType_Spec spec = {"ember.device", sizeof(DeviceObject), 0, Py_TPFLAGS_DEFAULT, slots};
  DeviceType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  return DeviceType && PyModule_AddObjectRef(m, "device", (PyObject*)DeviceType) >= 0;
}

}  // namespace ember::py
