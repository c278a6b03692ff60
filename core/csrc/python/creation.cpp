// ember.tensor / as_tensor / from_numpy (see creation.h).
#include "python/creation.h"

#include <cstring>

#include "kernels/copy.h"
#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/dlpack.h"
#include "python/py_errors.h"
#include "types/promotion.h"

namespace ember::py {

namespace {

bool is_sequence(PyObject* o) {
  return PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) && !is_tensor(o);
}

// Walks nested data once: records the shape from the first element at each depth and the
// highest category of number seen (0 bool, 1 int, 2 float, 3 complex).
void infer(PyObject* o, int64_t depth, DimVec& shape, int& category, ScalarType& tensor_dtype) {
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    EMBER_CHECK(t.dim() == 0, Value, "only 0-dim tensors can be elements of ember.tensor() data, got shape ", t.sizes());
    ScalarType d = t.dtype();
    tensor_dtype = tensor_dtype == ScalarType::Undefined ? d : promote_types(tensor_dtype, d);
    return;
  }
  if (is_sequence(o)) {
    Py_ssize_t n = PySequence_Size(o);
    if (n < 0) throw PythonError();
    if (depth == shape.size()) shape.push_back(n);
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject* item = PySequence_GetItem(o, i);
      if (!item) throw PythonError();
      try {
        infer(item, depth + 1, shape, category, tensor_dtype);
      } catch (...) {
        Py_DECREF(item);
        throw;
      }
      Py_DECREF(item);
    }
    return;
  }
  EMBER_CHECK(is_number(o), Type, "ember.tensor(): could not infer dtype of ", type_name(o),
              " (data must be numbers, nested sequences of numbers, or arrays)");
  Scalar s = to_scalar(o);
  int c = s.is_bool() ? 0 : s.is_int() ? 1 : s.is_float() ? 2 : 3;
  category = std::max(category, c);
}

template <class T>
void fill(PyObject* o, int64_t depth, const DimVec& shape, T*& out) {
  if (depth == shape.size()) {
    EMBER_CHECK(!is_sequence(o), Value, "ember.tensor(): too many nested sequences (expected ", shape.size(),
                " dims)");
    *out++ = to_scalar(o).to<T>();
    return;
  }
  EMBER_CHECK(is_sequence(o), Value, "ember.tensor(): expected a sequence of length ", shape[depth], " at dim ",
              depth, " (got ", type_name(o), ")");
  Py_ssize_t n = PySequence_Size(o);
  EMBER_CHECK(n == shape[depth], Value, "expected sequence of length ", shape[depth], " at dim ", depth, " (got ", n,
              ")");
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* item = PySequence_GetItem(o, i);
    if (!item) throw PythonError();
    try {
      fill<T>(item, depth + 1, shape, out);
    } catch (...) {
      Py_DECREF(item);
      throw;
    }
    Py_DECREF(item);
  }
}

bool has_buffer(PyObject* o) { return PyObject_CheckBuffer(o) && !PyBytes_Check(o) && !PyByteArray_Check(o); }

Tensor from_data(PyObject* data, ScalarType dtype, bool copy) {
  if (is_tensor(data)) {
    const Tensor& t = unwrap(data);
    if (!copy && (dtype == ScalarType::Undefined || dtype == t.dtype())) return t;
    return to_dtype(contiguous(t), dtype == ScalarType::Undefined ? t.dtype() : dtype);
  }
  if (has_buffer(data)) {
    Tensor t = tensor_from_buffer(data);
    ScalarType d = dtype == ScalarType::Undefined ? t.dtype() : dtype;
    if (!copy && d == t.dtype()) return t;
    Tensor out = empty(t.sizes(), d);
    copy_(out, t);
    return out;
  }
  if (PyObject_HasAttrString(data, "__dlpack__") && !is_sequence(data)) {
    Tensor t = from_dlpack_object(data);
    return copy || (dtype != ScalarType::Undefined && dtype != t.dtype())
               ? to_dtype(contiguous_copy(t), dtype == ScalarType::Undefined ? t.dtype() : dtype)
               : t;
  }
  DimVec shape;
  int category = -1;
  ScalarType tensor_dtype = ScalarType::Undefined;
  infer(data, 0, shape, category, tensor_dtype);
  ScalarType inferred = category == 0   ? ScalarType::Bool
                        : category == 1 ? ScalarType::Int64
                        : category == 2 ? default_dtype()
                        : category == 3 ? default_complex_dtype()
                                        : default_dtype();
  if (tensor_dtype != ScalarType::Undefined) inferred = category < 0 ? tensor_dtype : promote_types(inferred, tensor_dtype);
  ScalarType d = dtype == ScalarType::Undefined ? inferred : dtype;
  Tensor out = empty(shape, d);
  visit_dtype(d, [&](auto z) {
    using T = decltype(z);
    T* p = out.data_as<T>();
    fill<T>(data, 0, shape, p);
  });
  return out;
}

PyObject* fn_tensor(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("tensor(object data, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool pin_memory=False)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  EMBER_CHECK(!r.boolean(3), NotImplemented,
              "requires_grad=True needs autograd, which this build of ember does not have yet");
  auto dev = r.device(2);
  Tensor t = from_data(r.object(0), r.dtype(1), true);
  if (dev && !dev->is_cpu()) {
    Tensor m = empty(t.sizes(), t.dtype(), *dev);
    copy_(m, t);
    t = m;
  }
  return wrap(t);
  EMBER_PY_END(nullptr)
}

