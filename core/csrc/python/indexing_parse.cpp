// Parsing t[...] (see indexing.h), following PyTorch: integers (also 0-dim integer tensors) select,
// slices/None/Ellipsis/Python bools are views, and what remains (integer tensors, lists, NumPy
// arrays, bool masks) becomes advanced index tensors over the dims of that view.
#include "iter/copy.h"
#include "kernels/cpu/index_advanced.h"
#include "python/arg_parser.h"
#include "python/indexing.h"
#include "python/py_errors.h"

namespace ember::py {

namespace {

enum class Kind { Int, Slice, None, Ellipsis, True, False, Index, Mask };

struct Item {
  Kind kind;
  PyObject* obj = nullptr;
  int64_t value = 0;  // Int
  Tensor tensor;      // Index, Mask
};

const char* kValidTypes =
    "only integers, slices (`:`), ellipsis (`...`), None, booleans, and long, int, byte or bool tensors "
    "(or lists and NumPy arrays of them) are valid indices";

// A list, nested list or array-like as a tensor, through ember.tensor.
Tensor sequence_to_tensor(PyObject* o) {
  static PyObject* fn = [] {
    PyObject* m = PyImport_ImportModule("ember._C");
    if (!m) throw PythonError();
    PyObject* f = PyObject_GetAttrString(m, "tensor");
    Py_DECREF(m);
    if (!f) throw PythonError();
    return f;
  }();
  PyObject* r = PyObject_CallOneArg(fn, o);
  if (!r) throw PythonError();
  Tensor t = unwrap(r);
  Py_DECREF(r);
  // [] has no numbers to infer from; as an index it means "no elements" (int64), as in PyTorch.
  if (t.numel() == 0 && is_floating(t.dtype())) return empty(t.sizes(), ScalarType::Int64);
  return t;
}

// An int64 index of n zeros (the [0] or [] that bool indices stand for).
Tensor zeros_index(int64_t n) {
  Tensor t = empty(DimVec{n}, ScalarType::Int64);
  if (n) fill_(t, Scalar(int64_t(0)));
  return t;
}

bool is_sequence_index(PyObject* o) {
  return (PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) && !is_tensor(o)) ||
         (PyObject_CheckBuffer(o) && !PyBytes_Check(o) && !PyByteArray_Check(o));
}

Item from_tensor(const Tensor& t, PyObject* o) {
  const ScalarType dt = t.dtype();
  if (dt == ScalarType::UInt8 &&
      PyErr_WarnEx(PyExc_UserWarning,
                   "indexing with dtype ember.uint8 is now deprecated, please use a dtype ember.bool instead.", 1) < 0)
    throw PythonError();
  if (dt == ScalarType::Bool || dt == ScalarType::UInt8) {
    if (t.dim() == 0) {
      // A 0-dim bool tensor adds a size-1 dim indexed by [0] (true) or [] (false), as in PyTorch.
      Tensor c = contiguous_as(t, ScalarType::Bool);
      return Item{*c.data_as<bool>() ? Kind::True : Kind::False, o, 1};
    }
    return Item{Kind::Mask, o, 0, t};
  }
  if (is_integral(dt, false)) {
    if (t.dim() == 0) return Item{Kind::Int, o, to_dtype(t, ScalarType::Int64).data_as<int64_t>()[0]};
    EMBER_CHECK(dt == ScalarType::Int64 || dt == ScalarType::Int32, Index,
                "tensors used as indices must be long, int, byte or bool tensors (got ", dtype_name(dt), ")");
    return Item{Kind::Index, o, 0, t};
  }
  EMBER_FAIL(Index, "tensors used as indices must be long, int, byte or bool tensors (got ", dtype_name(dt), ")");
}

Item classify(PyObject* o) {
  if (o == Py_None) return Item{Kind::None, o};
  if (o == Py_Ellipsis) return Item{Kind::Ellipsis, o};
  if (o == Py_True) return Item{Kind::True, o};
  if (o == Py_False) return Item{Kind::False, o, 0};
  if (PySlice_Check(o)) return Item{Kind::Slice, o};
  if (PyLong_Check(o)) return Item{Kind::Int, o, to_int64(o, "index")};
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    EMBER_CHECK(!t.is_meta() || (t.dim() > 0 && is_integral(t.dtype(), false)), NotImplemented,
                "indexing with a meta tensor of this kind needs its values");
    return from_tensor(t, o);
  }
  if (is_sequence_index(o)) return from_tensor(sequence_to_tensor(o), o);
  if (PyIndex_Check(o)) return Item{Kind::Int, o, to_int64(o, "index")};
  const std::string tn = type_name(o);
  if (tn == "numpy.bool" || tn == "numpy.bool_" || tn == "bool_") {
    const int truth = PyObject_IsTrue(o);
    if (truth < 0) throw PythonError();
    return Item{truth ? Kind::True : Kind::False, o, 0};
  }
  EMBER_FAIL(Index, kValidTypes, " (got ", tn, ")");
}

