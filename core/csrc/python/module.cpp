// ember._C: creates the core types, registers the generated op bindings (vectorcall, see
// arg_parser.h) and binds the non-op utilities with pybind11.
#include <pybind11/pybind11.h>

#include "device/allocator.h"
#include "device/parallel.h"
#include "python/arg_parser.h"
#include "python/creation.h"
#include "python/objects.h"
#include "python/py_errors.h"
#include "python/tensor_methods.h"
#include "types/promotion.h"

namespace pyb = pybind11;
using namespace ember;
using namespace ember::py;

namespace {

ScalarType dtype_arg(pyb::handle h) {
  EMBER_CHECK(is_dtype(h.ptr()), Type, "expected an ember.dtype, got ", type_name(h.ptr()));
  return reinterpret_cast<DTypeObject*>(h.ptr())->st;
}
pyb::object dtype_obj(ScalarType t) { return pyb::reinterpret_borrow<pyb::object>(dtype_object(t)); }

void add_operand(ResultTypeState& st, pyb::handle h) {
  if (is_tensor(h.ptr())) {
    const Tensor& t = unwrap(h.ptr());
    st.add(t.dtype(), t.dim(), t.is_wrapped_number());
  } else if (is_number(h.ptr())) {
    st.add(to_scalar(h.ptr()).natural_dtype(), 0, true);
  } else {
    EMBER_FAIL(Type, "result_type(): expected a Tensor or a Number, got ", type_name(h.ptr()));
  }
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const ember::Error&) {
    try {
      std::rethrow_exception(p);
    } catch (...) {
      set_python_error();
    }
  } catch (const PythonError&) {
  }
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  pyb::register_exception_translator(&translate);
  PyObject* mod = m.ptr();
  if (!init_dtype_type(mod) || !init_device_type(mod) || !init_tensor_type(mod)) throw pyb::error_already_set();

  static std::vector<PyMethodDef> functions;
  add_generated_functions(functions);
  add_data_creation_functions(functions);
  functions.push_back({nullptr, nullptr, 0, nullptr});
  if (PyModule_AddFunctions(mod, functions.data()) < 0) throw pyb::error_already_set();

  m.def("_set_tensor_class", [](pyb::handle cls) {
    TensorClass = reinterpret_cast<PyTypeObject*>(cls.inc_ref().ptr());
  });
  m.def("_set_size_class", [](pyb::handle cls) { SizeClass = cls.inc_ref().ptr(); });
  m.def("_set_zero_division_error", [](pyb::handle cls) { ZeroDivisionRuntimeError = cls.inc_ref().ptr(); });
  m.def("get_num_threads", &get_num_threads);
  m.def("set_num_threads", &set_num_threads, pyb::arg("num"));
  m.def("get_default_dtype", [] { return dtype_obj(default_dtype()); });
  m.def("set_default_dtype", [](pyb::handle d) { set_default_dtype(dtype_arg(d)); }, pyb::arg("d"));
  m.def("promote_types", [](pyb::handle a, pyb::handle b) { return dtype_obj(promote_types(dtype_arg(a), dtype_arg(b))); },
        pyb::arg("type1"), pyb::arg("type2"));
  m.def("can_cast", [](pyb::handle a, pyb::handle b) { return can_cast(dtype_arg(a), dtype_arg(b)); },
        pyb::arg("from_"), pyb::arg("to"));
  m.def("result_type", [](pyb::handle a, pyb::handle b) {
        ResultTypeState st;
        add_operand(st, a);
        add_operand(st, b);
        return dtype_obj(st.result());
      }, pyb::arg("tensor1"), pyb::arg("tensor2"));
  m.def("_cpu_empty_cache", &cpu_empty_cache);
  m.def("_cpu_cached_bytes", &cpu_cached_bytes);
}
