// t[...] and t[...] = v for basic indices: integers, slices, None, Ellipsis, True/False and
// 0-dim integer tensors. The result of a read is a view; a write copies into that view.
#include <Python.h>

#include "kernels/copy.h"
#include "python/arg_parser.h"
#include "python/py_errors.h"
#include "python/tensor_methods.h"
#include "types/scalar_fits.h"

namespace ember::py {

namespace {

enum class Kind { Int, Slice, None, Ellipsis, True, False };

Kind classify(PyObject* o) {
  if (o == Py_None) return Kind::None;
  if (o == Py_Ellipsis) return Kind::Ellipsis;
  if (o == Py_True) return Kind::True;
  if (o == Py_False) return Kind::False;
  if (PySlice_Check(o)) return Kind::Slice;
  if (PyLong_Check(o)) return Kind::Int;
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    if (t.dim() == 0 && is_integral(t.dtype(), false)) return Kind::Int;
  } else if (PyIndex_Check(o)) {
    return Kind::Int;
  }
  EMBER_FAIL(Index, "only integers, slices (`:`), ellipsis (`...`), None and booleans are valid indices "
                    "(got ", type_name(o), "); indexing with tensors or lists (advanced indexing) is not available in this version");
}

Tensor apply_index(const Tensor& t, PyObject* index) {
  PyObject* items[64];
  Py_ssize_t n;
  if (PyTuple_Check(index)) {
    n = PyTuple_GET_SIZE(index);
    EMBER_CHECK(n <= 64, Index, "too many indices (", n, ")");
    for (Py_ssize_t i = 0; i < n; i++) items[i] = PyTuple_GET_ITEM(index, i);
  } else {
    n = 1;
    items[0] = index;
  }
  Kind kinds[64];
  int64_t consumed = 0, ellipses = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    kinds[i] = classify(items[i]);
    if (kinds[i] == Kind::Int || kinds[i] == Kind::Slice) consumed++;
    if (kinds[i] == Kind::Ellipsis) ellipses++;
  }
  EMBER_CHECK(ellipses <= 1, Index, "an index can only have a single ellipsis ('...')");
  EMBER_CHECK(consumed <= t.dim(), Index, "too many indices for tensor of dimension ", t.dim(), " (got ", consumed, ")");
  DimVec sizes, strides;
  int64_t offset = t.offset(), d = 0;
  const DimVec &ts = t.sizes(), &tst = t.strides();
  for (Py_ssize_t i = 0; i < n; i++) {
    switch (kinds[i]) {
      case Kind::None:
      case Kind::True:
      case Kind::False:  // a new dim of size 0, strided as an unsqueezed one would be
        sizes.push_back(kinds[i] == Kind::False ? 0 : 1);
        strides.push_back(d < t.dim() ? tst[d] * ts[d] : 1);
        break;
      case Kind::Ellipsis:
        for (int64_t k = 0; k < t.dim() - consumed; k++, d++) {
          sizes.push_back(ts[d]);
          strides.push_back(tst[d]);
        }
        break;
      case Kind::Int: {
        int64_t v = is_tensor(items[i]) ? to_scalar(items[i]).to_int() : to_int64(items[i], "index");
        int64_t size = ts[d];
        EMBER_CHECK(v >= -size && v < size, Index, "index ", v, " is out of bounds for dimension ", d, " with size ", size);
        if (v < 0) v += size;
        offset += v * tst[d];
        d++;
        break;
      }
      case Kind::Slice: {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(items[i], &start, &stop, &step) < 0) throw PythonError();
        EMBER_CHECK(step > 0, Value, "step must be greater than zero (negative-step slices are not supported; use flip)");
        Py_ssize_t len = PySlice_AdjustIndices(ts[d], &start, &stop, step);
        sizes.push_back(len);
        strides.push_back(tst[d] * step);
        if (len > 0) offset += start * tst[d];
        d++;
        break;
      }
    }
  }
  for (; d < t.dim(); d++) {
    sizes.push_back(ts[d]);
    strides.push_back(tst[d]);
  }
  return make_view(t, sizes, strides, offset);
}

PyObject* getitem(PyObject* self, PyObject* index) {
  EMBER_PY_BEGIN
  return wrap(apply_index(unwrap(self), index));
  EMBER_PY_END(nullptr)
}

int setitem(PyObject* self, PyObject* index, PyObject* value) {
  EMBER_PY_BEGIN
  EMBER_CHECK(value != nullptr, Type, "Tensor does not support item deletion");
  Tensor dst = apply_index(unwrap(self), index);
  if (is_tensor(value)) {
    // Leading size-1 dims of the value beyond the destination's dims are dropped (t[0] = row[None]).
    Tensor v = unwrap(value);
    int64_t lead = 0;
    while (v.dim() - lead > dst.dim() && v.sizes()[lead] == 1) lead++;
    if (lead) {
      DimVec sz(v.sizes().begin() + lead, v.sizes().end()), st(v.strides().begin() + lead, v.strides().end());
      v = make_view(v, sz, st, v.offset());
    }
    copy_(dst, v);
  } else if (is_number(value)) {
    // The number must fit the dtype (300 into uint8 is refused); floats may round to inf.
    const Scalar s = to_scalar(value);
    check_scalar_fits(s, dst.dtype(), false);
    fill_(dst, s);
  } else {
    EMBER_FAIL(Type, "can't assign a ", type_name(value), " to a tensor (expected a Tensor or a number)");
  }
  return 0;
  EMBER_PY_END(-1)
}

}  // namespace

void add_indexing_slots(std::vector<PyType_Slot>& s) {
  s.push_back({Py_mp_subscript, (void*)getitem});
  s.push_back({Py_mp_ass_subscript, (void*)setitem});
}

}  // namespace ember::py