// PyTorch's reading of a non-tuple sequence: a short one holding tensors, sequences, slices,
// Ellipsis or None is a tuple of indices (x[[0, 1], [1, 2]] style), else it is one index array.
bool sequence_is_tuple(PyObject* index) {
  if (PyTuple_Check(index)) return true;
  if (!PyList_Check(index)) return false;
  const Py_ssize_t n = PyList_GET_SIZE(index);
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* x = PyList_GET_ITEM(index, i);
    if (is_tensor(x) || x == Py_None || x == Py_Ellipsis || PySlice_Check(x) ||
        (PySequence_Check(x) && !PyUnicode_Check(x) && !PyBytes_Check(x)))
      return true;
  }
  return false;
}

}  // namespace

ParsedIndex parse_index(const Tensor& t, PyObject* index) {
  std::vector<Item> items;
  if (sequence_is_tuple(index)) {
    PyObject* seq = PySequence_Fast(index, "index must be a sequence");
    if (!seq) throw PythonError();
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    try {
      for (Py_ssize_t i = 0; i < n; i++) items.push_back(classify(PySequence_Fast_GET_ITEM(seq, i)));
    } catch (...) {
      Py_DECREF(seq);
      throw;
    }
    Py_DECREF(seq);
  } else {
    items.push_back(classify(index));
  }
  int64_t consumed = 0, ellipses = 0;
  for (const Item& it : items) {
    if (it.kind == Kind::Int || it.kind == Kind::Slice || it.kind == Kind::Index) consumed++;
    if (it.kind == Kind::Mask) consumed += it.tensor.dim();
    if (it.kind == Kind::Ellipsis) ellipses++;
  }
  EMBER_CHECK(ellipses <= 1, Index, "an index can only have a single ellipsis ('...')");
  EMBER_CHECK(consumed <= t.dim(), Index, "too many indices for tensor of dimension ", t.dim(), " (got ", consumed,
              ")");

  ParsedIndex p;
  DimVec sizes, strides;
  int64_t offset = t.offset(), d = 0;
  const DimVec &ts = t.sizes(), &tst = t.strides();
  auto keep = [&](int64_t dim) {
    sizes.push_back(ts[dim]);
    strides.push_back(tst[dim]);
    p.labels.push_back(dim);
    p.indices.emplace_back();
  };
  auto new_dim = [&](Tensor idx) {
    sizes.push_back(1);
    strides.push_back(d < t.dim() ? tst[d] * ts[d] : 1);
    p.labels.push_back(d);
    p.indices.push_back(idx);
    p.advanced |= idx.defined();
  };
  for (const Item& it : items) {
    switch (it.kind) {
      case Kind::None:
        new_dim(Tensor());
        break;
      case Kind::True:
        // Python True is a new dim (as None); a 0-dim true tensor also indexes it with [0].
        new_dim(it.value ? zeros_index(1) : Tensor());
        break;
      case Kind::False:
        new_dim(zeros_index(0));
        break;
      case Kind::Ellipsis:
        for (int64_t k = 0; k < t.dim() - consumed; k++) keep(d++);
        break;
      case Kind::Int: {
        int64_t v = it.value;
        const int64_t size = ts[d];
        EMBER_CHECK(v >= -size && v < size, Index, "index ", v, " is out of bounds for dimension ", d, " with size ",
                    size);
        if (v < 0) v += size;
        offset += v * tst[d];
        d++;
        break;
      }
      case Kind::Slice: {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(it.obj, &start, &stop, &step) < 0) throw PythonError();
        EMBER_CHECK(step > 0, Value,
                    "step must be greater than zero (negative-step slices are not supported; use flip)");
        Py_ssize_t len = PySlice_AdjustIndices(ts[d], &start, &stop, step);
        sizes.push_back(len);
        strides.push_back(tst[d] * step);
        p.labels.push_back(d);
        p.indices.emplace_back();
        if (len > 0) offset += start * tst[d];
        d++;
        break;
      }
      case Kind::Index:
        keep(d++);
        p.indices.back() = it.tensor;
        p.advanced = true;
        break;
      case Kind::Mask: {
        const Tensor& m = it.tensor;
        for (int64_t k = 0; k < m.dim(); k++) {
          EMBER_CHECK(m.sizes()[k] == ts[d + k], Index, "The shape of the mask ", m.sizes(), " at index ", k,
                      " does not match the shape of the indexed tensor ", ts, " at index ", d + k);
        }
        EMBER_CHECK(!m.is_meta(), NotImplemented, "indexing with a meta mask needs its values");
        std::vector<Tensor> cols = mask_to_indices(m);
        for (int64_t k = 0; k < m.dim(); k++) {
          keep(d++);
          p.indices.back() = cols[k];
        }
        p.advanced = true;
        break;
      }
    }
  }
  for (; d < t.dim(); d++) keep(d);
  p.view = make_view(t, sizes, strides, offset);
  return p;
}

}  // namespace ember::py
