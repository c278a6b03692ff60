// Python operators on tensors (+, -, *, /, //, %, **, unary, bitwise, comparisons, truth value),
// wired straight into the type's number slots so `a + b` skips method lookup and argument parsing.
#include <Python.h>

#include "amp/autocast_state.h"
#include "generated/amp/autocast_ops.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/bitwise_and.h"
#include "generated/ops/bitwise_left_shift.h"
#include "generated/ops/bitwise_not.h"
#include "generated/ops/bitwise_or.h"
#include "generated/ops/bitwise_right_shift.h"
#include "generated/ops/bitwise_xor.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/floor_divide.h"
#include "generated/ops/ge.h"
#include "generated/ops/gt.h"
#include "generated/ops/le.h"
#include "generated/ops/lt.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/neg.h"
#include "generated/ops/pow.h"
#include "generated/ops/remainder.h"
#include "generated/ops/sub.h"
#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/creation.h"
#include "python/py_errors.h"
#include "python/tensor_methods.h"
#include "python/torch_function.h"
#include "python/trace_operator.h"

namespace ember::py {

namespace {

// Operand conversion: tensors as they are, numbers wrapped; anything else -> NotImplemented.
bool operand(PyObject* o, Tensor& out) {
  if (is_tensor(o)) {
    out = unwrap(o);
    return true;
  }
  if (PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) || is_number(o)) {  // NumPy scalars too
    out = wrapped_scalar(to_scalar(o));
    return true;
  }
  return false;
}

// Operands other than plain tensors and numbers that define __torch_function__ get the operator as
// Tensor.<name>(a, b), or Tensor.<rname>(b, a) when the tensor is the right operand.
bool operator_overridden(PyObject* a, PyObject* b) {
  return (!torch_function_plain(a) && torch_function_slow(a)) || (!torch_function_plain(b) && torch_function_slow(b));
}
PyObject* operator_dispatch(PyObject* a, PyObject* b, const char* name, const char* rname) {
  if (is_tensor(a) || !rname) return torch_function_dispatch(name, "", true, a, &b, 1, nullptr);
  return torch_function_dispatch(rname, "", true, b, &a, 1, nullptr);
}

template <class F>
PyObject* binary(PyObject* a, PyObject* b, const char* name, const char* rname, F f) {
  if (operator_overridden(a, b)) return operator_dispatch(a, b, name, rname);
  EMBER_PY_BEGIN
  Tensor x, y;
  if (!operand(a, x) || !operand(b, y)) Py_RETURN_NOTIMPLEMENTED;
  trace::Scope recorded(trace::on(trace::kOps) ? trace_operator(name, a, b) : -1);
  return wrap(f(x, y));
  EMBER_PY_END(nullptr)
}

template <class F>
PyObject* inplace(PyObject* a, PyObject* b, const char* name, F f) {
  if (is_tensor(a) && operator_overridden(a, b)) return operator_dispatch(a, b, name, nullptr);
  EMBER_PY_BEGIN
  Tensor y;
  if (!is_tensor(a) || !operand(b, y)) Py_RETURN_NOTIMPLEMENTED;
  trace::Scope recorded(trace::on(trace::kOps) ? trace_operator(name, a, b) : -1);
  return wrap(f(unwrap(a), y));
  EMBER_PY_END(nullptr)
}

template <class F>
PyObject* unary(PyObject* a, const char* name, F f) {
  if (!torch_function_plain(a) && torch_function_slow(a))
    return torch_function_dispatch(name, "", true, a, nullptr, 0, nullptr);
  EMBER_PY_BEGIN
  trace::Scope recorded(trace::on(trace::kOps) ? trace_operator(name, a, nullptr) : -1);
  return wrap(f(unwrap(a)));
  EMBER_PY_END(nullptr)
}

PyObject* nb_add(PyObject* a, PyObject* b) {
  return binary(a, b, "__add__", "__radd__", [](const Tensor& x, const Tensor& y) { return ad::add(x, y, 1); });
}
PyObject* nb_sub(PyObject* a, PyObject* b) {
  return binary(a, b, "__sub__", "__rsub__", [](const Tensor& x, const Tensor& y) { return ad::sub(x, y, 1); });
}
PyObject* nb_mul(PyObject* a, PyObject* b) {
  return binary(a, b, "__mul__", "__rmul__", [](const Tensor& x, const Tensor& y) { return ad::mul(x, y); });
}
PyObject* nb_div(PyObject* a, PyObject* b) {
  return binary(a, b, "__truediv__", "__rtruediv__",
                [](const Tensor& x, const Tensor& y) { return ad::div(x, y, std::nullopt); });
}
PyObject* nb_floordiv(PyObject* a, PyObject* b) {
  return binary(a, b, "__floordiv__", "__rfloordiv__",
                [](const Tensor& x, const Tensor& y) { return ad::floor_divide(x, y); });
}
PyObject* nb_mod(PyObject* a, PyObject* b) {
  return binary(a, b, "__mod__", "__rmod__", [](const Tensor& x, const Tensor& y) { return ad::remainder(x, y); });
}
PyObject* nb_pow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary(a, b, "__pow__", "__rpow__", [](const Tensor& x, const Tensor& y) { return ad::pow(x, y); });
}
PyObject* nb_and(PyObject* a, PyObject* b) {
  return binary(a, b, "__and__", "__rand__", [](const Tensor& x, const Tensor& y) { return ad::bitwise_and(x, y); });
}
PyObject* nb_or(PyObject* a, PyObject* b) {
  return binary(a, b, "__or__", "__ror__", [](const Tensor& x, const Tensor& y) { return ad::bitwise_or(x, y); });
}
PyObject* nb_xor(PyObject* a, PyObject* b) {
  return binary(a, b, "__xor__", "__rxor__", [](const Tensor& x, const Tensor& y) { return ad::bitwise_xor(x, y); });
}
PyObject* nb_lshift(PyObject* a, PyObject* b) {
  return binary(a, b, "__lshift__", "__rlshift__",
                [](const Tensor& x, const Tensor& y) { return ad::bitwise_left_shift(x, y); });
}
PyObject* nb_rshift(PyObject* a, PyObject* b) {
  return binary(a, b, "__rshift__", "__rrshift__",
                [](const Tensor& x, const Tensor& y) { return ad::bitwise_right_shift(x, y); });
}

