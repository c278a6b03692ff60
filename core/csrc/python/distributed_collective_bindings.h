// The Python methods every process group backend shares (_ProcessGroupGloo in ember._distributed_C,
// _ProcessGroupMPI in ember._mpi_C): ember.distributed drives both with the same calls. Buffers arrive as
// (data pointer, element count, type code), or as byte counts for the collectives that only move data.
#pragma once

#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "distributed/buffer.h"

namespace ember::py {

template <typename ProcessGroup>
void def_collectives(pybind11::class_<ProcessGroup, std::shared_ptr<ProcessGroup>>& cls) {
  using namespace ember::distributed;
  using Release = pybind11::call_guard<pybind11::gil_scoped_release>;
  auto buffer = [](uintptr_t ptr, size_t count, ElemType type) {
    return Buffer{reinterpret_cast<void*>(ptr), count, type};
  };
  auto bytes = [](uintptr_t ptr, size_t count) { return Buffer{reinterpret_cast<void*>(ptr), count, ElemType::UInt8}; };
  cls.def("shutdown", &ProcessGroup::shutdown, Release())
      .def("rank", &ProcessGroup::rank)
      .def("size", &ProcessGroup::size)
      .def_property_readonly("timeout", &ProcessGroup::timeout)
      .def(
          "allreduce",
          [buffer](ProcessGroup& pg, uintptr_t p, size_t n, ElemType t, ReduceOp op) {
            return pg.allreduce(buffer(p, n, t), op);
          },
          Release())
      .def(
          "broadcast",
          [buffer](ProcessGroup& pg, uintptr_t p, size_t n, ElemType t, int root) {
            return pg.broadcast(buffer(p, n, t), root);
          },
          Release())
      .def(
          "reduce",
          [buffer](ProcessGroup& pg, uintptr_t p, size_t n, ElemType t, ReduceOp op, int root) {
            return pg.reduce(buffer(p, n, t), op, root);
          },
          Release())
      .def(
          "allgather",
          [buffer](ProcessGroup& pg, uintptr_t in, uintptr_t out, size_t n, ElemType t) {
            return pg.allgather(buffer(in, n, t), buffer(out, n * pg.size(), t));
          },
          Release())
      .def("barrier", &ProcessGroup::barrier, Release())
      .def(
          "gather",
          [bytes](ProcessGroup& pg, uintptr_t in, size_t nbytes, uintptr_t out, int root) {
            return pg.gather(bytes(in, nbytes), bytes(out, nbytes * pg.size()), root);
          },
          Release())
      .def(
          "scatter",
          [bytes](ProcessGroup& pg, uintptr_t in, uintptr_t out, size_t nbytes, int root) {
            return pg.scatter(bytes(in, nbytes * pg.size()), bytes(out, nbytes), root);
          },
          Release())
      .def(
          "alltoallv",
          [](ProcessGroup& pg, uintptr_t in, std::vector<int64_t> in_bytes, uintptr_t out,
             std::vector<int64_t> out_bytes) {
            return pg.alltoallv(reinterpret_cast<void*>(in), std::move(in_bytes), reinterpret_cast<void*>(out),
                                std::move(out_bytes));
          },
          Release())
      .def(
          "send",
          [bytes](ProcessGroup& pg, uintptr_t p, size_t nbytes, int dst, uint32_t tag) {
            return pg.send(bytes(p, nbytes), dst, tag);
          },
          Release())
      .def(
          "recv",
          [bytes](ProcessGroup& pg, uintptr_t p, size_t nbytes, int src, uint32_t tag) {
            return pg.recv(bytes(p, nbytes), src, tag);
          },
          Release());
}

}  // namespace ember::py
