"""backend='mpi': ember._mpi_C (built against the MPI standard ABI of PyPI's mpich wheel) loaded on first use, so
gloo users never load MPI. Rank and world size come from MPI (the job is started by mpiexec); MPI is finalized
at interpreter exit, after every group's threads have stopped, as PyTorch's ProcessGroupMPI does."""
from __future__ import annotations

import atexit
import importlib

_module = None


def load():
    global _module
    if _module is None:
        try:
            _module = importlib.import_module("ember._mpi_C")
        except ImportError as e:
            raise RuntimeError("Distributed package doesn't have MPI built in (the mpich wheel was missing at build "
                               f"time, or its libmpi_abi cannot be loaded: {e})") from e
        atexit.register(_module.finalize)
    return _module


def is_mpi_available() -> bool:
    try:
        load()
    except RuntimeError:
        return False
    return True


def world_group(timeout):
    """The C++ group over all of MPI_COMM_WORLD's ranks (initializes MPI on first use); each collective gives up
    after timeout (a timedelta)."""
    mpi = load()
    if mpi.finalized():
        raise RuntimeError("MPI was finalized (at exit): ember.distributed cannot start it again")
    return mpi.world(timeout)


def subgroup(world_ranks: list[int], timeout):
    """The C++ group of these world ranks, or None on a rank outside it; collective over every world rank."""
    return load().subgroup(list(world_ranks), timeout)