PyObject* nb_iadd(PyObject* a, PyObject* b) {
  return inplace(a, b, "__iadd__", [](const Tensor& x, const Tensor& y) { return ad::add_(x, y, 1); });
}
PyObject* nb_isub(PyObject* a, PyObject* b) {
  return inplace(a, b, "__isub__", [](const Tensor& x, const Tensor& y) { return ad::sub_(x, y, 1); });
}
PyObject* nb_imul(PyObject* a, PyObject* b) {
  return inplace(a, b, "__imul__", [](const Tensor& x, const Tensor& y) { return ad::mul_(x, y); });
}
PyObject* nb_idiv(PyObject* a, PyObject* b) {
  return inplace(a, b, "__itruediv__", [](const Tensor& x, const Tensor& y) { return ad::div_(x, y, std::nullopt); });
}
PyObject* nb_ifloordiv(PyObject* a, PyObject* b) {
  return inplace(a, b, "__ifloordiv__", [](const Tensor& x, const Tensor& y) { return ad::floor_divide_(x, y); });
}
PyObject* nb_imod(PyObject* a, PyObject* b) {
  return inplace(a, b, "__imod__", [](const Tensor& x, const Tensor& y) { return ad::remainder_(x, y); });
}
PyObject* nb_ipow(PyObject* a, PyObject* b, PyObject*) {
  return inplace(a, b, "__ipow__", [](const Tensor& x, const Tensor& y) { return ad::pow_(x, y); });
}
PyObject* nb_iand(PyObject* a, PyObject* b) {
  return inplace(a, b, "__iand__", [](const Tensor& x, const Tensor& y) { return ad::bitwise_and_(x, y); });
}
PyObject* nb_ior(PyObject* a, PyObject* b) {
  return inplace(a, b, "__ior__", [](const Tensor& x, const Tensor& y) { return ad::bitwise_or_(x, y); });
}
PyObject* nb_ixor(PyObject* a, PyObject* b) {
  return inplace(a, b, "__ixor__", [](const Tensor& x, const Tensor& y) { return ad::bitwise_xor_(x, y); });
}
PyObject* nb_ilshift(PyObject* a, PyObject* b) {
  return inplace(a, b, "__ilshift__", [](const Tensor& x, const Tensor& y) { return ad::bitwise_left_shift_(x, y); });
}
PyObject* nb_irshift(PyObject* a, PyObject* b) {
  return inplace(a, b, "__irshift__", [](const Tensor& x, const Tensor& y) { return ad::bitwise_right_shift_(x, y); });
}

