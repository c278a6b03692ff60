// The Python objects of the core: Tensor (TensorBase, subclassed in Python as ember.Tensor),
// dtype and device, and the conversions between them and C++ values.
#pragma once
#include <Python.h>

#include "device/device.h"
#include "tensor/tensor_impl.h"
#include "types/dtype.h"

namespace ember::py {

struct TensorObject {
  PyObject_HEAD Tensor tensor;
  PyObject* dict;
  PyObject* weaklist;
};

extern PyTypeObject* TensorBaseType;  // ember._C.TensorBase
extern PyTypeObject* TensorClass;     // ember.Tensor, registered from Python

inline bool is_tensor(PyObject* o) { return PyObject_TypeCheck(o, TensorBaseType); }
inline const Tensor& unwrap(PyObject* o) { return reinterpret_cast<TensorObject*>(o)->tensor; }
// The Python object for t: the existing one if t already has one (keeping identity), else new.
PyObject* wrap(Tensor t);
PyObject* wrap_list(const std::vector<Tensor>& ts, bool as_tuple);

struct DTypeObject {
  PyObject_HEAD ScalarType st;
};
extern PyTypeObject* DTypeType;
PyObject* dtype_object(ScalarType t);  // borrowed reference to the singleton
inline bool is_dtype(PyObject* o) { return Py_TYPE(o) == DTypeType; }

struct DeviceObject {
  PyObject_HEAD Device device;
};
extern PyTypeObject* DeviceType;
PyObject* device_object(Device d);  // new reference
inline bool is_device(PyObject* o) { return Py_TYPE(o) == DeviceType; }

bool init_tensor_type(PyObject* module);
bool init_dtype_type(PyObject* module);
bool init_device_type(PyObject* module);

}  // namespace ember::py
