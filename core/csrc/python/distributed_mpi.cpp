// ember._mpi_C: ProcessGroupMPI's bindings, a module of its own so only backend='mpi' loads the MPI library.
// The buffer types, ReduceOp and Work are ember._distributed_C's (imported first); the methods mirror
// _ProcessGroupGloo's, so ember.distributed drives both backends with the same calls.
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "distributed/mpi/process_group_mpi.h"

namespace pyb = pybind11;
using namespace ember::distributed;

PYBIND11_MODULE(_mpi_C, m) {
  using Release = pyb::gil_scoped_release;
  pyb::module_::import("ember._distributed_C");  // registers Work, the element types and ReduceOp
  if (!pyb::detail::get_type_info(typeid(ElemType)) || !pyb::detail::get_type_info(typeid(ReduceOp)))
    throw std::runtime_error("ember._mpi_C needs ember._distributed_C built with its gloo backend");
  auto buffer = [](uintptr_t ptr, size_t count, ElemType type) {
    return Buffer{reinterpret_cast<void*>(ptr), count, type};
  };
  auto bytes = [](uintptr_t ptr, size_t count) { return Buffer{reinterpret_cast<void*>(ptr), count, ElemType::UInt8}; };

  m.def("world", &ProcessGroupMPI::world, pyb::arg("timeout"), pyb::call_guard<Release>());
  m.def("subgroup", &ProcessGroupMPI::subgroup, pyb::arg("world_ranks"), pyb::arg("timeout"),
        pyb::call_guard<Release>());
  m.def("finalize", &ProcessGroupMPI::finalize, pyb::call_guard<Release>());
  m.def("finalized", &ProcessGroupMPI::finalized);

  pyb::class_<ProcessGroupMPI, std::shared_ptr<ProcessGroupMPI>>(m, "_ProcessGroupMPI")
      .def("shutdown", &ProcessGroupMPI::shutdown, pyb::call_guard<Release>())
      .def("rank", &ProcessGroupMPI::rank)
      .def("size", &ProcessGroupMPI::size)
      .def_property_readonly("timeout", &ProcessGroupMPI::timeout)
      .def(
          "allreduce",
          [buffer](ProcessGroupMPI& pg, uintptr_t p, size_t n, ElemType t, ReduceOp op) {
            return pg.allreduce(buffer(p, n, t), op);
          },
          pyb::call_guard<Release>())
      .def(
          "broadcast",
          [buffer](ProcessGroupMPI& pg, uintptr_t p, size_t n, ElemType t, int root) {
            return pg.broadcast(buffer(p, n, t), root);
          },
          pyb::call_guard<Release>())
      .def(
          "reduce",
          [buffer](ProcessGroupMPI& pg, uintptr_t p, size_t n, ElemType t, ReduceOp op, int root) {
            return pg.reduce(buffer(p, n, t), op, root);
          },
          pyb::call_guard<Release>())
      .def(
          "allgather",
          [buffer](ProcessGroupMPI& pg, uintptr_t in, uintptr_t out, size_t n, ElemType t) {
            return pg.allgather(buffer(in, n, t), buffer(out, n * pg.size(), t));
          },
          pyb::call_guard<Release>())
      .def("barrier", &ProcessGroupMPI::barrier, pyb::call_guard<Release>())
      .def(
          "gather",
          [bytes](ProcessGroupMPI& pg, uintptr_t in, size_t nbytes, uintptr_t out, int root) {
            return pg.gather(bytes(in, nbytes), bytes(out, nbytes * pg.size()), root);
          },
          pyb::call_guard<Release>())
      .def(
          "scatter",
          [bytes](ProcessGroupMPI& pg, uintptr_t in, uintptr_t out, size_t nbytes, int root) {
            return pg.scatter(bytes(in, nbytes * pg.size()), bytes(out, nbytes), root);
          },
          pyb::call_guard<Release>())
      .def(
          "alltoallv",
          [](ProcessGroupMPI& pg, uintptr_t in, std::vector<int64_t> in_bytes, uintptr_t out,
             std::vector<int64_t> out_bytes) {
            return pg.alltoallv(reinterpret_cast<void*>(in), std::move(in_bytes), reinterpret_cast<void*>(out),
                                std::move(out_bytes));
          },
          pyb::call_guard<Release>())
      .def(
          "send",
          [bytes](ProcessGroupMPI& pg, uintptr_t p, size_t nbytes, int dst, uint32_t tag) {
            return pg.send(bytes(p, nbytes), dst, tag);
          },
          pyb::call_guard<Release>())
      .def(
          "recv",
          [bytes](ProcessGroupMPI& pg, uintptr_t p, size_t nbytes, int src, uint32_t tag) {
            return pg.recv(bytes(p, nbytes), src, tag);
          },
          pyb::call_guard<Release>());
}