// a @ b: tensors only (a Python number gives NotImplemented, so Python raises TypeError).
PyObject* nb_matmul(PyObject* a, PyObject* b) {
  if (operator_overridden(a, b)) return operator_dispatch(a, b, "__matmul__", "__rmatmul__");
  EMBER_PY_BEGIN
  if (!is_tensor(a) || !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  trace::Scope recorded(trace::on(trace::kOps) ? trace_operator("__matmul__", a, b) : -1);
  if (amp::cpu_active()) return wrap(amp::matmul(unwrap(a), unwrap(b)));  // matmul's autocast policy
  return wrap(ad::matmul(unwrap(a), unwrap(b)));
  EMBER_PY_END(nullptr)
}

PyObject* nb_neg(PyObject* a) {
  return unary(a, "__neg__", [](const Tensor& x) { return ad::neg(x); });
}
PyObject* nb_pos(PyObject* a) {
  EMBER_PY_BEGIN
  EMBER_CHECK(unwrap(a).dtype() != ScalarType::Bool, Runtime, "The `+` operator, on a bool tensor is not supported.");
  return Py_NewRef(a);
  EMBER_PY_END(nullptr)
}
PyObject* nb_abs(PyObject* a) {
  return unary(a, "__abs__", [](const Tensor& x) { return ad::abs(x); });
}
PyObject* nb_invert(PyObject* a) {
  return unary(a, "__invert__", [](const Tensor& x) { return ad::bitwise_not(x); });
}

const Tensor& one_element(PyObject* a, const char* what) {
  const Tensor& t = unwrap(a);
  EMBER_CHECK(t.numel() == 1, Runtime, what, " of Tensor with ", t.numel(),
              t.numel() ? " values is ambiguous" : " values is ambiguous (it is empty)");
  return t;
}

int nb_bool(PyObject* a) {
  EMBER_PY_BEGIN
  one_element(a, "Boolean value");
  return to_scalar(a).to_bool() ? 1 : 0;
  EMBER_PY_END(-1)
}
// float(t) / int(t): one element; a complex one only when its imaginary part is zero.
Scalar one_number(PyObject* a, const char* kind) {
  EMBER_CHECK(unwrap(a).numel() == 1, Value, "only one element tensors can be converted to Python scalars (got ",
              unwrap(a).numel(), " elements for ", kind, "())");
  Scalar s = to_scalar(a);
  EMBER_CHECK(!s.is_complex() || s.to_complex().imag() == 0, Runtime, "value cannot be converted to type ", kind,
              " without overflow (a complex number with a nonzero imaginary part)");
  return s;
}
PyObject* nb_float(PyObject* a) {
  EMBER_PY_BEGIN
  return PyFloat_FromDouble(one_number(a, "float").to_double());
  EMBER_PY_END(nullptr)
}
PyObject* nb_int(PyObject* a) {
  EMBER_PY_BEGIN
  Scalar s = one_number(a, "int");
  if (s.is_float() || s.is_complex()) return PyLong_FromDouble(s.to_double());
  return PyLong_FromLongLong(s.to_int());
  EMBER_PY_END(nullptr)
}
PyObject* nb_index(PyObject* a) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(a);
  EMBER_CHECK(t.numel() == 1 && is_integral(t.dtype(), true), Type,
              "only integer tensors of a single element can be converted to an index");
  return PyLong_FromLongLong(to_scalar(a).to_int());
  EMBER_PY_END(nullptr)
}

