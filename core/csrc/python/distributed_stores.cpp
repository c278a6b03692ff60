// Python bindings of the stores, with PyTorch's signatures (torch.distributed.TCPStore and friends).
// Every call that may block releases the GIL, so other Python threads (and a master's own clients) run.
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "distributed/file_store.h"
#include "distributed/hash_store.h"
#include "distributed/prefix_store.h"
#include "distributed/tcp_store.h"

namespace pyb = pybind11;
using namespace ember::distributed;
using pyb::arg;

namespace {

// Values may be str (UTF-8 encoded, as PyTorch) or bytes-like.
Bytes to_value(const pyb::handle& v, const char* what) {
  if (pyb::isinstance<pyb::str>(v)) {
    std::string s = v.cast<std::string>();
    return Bytes(s.begin(), s.end());
  }
  if (pyb::isinstance<pyb::bytes>(v) || pyb::isinstance<pyb::bytearray>(v)) {
    std::string s = pyb::bytes(pyb::reinterpret_borrow<pyb::object>(v)).cast<std::string>();
    return Bytes(s.begin(), s.end());
  }
  throw pyb::type_error(std::string(what) + " must be str or bytes, got " +
                        pyb::str(pyb::type::handle_of(v).attr("__name__")).cast<std::string>());
}

pyb::bytes to_py(const Bytes& b) { return pyb::bytes(reinterpret_cast<const char*>(b.data()), b.size()); }

using Release = pyb::gil_scoped_release;

}  // namespace

namespace ember::py {

void add_distributed_stores(pyb::module_& m) {
  pyb::class_<Store, std::shared_ptr<Store>>(m, "Store")
      .def(
          "set",
          [](Store& s, const std::string& key, const pyb::object& value) {
            Bytes v = to_value(value, "value");
            Release r;
            s.set(key, v);
          },
          arg("key"), arg("value"))
      .def(
          "get",
          [](Store& s, const std::string& key) {
            Bytes v;
            {
              Release r;
              v = s.get(key);
            }
            return to_py(v);
          },
          arg("key"))
      .def("add", &Store::add, arg("key"), arg("value"), pyb::call_guard<Release>())
      .def(
          "compare_set",
          [](Store& s, const std::string& key, const pyb::object& expected, const pyb::object& desired) {
            Bytes e = to_value(expected, "expected_value"), d = to_value(desired, "desired_value"), out;
            {
              Release r;
              out = s.compare_set(key, e, d);
            }
            return to_py(out);
          },
          arg("key"), arg("expected_value"), arg("desired_value"))
      .def("delete_key", &Store::delete_key, arg("key"), pyb::call_guard<Release>())
      .def("num_keys", &Store::num_keys, pyb::call_guard<Release>())
      .def("check", &Store::check, arg("keys"), pyb::call_guard<Release>())
      .def("wait", pyb::overload_cast<const std::vector<std::string>&>(&Store::wait), arg("keys"),
           pyb::call_guard<Release>())
      .def("wait", pyb::overload_cast<const std::vector<std::string>&, Millis>(&Store::wait), arg("keys"),
           arg("timeout"), pyb::call_guard<Release>())
      .def("set_timeout", &Store::set_timeout, arg("timeout"))
      .def_property_readonly("timeout", &Store::timeout);

  pyb::class_<HashStore, Store, std::shared_ptr<HashStore>>(m, "HashStore").def(pyb::init<>());

  pyb::class_<FileStore, Store, std::shared_ptr<FileStore>>(m, "FileStore")
      .def(pyb::init<std::string, int64_t>(), arg("file_name"), arg("world_size") = -1, pyb::call_guard<Release>())
      .def_property_readonly("path", &FileStore::path);

  pyb::class_<PrefixStore, Store, std::shared_ptr<PrefixStore>>(m, "PrefixStore")
      .def(pyb::init<std::string, std::shared_ptr<Store>>(), arg("prefix"), arg("store"))
      .def_property_readonly("underlying_store", &PrefixStore::underlying);

  pyb::class_<TCPStore, Store, std::shared_ptr<TCPStore>>(m, "TCPStore")
      .def(pyb::init<std::string, int, std::optional<int64_t>, bool, Millis, bool>(), arg("host_name"), arg("port"),
           arg("world_size") = pyb::none(), arg("is_master") = false, arg("timeout") = Store::kDefaultTimeout,
           arg("wait_for_workers") = true, pyb::call_guard<Release>())
      .def_property_readonly("host", &TCPStore::host)
      .def_property_readonly("port", &TCPStore::port);
}

}  // namespace ember::py
