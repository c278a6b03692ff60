// ember._C's autocast state functions (this thread's CPU autocast flag, dtype, weight-cast cache and
// nesting); ember.amp and the top-level ember.*autocast* functions wrap them with PyTorch's arguments.
#include "amp/autocast_state.h"
#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/objects.h"
#include "python/parsed_fn.h"
#include "python/py_errors.h"
#include "python/tensor_methods.h"

namespace ember::py {

namespace {

EMBER_FN(_autocast_cpu_enabled, "_autocast_cpu_enabled()", return PyBool_FromLong(amp::tls_state().cpu_enabled);)
EMBER_FN(_set_autocast_cpu_enabled, "_set_autocast_cpu_enabled(bool enabled)",
         amp::tls_state().cpu_enabled = r.boolean(0);
         Py_RETURN_NONE;)
EMBER_FN(_autocast_cpu_dtype, "_autocast_cpu_dtype()", return Py_NewRef(dtype_object(amp::tls_state().cpu_dtype));)
EMBER_FN(_set_autocast_cpu_dtype, "_set_autocast_cpu_dtype(ScalarType dtype)", amp::tls_state().cpu_dtype = r.dtype(0);
         Py_RETURN_NONE;)
EMBER_FN(_autocast_cache_enabled, "_autocast_cache_enabled()", return PyBool_FromLong(amp::tls_state().cache_enabled);)
EMBER_FN(_set_autocast_cache_enabled, "_set_autocast_cache_enabled(bool enabled)",
         amp::tls_state().cache_enabled = r.boolean(0);
         Py_RETURN_NONE;)
EMBER_FN(_autocast_increment_nesting, "_autocast_increment_nesting()",
         return PyLong_FromLongLong(++amp::tls_state().nesting);)
EMBER_FN(_autocast_decrement_nesting, "_autocast_decrement_nesting()",
         return PyLong_FromLongLong(--amp::tls_state().nesting);)
EMBER_FN(_clear_autocast_cache, "_clear_autocast_cache()", amp::clear_cache(); Py_RETURN_NONE;)
// One argument cast as the op wrappers cast theirs (eligibility, weight cache), for ops written in Python.
EMBER_FN(_autocast_cast, "_autocast_cast(Tensor input, ScalarType dtype)",
         return wrap(amp::cached_cast(r.dtype(1), r.tensor(0)));)
EMBER_FN(_autocast_cache_size, "_autocast_cache_size()", return PyLong_FromSize_t(amp::cache_size());)

#undef EMBER_FN

}  // namespace

void add_autocast_functions(std::vector<PyMethodDef>& v) {
  for (auto [name, f] : std::initializer_list<std::pair<const char*, decltype(&fn__autocast_cpu_enabled)>>{
           {"_autocast_cpu_enabled", fn__autocast_cpu_enabled},
           {"_set_autocast_cpu_enabled", fn__set_autocast_cpu_enabled},
           {"_autocast_cpu_dtype", fn__autocast_cpu_dtype},
           {"_set_autocast_cpu_dtype", fn__set_autocast_cpu_dtype},
           {"_autocast_cache_enabled", fn__autocast_cache_enabled},
           {"_set_autocast_cache_enabled", fn__set_autocast_cache_enabled},
           {"_autocast_increment_nesting", fn__autocast_increment_nesting},
           {"_autocast_decrement_nesting", fn__autocast_decrement_nesting},
           {"_clear_autocast_cache", fn__clear_autocast_cache},
           {"_autocast_cast", fn__autocast_cast},
           {"_autocast_cache_size", fn__autocast_cache_size}})
    v.push_back({name, FASTCALL(f), nullptr});
}

}  // namespace ember::py