// A NumPy array (any strided buffer) compared with a tensor is read as a tensor: NumPy's reflected
// comparison would give up and Python would fall back to identity (t == array -> False).
// Arithmetic with arrays is left to NumPy, whose result comes back through Tensor.__array_wrap__.
bool array_operand(PyObject* o, Tensor& out) {
  if (is_tensor(o) || !PyObject_CheckBuffer(o) || PyBytes_Check(o) || PyByteArray_Check(o) || is_number(o))
    return false;
  bool readonly = false;  // only read here
  out = tensor_from_buffer(o, &readonly);
  return true;
}

PyObject* richcompare(PyObject* a, PyObject* b, int op) {
  static const char* const op_names[] = {"__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"};
  if (operator_overridden(a, b)) return operator_dispatch(a, b, op_names[op], nullptr);
  Tensor arr;
  bool converted = false;
  try {
    converted = array_operand(b, arr);
  } catch (const Error&) {
    converted = false;  // a dtype ember lacks: leave it to NumPy / Python
  } catch (const PythonError&) {
    PyErr_Clear();
    converted = false;
  }
  if (converted) {
    PyObject* holder = wrap(arr);
    PyObject* r = richcompare(a, holder, op);
    Py_DECREF(holder);
    return r;
  }
  return binary(a, b, op_names[op], nullptr, [op](const Tensor& x, const Tensor& y) {
    switch (op) {
      case Py_LT:
        return ad::lt(x, y);
      case Py_LE:
        return ad::le(x, y);
      case Py_GT:
        return ad::gt(x, y);
      case Py_GE:
        return ad::ge(x, y);
      case Py_EQ:
        return ad::eq(x, y);
      default:
        return ad::ne(x, y);
    }
  });
}

}  // namespace

void add_operator_slots(std::vector<PyType_Slot>& s) {
  s.insert(s.end(), {
                        {Py_nb_add, (void*)nb_add},
                        {Py_nb_subtract, (void*)nb_sub},
                        {Py_nb_multiply, (void*)nb_mul},
                        {Py_nb_true_divide, (void*)nb_div},
                        {Py_nb_floor_divide, (void*)nb_floordiv},
                        {Py_nb_remainder, (void*)nb_mod},
                        {Py_nb_power, (void*)nb_pow},
                        {Py_nb_and, (void*)nb_and},
                        {Py_nb_or, (void*)nb_or},
                        {Py_nb_xor, (void*)nb_xor},
                        {Py_nb_lshift, (void*)nb_lshift},
                        {Py_nb_rshift, (void*)nb_rshift},
                        {Py_nb_matrix_multiply, (void*)nb_matmul},
                        {Py_nb_inplace_add, (void*)nb_iadd},
                        {Py_nb_inplace_subtract, (void*)nb_isub},
                        {Py_nb_inplace_multiply, (void*)nb_imul},
                        {Py_nb_inplace_true_divide, (void*)nb_idiv},
                        {Py_nb_inplace_floor_divide, (void*)nb_ifloordiv},
                        {Py_nb_inplace_remainder, (void*)nb_imod},
                        {Py_nb_inplace_power, (void*)nb_ipow},
                        {Py_nb_inplace_and, (void*)nb_iand},
                        {Py_nb_inplace_or, (void*)nb_ior},
                        {Py_nb_inplace_xor, (void*)nb_ixor},
                        {Py_nb_inplace_lshift, (void*)nb_ilshift},
                        {Py_nb_inplace_rshift, (void*)nb_irshift},
                        {Py_nb_negative, (void*)nb_neg},
                        {Py_nb_positive, (void*)nb_pos},
                        {Py_nb_absolute, (void*)nb_abs},
                        {Py_nb_invert, (void*)nb_invert},
                        {Py_nb_bool, (void*)nb_bool},
                        {Py_nb_float, (void*)nb_float},
                        {Py_nb_int, (void*)nb_int},
                        {Py_nb_index, (void*)nb_index},
                        {Py_tp_richcompare, (void*)richcompare},
                    });
}

}  // namespace ember::py
