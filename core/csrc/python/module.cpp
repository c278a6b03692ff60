// ember._C: creates the core types, registers the generated op bindings (vectorcall, see
// arg_parser.h) and the non-op utilities (dtype defaults, threads) through the same parser.
#include <pybind11/pybind11.h>

#include <string>

#include "base/determinism.h"
#include "device/allocator.h"
#include "device/cpu_features.h"
#include "device/default_device.h"
#include "device/denormal.h"
#include "device/parallel.h"
#include "kernels/cpu/gemm_bf16.h"
#include "python/arg_parser.h"
#include "python/autograd_python.h"
#include "python/binding_util.h"
#include "python/creation.h"
#include "python/generator_object.h"
#include "python/memory_format.h"
#include "python/objects.h"
#include "python/parsed_fn.h"
#include "python/py_errors.h"
#include "python/py_linalg_error.h"
#include "python/return_types.h"
#include "python/storage.h"
#include "python/tensor_methods.h"
#include "python/torch_function.h"
#include "types/promotion.h"

namespace pyb = pybind11;
using namespace ember;
using namespace ember::py;

namespace ember::py {
extern PyTypeObject* SparseTensorClass;                    // arg_parser.cpp: the ops' parsers refuse its instances
void add_autocast_functions(std::vector<PyMethodDef>& v);  // autocast_module.cpp
void add_jit_module(pybind11::module_& m);                 // jit_module.cpp
void add_ddp_module(pybind11::module_& m);                 // ddp_reducer.cpp
}  // namespace ember::py

namespace {

ScalarType dtype_arg(PyObject* o) {
  EMBER_CHECK(is_dtype(o), Type, "expected an ember.dtype, got ", type_name(o));
  return reinterpret_cast<DTypeObject*>(o)->st;
}
PyObject* dtype_obj(ScalarType t) { return Py_NewRef(dtype_object(t)); }

void add_operand(ResultTypeState& st, PyObject* o) {
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    st.add(t.dtype(), t.dim(), t.is_wrapped_number());
  } else if (is_number(o)) {
    st.add(to_scalar(o).natural_dtype(), 0, true);
  } else {
    EMBER_FAIL(Type, "result_type(): expected a Tensor or a Number, got ", type_name(o));
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

// Registers a Python class the core instantiates; it must subclass `base` (when given).
PyObject* set_class(PyObject*& slot, PyObject* cls, PyTypeObject* base, const char* what) {
  EMBER_CHECK(PyType_Check(cls) && (!base || PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), base)), Type, what,
              " must be a class", base ? " derived from " : "", base ? base->tp_name : "", ", got ", type_name(cls));
  Py_XSETREF(slot, Py_NewRef(cls));
  Py_RETURN_NONE;
}

PyObject* g_tensor_class = nullptr;
PyObject* g_sparse_tensor_class = nullptr;

EMBER_FN(_set_tensor_class, "_set_tensor_class(object cls)",
         PyObject* res = set_class(g_tensor_class, r.object(0), TensorBaseType, "the tensor class");
         TensorClass = reinterpret_cast<PyTypeObject*>(g_tensor_class); return res;)
EMBER_FN(_set_sparse_tensor_class, "_set_sparse_tensor_class(object cls)",
         PyObject* res = set_class(g_sparse_tensor_class, r.object(0), TensorClass, "the sparse tensor class");
         SparseTensorClass = reinterpret_cast<PyTypeObject*>(g_sparse_tensor_class); return res;)
EMBER_FN(_set_size_class, "_set_size_class(object cls)",
         return set_class(SizeClass, r.object(0), &PyTuple_Type, "the size class");)
EMBER_FN(_set_zero_division_error, "_set_zero_division_error(object cls)",
         return set_class(ZeroDivisionRuntimeError, r.object(0),
                          reinterpret_cast<PyTypeObject*>(PyExc_ZeroDivisionError), "the zero-division error class");)
EMBER_FN(_set_out_of_memory_error, "_set_out_of_memory_error(object cls)",
         return set_class(OutOfMemoryErrorClass, r.object(0), reinterpret_cast<PyTypeObject*>(PyExc_MemoryError),
                          "the out-of-memory error class");)
EMBER_FN(_set_linalg_error, "_set_linalg_error(object cls)",
         return set_class(LinAlgErrorClass, r.object(0), reinterpret_cast<PyTypeObject*>(PyExc_RuntimeError),
                          "the linalg error class");)
