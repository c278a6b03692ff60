// Python binding of RedisStore (built when hiredis is found): RedisStore(host, port, prefix="", timeout).
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>

#include "distributed/redis_store.h"

namespace pyb = pybind11;
using namespace ember::distributed;
using pyb::arg;

namespace ember::py {

void add_distributed_redis(pyb::module_& m) {
  pyb::class_<RedisStore, Store, std::shared_ptr<RedisStore>>(m, "RedisStore")
      .def(pyb::init<std::string, int, std::string, Millis>(), arg("host"), arg("port"), arg("prefix") = "",
           arg("timeout") = Store::kDefaultTimeout, pyb::call_guard<pyb::gil_scoped_release>())
      .def_property_readonly("host", &RedisStore::host)
      .def_property_readonly("port", &RedisStore::port)
      .def_property_readonly("prefix", &RedisStore::prefix);
}

}  // namespace ember::py
