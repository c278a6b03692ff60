// Python bindings of ProcessGroupGloo and Work. Buffers arrive as (data pointer, element count, type code)
// from ember.distributed, which checks the tensors and keeps them alive until the Work completes.
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "distributed/process_group_gloo.h"

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

  auto buffer = [](uintptr_t ptr, size_t count, ElemType type) {
    return Buffer{reinterpret_cast<void*>(ptr), count, type};
  };
  pyb::class_<ProcessGroupGloo, std::shared_ptr<ProcessGroupGloo>>(m, "_ProcessGroupGloo")
      .def(pyb::init<std::shared_ptr<Store>, int, int, Millis, std::string, std::string>(), arg("store"), arg("rank"),
           arg("size"), arg("timeout"), arg("hostname"), arg("iface"), pyb::call_guard<Release>())
      .def("shutdown", &ProcessGroupGloo::shutdown, pyb::call_guard<Release>())
      .def("rank", &ProcessGroupGloo::rank)
      .def("size", &ProcessGroupGloo::size)
      .def_property_readonly("timeout", &ProcessGroupGloo::timeout)
      .def(
          "allreduce",
          [buffer](ProcessGroupGloo& pg, uintptr_t p, size_t n, ElemType t, ReduceOp op) {
            return pg.allreduce(buffer(p, n, t), op);
          },
          pyb::call_guard<Release>())
      .def(
          "broadcast",
          [buffer](ProcessGroupGloo& pg, uintptr_t p, size_t n, ElemType t, int root) {
            return pg.broadcast(buffer(p, n, t), root);
          },
          pyb::call_guard<Release>())
      .def(
          "reduce",
          [buffer](ProcessGroupGloo& pg, uintptr_t p, size_t n, ElemType t, ReduceOp op, int root) {
            return pg.reduce(buffer(p, n, t), op, root);
          },
          pyb::call_guard<Release>())
      .def(
          "allgather",
          [buffer](ProcessGroupGloo& pg, uintptr_t in, uintptr_t out, size_t n, ElemType t) {
            return pg.allgather(buffer(in, n, t), buffer(out, n * pg.size(), t));
          },
          pyb::call_guard<Release>())
      .def("barrier", &ProcessGroupGloo::barrier, pyb::call_guard<Release>())
      .def(
          "gather",
          [buffer](ProcessGroupGloo& pg, uintptr_t in, size_t nbytes, uintptr_t out, int root) {
            return pg.gather(buffer(in, nbytes, ElemType::UInt8), buffer(out, nbytes * pg.size(), ElemType::UInt8),
                             root);
          },
          pyb::call_guard<Release>())
      .def(
          "scatter",
          [buffer](ProcessGroupGloo& pg, uintptr_t in, uintptr_t out, size_t nbytes, int root) {
            return pg.scatter(buffer(in, nbytes * pg.size(), ElemType::UInt8), buffer(out, nbytes, ElemType::UInt8),
                              root);
          },
          pyb::call_guard<Release>())
      .def(
          "alltoallv",
          [](ProcessGroupGloo& pg, uintptr_t in, std::vector<int64_t> in_bytes, uintptr_t out,
             std::vector<int64_t> out_bytes) {
            return pg.alltoallv(reinterpret_cast<void*>(in), std::move(in_bytes), reinterpret_cast<void*>(out),
                                std::move(out_bytes));
          },
          pyb::call_guard<Release>())
      .def(
          "send",
          [buffer](ProcessGroupGloo& pg, uintptr_t p, size_t nbytes, int dst, uint32_t tag) {
            return pg.send(buffer(p, nbytes, ElemType::UInt8), dst, tag);
          },
          pyb::call_guard<Release>())
      .def(
          "recv",
          [buffer](ProcessGroupGloo& pg, uintptr_t p, size_t nbytes, int src, uint32_t tag) {
            return pg.recv(buffer(p, nbytes, ElemType::UInt8), src, tag);
          },
          pyb::call_guard<Release>());
}

}  // namespace ember::py