EMBER_FN(get_num_threads, "get_num_threads()", return PyLong_FromLong(get_num_threads());)
EMBER_FN(set_num_threads, "set_num_threads(int num)", int64_t n = r.int64(0);
         EMBER_CHECK(n > 0 && n <= 65536, Value, "set_num_threads expects a positive integer (at most 65536), got ", n);
         set_num_threads(int(n)); Py_RETURN_NONE;)
EMBER_FN(_num_threads_env_warning, "_num_threads_env_warning()",
         return PyUnicode_FromString(num_threads_env_warning().c_str());)
EMBER_FN(get_num_interop_threads, "get_num_interop_threads()", return PyLong_FromLong(get_num_interop_threads());)
EMBER_FN(set_num_interop_threads, "set_num_interop_threads(int num)", int64_t n = r.int64(0);
         EMBER_CHECK(n > 0 && n <= 65536, Runtime, "set_num_interop_threads expects a positive integer");
         set_num_interop_threads(int(n)); Py_RETURN_NONE;)
EMBER_FN(_set_parallel_grain_cap, "_set_parallel_grain_cap(int cap)",
         return PyLong_FromLongLong(set_parallel_grain_cap(r.int64(0)));)
EMBER_FN(set_flush_denormal, "set_flush_denormal(bool mode)", return PyBool_FromLong(set_flush_denormal(r.boolean(0)));)
EMBER_FN(_parallel_jobs_run, "_parallel_jobs_run()", return PyLong_FromLongLong(team_jobs_run());)
// The factories' default device (ember.set_default_device keeps the device it was given for display).
EMBER_FN(_get_default_device, "_get_default_device()", return device_object(default_device());)
EMBER_FN(_set_default_device, "_set_default_device(Device device)", set_default_device(*r.device(0)); Py_RETURN_NONE;)
EMBER_FN(get_default_dtype, "get_default_dtype()", return dtype_obj(default_dtype());)
EMBER_FN(set_default_dtype, "set_default_dtype(object d)", set_default_dtype(dtype_arg(r.object(0))); Py_RETURN_NONE;)
EMBER_FN(promote_types, "promote_types(object type1, object type2)",
         return dtype_obj(promote_types(dtype_arg(r.object(0)), dtype_arg(r.object(1))));)
EMBER_FN(can_cast, "can_cast(object from_, object to)",
         return PyBool_FromLong(can_cast(dtype_arg(r.object(0)), dtype_arg(r.object(1))));)
EMBER_FN(result_type, "result_type(object tensor1, object tensor2)", ResultTypeState st; add_operand(st, r.object(0));
         add_operand(st, r.object(1)); return dtype_obj(st.result());)
EMBER_FN(_cpu_empty_cache, "_cpu_empty_cache()", cpu_empty_cache(); Py_RETURN_NONE;)
EMBER_FN(_cpu_cached_bytes, "_cpu_cached_bytes()", return PyLong_FromSize_t(cpu_cached_bytes());)
EMBER_FN(_set_fill_uninitialized_memory, "_set_fill_uninitialized_memory(bool on)",
         set_fill_uninitialized_memory(r.boolean(0));
         Py_RETURN_NONE;)
// The AVX512_BF16 bfloat16 products (kernels/cpu/gemm_bf16.h): tests turn them off to reach the float32 fallback.
EMBER_FN(_set_bf16_gemm_enabled, "_set_bf16_gemm_enabled(bool on)",
         return PyBool_FromLong(bf16gemm::set_enabled(r.boolean(0)));)
EMBER_FN(_bf16_gemm_available, "_bf16_gemm_available()", return PyBool_FromLong(bf16gemm::available());)
// The widest vector ISA the kernels' run-time dispatch picks (ember.backends.cpu.get_cpu_capability).
EMBER_FN(_cpu_capability, "_cpu_capability()",
         return PyUnicode_FromString(cpu_has_avx512() ? "AVX512" : (cpu_has_avx2() ? "AVX2" : "DEFAULT"));)

#undef EMBER_FN

// A list of the names in a null-terminated PyMethodDef table (its public ones only when asked).
PyObject* def_names(const std::vector<PyMethodDef>& defs, bool public_only) {
  PyObject* names = PyList_New(0);
  for (size_t i = 0; names && i < defs.size() && defs[i].ml_name; i++) {
    if (public_only && defs[i].ml_name[0] == '_') continue;
    PyObject* s = PyUnicode_FromString(defs[i].ml_name);
    if (!s || PyList_Append(names, s) < 0) Py_CLEAR(names);
    Py_XDECREF(s);
  }
  return names;
}

