// ember.tensor / as_tensor / from_numpy (see creation.h).
#include "python/creation.h"

#include <cstring>

#include "autograd/meta.h"
#include "device/default_device.h"
#include "iter/copy.h"
#include "kernels/convert.h"
#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/dlpack.h"
#include "python/py_errors.h"
#include "types/promotion.h"
#include "types/scalar_fits.h"

namespace ember::py {

namespace {

ScalarType dtype_from_format(const char* f, Py_ssize_t itemsize);

// Nesting deeper than this is refused (a self-containing list would otherwise recurse forever).
constexpr int64_t kMaxDataDims = 128;

// Tensors with dims count as sequences of their elements ([[1, 2], t] is fine); 0-dim ones are numbers.
bool is_sequence(PyObject* o) {
  if (is_tensor(o)) return unwrap(o).dim() > 0;
  return PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o);
}

// len() and [i] of a sequence of the data; a tensor's rows are views made here directly.
Py_ssize_t seq_size(PyObject* o) {
  if (is_tensor(o)) return unwrap(o).sizes()[0];
  Py_ssize_t n = PySequence_Size(o);
  if (n < 0) throw PythonError();
  return n;
}

PyObject* seq_item(PyObject* o, Py_ssize_t i) {
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    EMBER_CHECK(!t.is_meta(), Runtime, "ember.tensor(): a meta tensor has no data to read");
    DimVec sizes(t.sizes().begin() + 1, t.sizes().end()), strides(t.strides().begin() + 1, t.strides().end());
    return wrap(make_view(t, sizes, strides, t.offset() + i * t.strides()[0]));
  }
  PyObject* item = PySequence_GetItem(o, i);
  if (!item) throw PythonError();
  return item;
}

// The dtype a NumPy scalar carries (np.float32(1) is float32), read through its buffer;
// Undefined for other objects and for NumPy dtypes ember lacks.
ScalarType numpy_scalar_dtype(PyObject* o) {
  // (np.float64 subclasses float, so only the exact Python types are skipped.)
  if (!PyObject_CheckBuffer(o) || PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyComplex_CheckExact(o))
    return ScalarType::Undefined;
  Py_buffer v;
  if (PyObject_GetBuffer(o, &v, PyBUF_FORMAT) < 0) {
    PyErr_Clear();
    return ScalarType::Undefined;
  }
  ScalarType t = ScalarType::Undefined;
  if (v.ndim == 0) {
    try {
      t = dtype_from_format(v.format ? v.format : "B", v.itemsize);
    } catch (const Error&) {
      t = ScalarType::Undefined;
    }
  }
  PyBuffer_Release(&v);
  return t;
}

// The dtype one number of the data gives: a tensor's or NumPy scalar's own dtype, else int64 for
// ints, the default float dtype for floats, the default complex dtype for complex, bool for bools.
ScalarType leaf_dtype(PyObject* o) {
  if (is_tensor(o)) return unwrap(o).dtype();
  if (PyBool_Check(o)) return ScalarType::Bool;
  if (PyLong_Check(o)) return ScalarType::Int64;  // without converting: 2**64 is fine for a float result
  EMBER_CHECK(is_number(o), Type, "ember.tensor(): could not infer dtype of ", type_name(o),
              " (data must be numbers, nested sequences of numbers, or arrays)");
  ScalarType t = numpy_scalar_dtype(o);
  if (t != ScalarType::Undefined) return t;
  Scalar s = to_scalar(o);
  if (s.is_bool()) return ScalarType::Bool;
  if (s.is_int()) return ScalarType::Int64;
  return s.is_float() ? default_dtype() : default_complex_dtype();
}

// Walks nested data once: records the shape from the first element at each depth and promotes
// the dtypes of all numbers (PyTorch's rule: [np.int32(1), 2] is int64, [np.float16(1), 2] float16).
void infer(PyObject* o, int64_t depth, DimVec& shape, ScalarType& dtype) {
  if (is_sequence(o)) {
    EMBER_CHECK(depth < kMaxDataDims, Value, "ember.tensor(): too many dimensions (data nested deeper than ",
                kMaxDataDims, " sequences; is a list contained in itself?)");
    Py_ssize_t n = seq_size(o);
    if (depth == shape.size()) shape.push_back(n);
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject* item = seq_item(o, i);
      try {
        infer(item, depth + 1, shape, dtype);
      } catch (...) {
        Py_DECREF(item);
        throw;
      }
      Py_DECREF(item);
    }
    return;
  }
  const ScalarType t = leaf_dtype(o);
  dtype = dtype == ScalarType::Undefined ? t : promote_types(dtype, t);
}

