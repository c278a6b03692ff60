// t[...] and t[...] = v: basic indices (integers, slices, None, Ellipsis, bools) give a view and
// write through it; integer tensors, lists, NumPy arrays and bool masks add advanced indexing,
// which reads into a new tensor and writes with index_put semantics (see indexing_parse.cpp).
#include "autograd/indexing.h"

#include <Python.h>

#include "autograd/formulas.h"
#include "iter/copy.h"
#include "kernels/cpu/index_advanced.h"
#include "python/arg_parser.h"
#include "python/indexing.h"
#include "python/py_errors.h"
#include "python/tensor_methods.h"
#include "python/torch_function.h"
#include "types/scalar_fits.h"

namespace ember::py {

namespace {

// The basic-index view of t, made known to autograd: recorded as an as_strided view when t
// requires grad, and marked as a view of t's base otherwise (so a later write through it that
// requires grad reaches the base).
Tensor recorded_view(const Tensor& t, const Tensor& view) {
  if (view.is_same(t)) return view;
  if (autograd::forward::any_tangent({t}) || (autograd::GradMode::is_enabled() && autograd::requires_grad(t)))
    return ad::as_strided(t, view.sizes(), view.strides(), view.offset());
  if (!autograd::GradMode::is_enabled()) return view;
  autograd::mark_view(view, t);
  return view;
}

// Whether self, the index or the value asks for __torch_function__ (slices and Ellipsis are plain).
bool index_overridden(PyObject* o) {
  return !torch_function_plain(o) && !PySlice_Check(o) && o != Py_Ellipsis && torch_function_slow(o);
}

PyObject* getitem(PyObject* self, PyObject* index) {
  if (index_overridden(self) || index_overridden(index))
    return torch_function_dispatch("__getitem__", "", true, self, &index, 1, nullptr);
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  const bool grad_mode = autograd::GradMode::is_enabled();
  // t[mask] with a mask of t's whole shape: one pass that copies the selected elements.
  if (is_tensor(index) && !(grad_mode && autograd::requires_grad(t)) && !autograd::forward::any_tangent({t})) {
    const Tensor& m = unwrap(index);
    if (m.dtype() == ScalarType::Bool && m.dim() > 0 && m.sizes() == t.sizes() && !m.is_meta() && !t.is_meta() &&
        m.device() == t.device())
      return wrap(masked_compact(t, m));
  }
  ParsedIndex p = parse_index(t, index);
  Tensor view = recorded_view(t, p.view);
  if (!p.advanced) return wrap(view);
  return wrap(ad::advanced_index(view, p.indices, &p.labels));
  EMBER_PY_END(nullptr)
}

// A tensor with leading size-1 dims dropped until it has at most `ndim` dims (t[0] = row[None]).
Tensor drop_leading_ones(Tensor v, int64_t ndim) {
  int64_t lead = 0;
  while (v.dim() - lead > ndim && v.sizes()[lead] == 1) lead++;
  if (!lead) return v;
  return ad::reshape(v, DimVec(v.sizes().begin() + lead, v.sizes().end()));
}

int setitem(PyObject* self, PyObject* index, PyObject* value) {
  if (value && (index_overridden(self) || index_overridden(index) || index_overridden(value))) {
    PyObject* args[] = {index, value};
    PyObject* r = torch_function_dispatch("__setitem__", "", true, self, args, 2, nullptr);
    Py_XDECREF(r);
    return r ? 0 : -1;
  }
  EMBER_PY_BEGIN
  EMBER_CHECK(value != nullptr, Type, "Tensor does not support item deletion");
  const Tensor& t = unwrap(self);
  Tensor v;
  if (is_tensor(value)) {
    v = unwrap(value);
  } else if (is_number(value)) {
    // The number must fit the dtype (300 into uint8 is refused); floats may round to inf.
    const Scalar s = to_scalar(value);
    check_scalar_fits(s, t.dtype(), false);
    v = scalar_tensor(s, t.dtype(), t.device());
  } else {
    EMBER_FAIL(Type, "can't assign a ", type_name(value), " to a tensor (expected a Tensor or a number)");
  }
  // PyTorch writes a number through a single mask with masked_fill_, which takes only bool masks.
  PyObject* only = PyTuple_Check(index) && PyTuple_GET_SIZE(index) == 1 ? PyTuple_GET_ITEM(index, 0) : index;
  EMBER_CHECK(!(is_tensor(only) && unwrap(only).dtype() == ScalarType::UInt8 && v.dim() == 0), Runtime,
              "masked_fill_ only supports boolean masks, but got mask with dtype uint8");
  ParsedIndex p = parse_index(t, index);
  Tensor view = recorded_view(t, p.view);
  if (!p.advanced) {
    if ((autograd::GradMode::is_enabled() && (autograd::requires_grad(view) || autograd::requires_grad(v))) ||
        autograd::forward::any_tangent({view, v}))
      ad::copy_(view, drop_leading_ones(v, view.dim()), false);
    else
      copy_(view, drop_leading_ones(v, view.dim()));
    return 0;
  }
  // One bool mask and a 0-dim value is PyTorch's masked_fill_, which does not check overlap.
  const bool masked_fill = is_tensor(only) && unwrap(only).dtype() == ScalarType::Bool && v.dim() == 0;
  if (!masked_fill) check_index_put_overlap(view, p.indices, v);
  ad::advanced_index_put_(view, p.indices, v, false, &p.labels);
  return 0;
  EMBER_PY_END(-1)
}

}  // namespace

void add_indexing_slots(std::vector<PyType_Slot>& s) {
  s.push_back({Py_mp_subscript, (void*)getitem});
  s.push_back({Py_mp_ass_subscript, (void*)setitem});
}

}  // namespace ember::py
