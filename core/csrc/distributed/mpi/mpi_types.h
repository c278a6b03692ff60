// The MPI datatype and reduction for an (element type, ReduceOp) pair, built against the MPI standard ABI
// (mpi_abi.h, the mpich wheel's libmpi_abi). float16 and bfloat16 have no MPI type that reduces, so they
// travel as 16-bit words with user-defined reductions computed in float, as Gloo's are.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

#include "distributed/buffer.h"
#include "distributed/work.h"

namespace ember::distributed::mpi {

MPI_Datatype datatype(ElemType type);
// Raises invalid_argument for an op the type does not allow (bitwise ops on floating types).
MPI_Op reduce_op(ElemType type, ReduceOp op);
// Raises DistBackendError naming what failed when rc is not MPI_SUCCESS.
void check(int rc, const std::string& what);
// Frees the user-defined reductions (before MPI_Finalize).
void free_user_ops();

}  // namespace ember::distributed::mpi