// One number of the data as T. Integer dtypes refuse values out of their range (300 for uint8,
// NaN) and real dtypes refuse complex numbers, as PyTorch does; floats may round to inf.
template <class T>
T element(PyObject* o) {
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T> || std::is_same_v<T, Half> ||
                std::is_same_v<T, BFloat16>) {
    if (PyLong_Check(o) && !PyBool_Check(o)) {  // any size of int (2**64 becomes 1.8e19)
      const double d = PyLong_AsDouble(o);
      if (d == -1.0 && PyErr_Occurred()) throw PythonError();
      return convert<T>(d);
    }
  }
  const Scalar s = to_scalar(o);
  if constexpr (!std::is_same_v<T, bool>) {
    if constexpr (!is_complex_v<T>) {
      EMBER_CHECK(!s.is_complex(), Type, "ember.tensor(): can't convert complex number ", s.to_complex().real(), "+",
                  s.to_complex().imag(), "j to ", dtype_name(CType<T>::value));
    }
    if constexpr (std::is_integral_v<T>) check_scalar_fits(s, CType<T>::value);
  }
  return s.to<T>();
}

template <class T>
void fill(PyObject* o, int64_t depth, const DimVec& shape, T*& out) {
  if (depth == shape.size()) {
    EMBER_CHECK(!is_sequence(o), Value, "ember.tensor(): too many nested sequences (expected ", shape.size(), " dims)");
    *out++ = element<T>(o);
    return;
  }
  EMBER_CHECK(is_sequence(o), Value, "ember.tensor(): expected a sequence of length ", shape[depth], " at dim ", depth,
              " (got ", type_name(o), ")");
  Py_ssize_t n = seq_size(o);
  EMBER_CHECK(n == shape[depth], Value, "expected sequence of length ", shape[depth], " at dim ", depth, " (got ", n,
              ")");
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* item = seq_item(o, i);
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
    bool readonly = false;
    Tensor t = tensor_from_buffer(data, &readonly);
    ScalarType d = dtype == ScalarType::Undefined ? t.dtype() : dtype;
    if (!copy && d == t.dtype() && !readonly) return t;  // read-only memory is copied, never shared
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
  ScalarType inferred = ScalarType::Undefined;
  infer(data, 0, shape, inferred);
  if (inferred == ScalarType::Undefined) inferred = default_dtype();  // no numbers at all: []
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
  static ArgParser p(
      "tensor(object data, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool "
      "pin_memory=False)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  auto dev = r.device(2);
  if (!dev && !default_device().is_cpu()) dev = default_device();
  Tensor t = from_data(r.object(0), r.dtype(1), true);
  if (dev && !dev->is_cpu()) {
    Tensor m = empty(t.sizes(), t.dtype(), *dev);
    if (!dev->is_meta()) copy_(m, t);  // a meta tensor keeps the shape and dtype only
    t = m;
  }
  if (r.boolean(3)) autograd::set_requires_grad(t, true);
  return wrap(t);
  EMBER_PY_END(nullptr)
}

PyObject* fn_as_tensor(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("as_tensor(object data, ScalarType? dtype=None, Device? device=None)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  auto dev = r.device(2);
  if (!dev && !default_device().is_cpu()) dev = default_device();
  Tensor t = from_data(r.object(0), r.dtype(1), false);
  if (dev && *dev != t.device()) {
    Tensor m = empty(t.sizes(), t.dtype(), *dev);
    if (!dev->is_meta()) copy_(m, t);  // a meta tensor keeps the shape and dtype only
    t = m;
  }
  return wrap(t);
  EMBER_PY_END(nullptr)
}

// Whether o is a numpy.ndarray or a subclass (np.memmap, np.matrix), without importing NumPy.
bool is_ndarray(PyObject* o) {
  PyObject* mro = Py_TYPE(o)->tp_mro;
  for (Py_ssize_t i = 0; mro && i < PyTuple_GET_SIZE(mro); i++)
    if (std::strcmp(reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(mro, i))->tp_name, "numpy.ndarray") == 0)
      return true;
  return false;
}

PyObject* fn_from_numpy(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  EMBER_CHECK(has_buffer(arg) && is_ndarray(arg), Type, "expected np.ndarray (got ", type_name(arg), ")");
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

Tensor tensor_from_buffer(PyObject* obj, bool* readonly) {
  auto* owner = new BufferOwner();
  if (PyObject_GetBuffer(obj, &owner->view, PyBUF_RECORDS_RO) < 0) {
    delete owner;
    throw PythonError();
  }
  Py_buffer& v = owner->view;
  ScalarType dt;
  try {
    // Ember tensors are always writable: sharing read-only memory (np.frombuffer of bytes, a
    // read-only memmap) would let writes corrupt immutable objects or fault.
    if (readonly) *readonly = v.readonly;
    EMBER_CHECK(readonly || !v.readonly, Runtime, "the given ", type_name(obj),
                " is read-only; ember tensors are "
                "writable, so they cannot share its memory: pass a writable copy (e.g. np.array(x)), or use "
                "ember.tensor(x) to copy");
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