PyObject* fn_as_tensor(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("as_tensor(object data, ScalarType? dtype=None, Device? device=None)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  auto dev = r.device(2);
  Tensor t = from_data(r.object(0), r.dtype(1), false);
  if (dev && *dev != t.device()) {
    Tensor m = empty(t.sizes(), t.dtype(), *dev);
    copy_(m, t);
    t = m;
  }
  return wrap(t);
  EMBER_PY_END(nullptr)
}

PyObject* fn_from_numpy(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  EMBER_CHECK(has_buffer(arg) && std::strstr(Py_TYPE(arg)->tp_name, "ndarray"), Type,
              "expected np.ndarray (got ", type_name(arg), ")");
  return wrap(tensor_from_buffer(arg));
  EMBER_PY_END(nullptr)
}

PyObject* fn_frombuffer(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  EMBER_CHECK(has_buffer(arg), Type, "expected an object with the buffer protocol (got ", type_name(arg), ")");
  return wrap(tensor_from_buffer(arg));
  EMBER_PY_END(nullptr)
}

struct BufferOwner {
  Py_buffer view;
};

void release_buffer(void* ctx, void*, size_t) {
  auto* owner = static_cast<BufferOwner*>(ctx);
  PyGILState_STATE g = PyGILState_Ensure();
  PyBuffer_Release(&owner->view);
  PyGILState_Release(g);
  delete owner;
}

ScalarType dtype_from_format(const char* f, Py_ssize_t itemsize) {
  if (*f == '<' || *f == '=' || *f == '@' || *f == '|') f++;
  EMBER_CHECK(*f != '>' && *f != '!', Type, "can't convert a big-endian array: only native byte order is supported");
  std::string s = f;
  if (s == "?") return ScalarType::Bool;
  if (s == "B") return ScalarType::UInt8;
  if (s == "b") return ScalarType::Int8;
  if (s == "h") return ScalarType::Int16;
  if (s == "i" || (s == "l" && itemsize == 4)) return ScalarType::Int32;
  if (s == "q" || (s == "l" && itemsize == 8)) return ScalarType::Int64;
  if (s == "e") return ScalarType::Float16;
  if (s == "f") return ScalarType::Float32;
  if (s == "d") return ScalarType::Float64;
  if (s == "Zf") return ScalarType::Complex64;
  if (s == "Zd") return ScalarType::Complex128;
  EMBER_FAIL(Type, "can't convert an array of format '", f,
             "'. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, "
             "int16, int8, uint8, and bool.");
}

}  // namespace

Tensor tensor_from_buffer(PyObject* obj) {
  auto* owner = new BufferOwner();
  if (PyObject_GetBuffer(obj, &owner->view, PyBUF_RECORDS_RO) < 0) {
    delete owner;
    throw PythonError();
  }
  Py_buffer& v = owner->view;
  ScalarType dt;
  try {
    dt = dtype_from_format(v.format ? v.format : "B", v.itemsize);
    EMBER_CHECK(itemsize(dt) == v.itemsize, Type, "buffer item size ", v.itemsize, " does not match dtype ",
                dtype_name(dt));
  } catch (...) {
    PyBuffer_Release(&v);
    delete owner;
    throw;
  }
  DimVec sizes(v.ndim), strides(v.ndim);
  int64_t lo = 0, hi = v.itemsize;
  bool empty_ = false;
  for (int i = 0; i < v.ndim; i++) {
    sizes[i] = v.shape[i];
    empty_ = empty_ || v.shape[i] == 0;
    int64_t sb = v.strides ? v.strides[i] : 0;
    if (!v.strides) {
      int64_t s = v.itemsize;
      for (int j = i + 1; j < v.ndim; j++) s *= v.shape[j];
      sb = s;
    }
    if (sb % v.itemsize != 0 || sb < 0) {
      PyBuffer_Release(&v);
      delete owner;
      EMBER_FAIL(Value, sb < 0 ? "At least one stride in the given numpy array is negative, and tensors with negative "
                                 "strides are not currently supported. (You can probably work around this by making "
                                 "a copy of your array with array.copy().)"
                               : "given numpy array strides not a multiple of the element byte size. Copy the "
                                 "numpy array to reallocate the memory.");
    }
    strides[i] = sb / v.itemsize;
    if (v.shape[i] > 0) hi += (v.shape[i] - 1) * sb;
  }
  (void)lo;
  Storage st = foreign_storage(v.buf, empty_ ? 0 : hi, Device{}, &release_buffer, owner);
  auto impl = make_intrusive<TensorImpl>();
  impl->storage = st;
  impl->sizes = sizes;
  impl->strides = strides;
  impl->dtype = dt;
  impl->refresh();
  return Tensor(std::move(impl));
}

void add_data_creation_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"tensor", FASTCALL(fn_tensor), nullptr});
  v.push_back({"as_tensor", FASTCALL(fn_as_tensor), nullptr});
  v.push_back({"asarray", FASTCALL(fn_as_tensor), nullptr});
  v.push_back({"from_numpy", fn_from_numpy, METH_O, nullptr});
  v.push_back({"frombuffer", fn_frombuffer, METH_O, nullptr});
  add_dlpack_functions(v);
  add_tolist_functions(v);
}

}  // namespace ember::py
