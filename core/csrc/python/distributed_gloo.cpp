// Python bindings of ProcessGroupGloo and Work. Buffers arrive as (data pointer, element count, type code)
// from ember.distributed, which checks the tensors and keeps them alive until the Work completes.
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "distributed/process_group_gloo.h"
#include "python/distributed_collective_bindings.h"

namespace pyb = pybind11;
using namespace ember::distributed;
using pyb::arg;

namespace ember::py {

void add_distributed_gloo(pyb::module_& m) {
  using Release = pyb::gil_scoped_release;
  pyb::enum_<ReduceOp>(m, "_GlooReduceOp")
      .value("SUM", ReduceOp::SUM)
      .value("PRODUCT", ReduceOp::PRODUCT)
      .value("MIN", ReduceOp::MIN)
      .value("MAX", ReduceOp::MAX)
      .value("BAND", ReduceOp::BAND)
      .value("BOR", ReduceOp::BOR)
      .value("BXOR", ReduceOp::BXOR);
  pyb::enum_<ElemType>(m, "_GlooElemType")
      .value("float32", ElemType::Float32)
      .value("float64", ElemType::Float64)
      .value("int32", ElemType::Int32)
      .value("int64", ElemType::Int64)
      .value("int8", ElemType::Int8)
      .value("uint8", ElemType::UInt8)
      .value("float16", ElemType::Float16)
      .value("bfloat16", ElemType::BFloat16)
      .value("bool", ElemType::Bool);

  pyb::class_<Work, std::shared_ptr<Work>>(m, "_Work")
      .def(
          "wait", [](Work& w, int64_t timeout_ms) { w.wait(Millis(timeout_ms)); }, arg("timeout_ms") = -1,
          pyb::call_guard<Release>())
      .def("is_completed", &Work::is_completed)
      .def("is_success", &Work::is_success)
      .def("source", &Work::source)
      .def("rethrow", [](Work& w) {  // raises the collective's error, if any (Work.exception() catches it)
        if (auto e = w.error()) std::rethrow_exception(e);
      });

  pyb::class_<ProcessGroupGloo, std::shared_ptr<ProcessGroupGloo>> group(m, "_ProcessGroupGloo");
  group.def(pyb::init<std::shared_ptr<Store>, int, int, Millis, std::string, std::string>(), arg("store"), arg("rank"),
            arg("size"), arg("timeout"), arg("hostname"), arg("iface"), pyb::call_guard<Release>());
  def_collectives(group);
}

}  // namespace ember::py