// ember._C._linalg, _special, _fft, _nn: the ops of each namespace under their names without the
// prefix, with __all__, in sys.modules so `from ember._C._linalg import *` works. The tables are
// static: a module's functions point into them.
void add_namespace_modules(PyObject* mod) {
  static auto subs = generated_namespace_functions();
  std::string base = PyModule_GetName(mod);
  for (auto& [name, defs] : subs) {
    defs.push_back({nullptr, nullptr, 0, nullptr});
    std::string full = base + "." + name;
    PyObject* sub = PyModule_New(full.c_str());
    if (!sub) throw pyb::error_already_set();
    PyObject* all = def_names(defs, false);
    bool ok = all && PyModule_AddFunctions(sub, defs.data()) == 0 && PyModule_AddObject(sub, "__all__", all) == 0 &&
              PyModule_AddObjectRef(mod, name, sub) == 0 &&
              PyDict_SetItemString(PyImport_GetModuleDict(), full.c_str(), sub) == 0;
    Py_DECREF(sub);
    if (!ok) throw pyb::error_already_set();
  }
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  pyb::register_exception_translator(&translate);
  PyObject* mod = m.ptr();
  if (!init_dtype_type(mod) || !init_device_type(mod) || !init_tensor_type(mod)) throw pyb::error_already_set();
  if (!init_generator_type(mod) || !init_node_type(mod)) throw pyb::error_already_set();

  add_generated_return_types();
  if (PyModule_AddObjectRef(mod, "_return_types", return_types_dict()) < 0) throw pyb::error_already_set();
  static std::vector<PyMethodDef> functions;
  add_generated_functions(functions);
  // __all__: the top-level ops of the op database, what `from ._C import *` gives ember.
  functions.push_back({nullptr, nullptr, 0, nullptr});
  PyObject* top_level_ops = def_names(functions, true);
  functions.pop_back();
  if (!top_level_ops || PyModule_AddObject(mod, "__all__", top_level_ops) < 0) throw pyb::error_already_set();
  add_namespace_modules(mod);
  add_jit_module(m);
  add_ddp_module(m);
  add_data_creation_functions(functions);
  add_op_table_functions(functions);
  add_storage_functions(functions);
  add_autograd_functions(functions);
  add_forward_ad_functions(functions);
  add_callgrind_functions(functions);  // python/callgrind_region.cpp
  add_profiler_functions(functions);   // python/profiler_module.cpp
  add_memory_format_functions(functions);
  add_torch_function_functions(functions);
  add_autocast_functions(functions);
  for (auto [name, f] : std::initializer_list<std::pair<const char*, decltype(&fn_get_num_threads)>>{
           {"_set_tensor_class", fn__set_tensor_class},
           {"_set_sparse_tensor_class", fn__set_sparse_tensor_class},
           {"_set_size_class", fn__set_size_class},
           {"_set_zero_division_error", fn__set_zero_division_error},
           {"_set_linalg_error", fn__set_linalg_error},
           {"_set_out_of_memory_error", fn__set_out_of_memory_error},
           {"get_num_threads", fn_get_num_threads},
           {"set_num_threads", fn_set_num_threads},
           {"set_flush_denormal", fn_set_flush_denormal},
           {"get_num_interop_threads", fn_get_num_interop_threads},
           {"set_num_interop_threads", fn_set_num_interop_threads},
           {"_num_threads_env_warning", fn__num_threads_env_warning},
           {"_set_parallel_grain_cap", fn__set_parallel_grain_cap},
           {"_parallel_jobs_run", fn__parallel_jobs_run},
           {"_set_bf16_gemm_enabled", fn__set_bf16_gemm_enabled},
           {"_bf16_gemm_available", fn__bf16_gemm_available},
           {"_get_default_device", fn__get_default_device},
           {"_set_default_device", fn__set_default_device},
           {"get_default_dtype", fn_get_default_dtype},
           {"set_default_dtype", fn_set_default_dtype},
           {"promote_types", fn_promote_types},
           {"can_cast", fn_can_cast},
           {"result_type", fn_result_type},
           {"_cpu_empty_cache", fn__cpu_empty_cache},
           {"_cpu_cached_bytes", fn__cpu_cached_bytes},
           {"_cpu_capability", fn__cpu_capability},
           {"_set_fill_uninitialized_memory", fn__set_fill_uninitialized_memory}})
    functions.push_back({name, FASTCALL(f), nullptr});
  functions.push_back({nullptr, nullptr, 0, nullptr});
  if (PyModule_AddFunctions(mod, functions.data()) < 0) throw pyb::error_already_set();
}
