// ember._mpi_C: ProcessGroupMPI's bindings, a module of its own so only backend='mpi' loads the MPI library.
// The buffer types, ReduceOp and Work are ember._distributed_C's (imported first); its methods are
// _ProcessGroupGloo's (python/distributed_collective_bindings.h), so ember.distributed drives both alike.
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "distributed/mpi/process_group_mpi.h"
#include "python/distributed_collective_bindings.h"

namespace pyb = pybind11;
using namespace ember::distributed;

PYBIND11_MODULE(_mpi_C, m) {
  using Release = pyb::gil_scoped_release;
  pyb::module_::import("ember._distributed_C");  // registers Work, the element types and ReduceOp
  if (!pyb::detail::get_type_info(typeid(ElemType)) || !pyb::detail::get_type_info(typeid(ReduceOp)))
    throw std::runtime_error("ember._mpi_C needs ember._distributed_C built with its gloo backend");
  m.def("world", &ProcessGroupMPI::world, pyb::arg("timeout"), pyb::call_guard<Release>());
  m.def("subgroup", &ProcessGroupMPI::subgroup, pyb::arg("world_ranks"), pyb::arg("timeout"),
        pyb::call_guard<Release>());
  m.def("finalize", &ProcessGroupMPI::finalize, pyb::call_guard<Release>());
  m.def("finalized", &ProcessGroupMPI::finalized);

  pyb::class_<ProcessGroupMPI, std::shared_ptr<ProcessGroupMPI>> group(m, "_ProcessGroupMPI");
  ember::py::def_collectives(group);
}
