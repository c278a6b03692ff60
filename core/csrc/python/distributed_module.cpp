// ember._distributed_C: the store and process-group bindings behind
// ember.distributed (a module of its own, so libember and ember._C neither link
// Gloo nor rebuild when this layer changes).
#include <pybind11/pybind11.h>

#include "distributed/store.h"
#include "distributed/work.h"

namespace pyb = pybind11;

namespace ember::py {
void add_distributed_stores(pyb::module_& m);  // distributed_stores.cpp
void add_distributed_gloo(pyb::module_& m);    // distributed_gloo.cpp
void add_distributed_redis(pyb::module_& m);   // distributed_redis.cpp
}  // namespace ember::py

PYBIND11_MODULE(_distributed_C, m) {
  using namespace ember::distributed;
  // Translators are tried newest first, so each subclass is registered after
  // its base.
  auto& base = pyb::register_exception<DistError>(m, "DistError", PyExc_RuntimeError);
  pyb::register_exception<DistStoreError>(m, "DistStoreError", base.ptr());
  pyb::register_exception<DistNetworkError>(m, "DistNetworkError", base.ptr());
  pyb::register_exception<DistBackendError>(m, "DistBackendError", base.ptr());
  ember::py::add_distributed_stores(m);
#ifdef EMBER_HAVE_GLOO
  ember::py::add_distributed_gloo(m);
  m.attr("has_gloo") = true;
#else
  m.attr("has_gloo") = false;
#endif
#ifdef EMBER_HAVE_HIREDIS
  ember::py::add_distributed_redis(m);
  m.attr("has_redis") = true;
#else
  m.attr("has_redis") = false;
#endif
}
