"""The default process group and its collectives (torch.distributed.distributed_c10d's names and messages).
Tensors go to the C++ gloo backend as (data pointer, element count, type): a non-contiguous tensor is
gathered into a contiguous copy and written back when the collective completes, and every buffer stays
referenced (by its Work, and by the group until completion) while the backend's thread may touch it."""
from __future__ import annotations

import enum
import os
import threading
import warnings
from datetime import timedelta

import ember
from ember import _distributed_C as _C
from ember.distributed import _mpi
from ember.distributed.constants import default_pg_timeout
from ember.distributed.rendezvous import rendezvous

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_reduce", "barrier",
           "broadcast", "destroy_process_group", "get_backend", "get_global_rank", "get_group_rank", "get_rank",
           "get_world_size", "init_process_group", "is_gloo_available", "is_initialized", "is_mpi_available",
           "new_group", "reduce"]

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class ReduceOp(enum.Enum):
    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"


class Backend(str):
    """A backend name, lower-cased: Backend('GLOO') == 'gloo'."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name).__name__}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


def is_gloo_available() -> bool:
    return bool(_C.has_gloo)


def is_mpi_available() -> bool:
    return _mpi.is_mpi_available()


class Work:
    """The handle async_op=True returns: wait() blocks until the collective is done (raising its error),
    then finishes it on the Python side once (write-back of copies, AVG's division)."""

    def __init__(self, work, keep_alive: tuple, finish=None, result=None):
        self._work = work
        self._keep_alive = keep_alive
        self._finish = finish
        self._result = result
        self._lock = threading.Lock()
        self._future = None

    def _complete(self):
        with self._lock:
            finish, self._finish = self._finish, None
        if finish is not None:
            finish()

    def wait(self, timeout: timedelta | None = None) -> bool:
        ms = -1 if timeout is None else int(timeout.total_seconds() * 1000)
        self._work.wait(ms)
        self._complete()
        return True

    def is_completed(self) -> bool:
        return self._work.is_completed()

    def is_success(self) -> bool:
        return self._work.is_success()

    def exception(self):
        """The error the collective failed with, or None (while running, or after success)."""
        try:
            self._work.rethrow()
        except _C.DistError as e:
            return e
        return None

    def _source_rank(self) -> int:
        return self._work.source()

    def result(self) -> list:
        self.wait()
        return list(self._result or [])

    def get_future(self):
        """A Future completed with the collective's output tensors (a list) when it is done."""
        from ember.distributed._work_future import work_future
        return work_future(self, list(self._result or []))


class ProcessGroup:
    """A group of ranks with a backend: ranks lists the group's members as global ranks, in group order."""

    def __init__(self, backend: str, pg, store, ranks: list[int]):
        self._backend, self._pg, self._store, self._ranks = backend, pg, store, list(ranks)
        self._pending: list[Work] = []  # keeps buffers alive until the backend's threads are done with them
        self._p2p_tags = 0  # monitored_barrier's private tags

    def rank(self) -> int:
        return self._pg.rank()

    def size(self) -> int:
        return self._pg.size()

    def name(self) -> str:
        return self._backend

    def _submit(self, work, keep_alive: tuple, finish, async_op: bool, result=None):
        # A failed collective's buffers stay referenced: an MPI collective given up after the timeout cannot be
        # cancelled, so MPI may still write them.
        self._pending = [w for w in self._pending if not w.is_success()]
        handle = Work(work, keep_alive, finish, result)
        self._pending.append(handle)
        if async_op:
            return handle
        handle.wait()
        return None


class GroupMember:
    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = -100


_given_up: list[Work] = []  # failed MPI collectives of destroyed groups (see _shutdown)
_groups: list[ProcessGroup] = []  # every group this process belongs to, the default one first
_group_count = 0  # new_group calls so far: every rank makes them in the same order, so the count names a group


def _default_group() -> ProcessGroup:
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INITIALIZED)
    return GroupMember.WORLD


def _group(group) -> ProcessGroup:
    pg = _default_group()
    if group is None or group is pg:
        return pg
    if isinstance(group, ProcessGroup) and group in _groups:
        return group
    raise ValueError("Invalid process group specified")


def _not_in_group(group, collective: str) -> bool:
    """True (with PyTorch's warning) when this rank is not a member of group: the collective is a no-op."""
    if group is GroupMember.NON_GROUP_MEMBER:
        warnings.warn(f"Running {collective} on global rank {get_rank()} which does not belong to the given group.",
                      stacklevel=3)
        return True
    return False


def is_initialized() -> bool:
    return GroupMember.WORLD is not None


def get_rank(group=None) -> int:
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).rank()


def get_world_size(group=None) -> int:
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).size()


def get_backend(group=None) -> str:
    if group is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return Backend(_group(group).name())


def get_group_rank(group, global_rank: int) -> int:
    pg = _group(group)
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg._ranks.index(global_rank)


def get_global_rank(group, group_rank: int) -> int:
    pg = _group(group)
    if not isinstance(group_rank, int) or not 0 <= group_rank < len(pg._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return pg._ranks[group_rank]


def _root(pg: ProcessGroup, global_rank, group_rank, collective: str, what: str = "root") -> int:
    """The group rank of a collective's root, given as a global rank (src/dst) or as group_src/group_dst."""
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {what} and group_{what}")
    if group_rank is None:
        if global_rank is None:
            raise ValueError(f"Either {what} or group_{what} must be specified")
        group_rank = global_rank if pg is GroupMember.WORLD else get_group_rank(pg, global_rank)
    _check_rank(pg, group_rank, collective, "root")
    return group_rank


def _iface() -> str:
    # Peers reach this process at GLOO_SOCKET_IFNAME's address when set (PyTorch's variable), else over
    # loopback: one machine until multi-host rendezvous is tested.
    return os.environ.get("GLOO_SOCKET_IFNAME", "")


def init_process_group(backend=None, init_method=None, timeout: timedelta | None = None, world_size: int = -1,
                       rank: int = -1, store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    global _group_count
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    timeout = _check_timeout(timeout)
    backend = _check_backend(backend if backend is not None else "gloo")
    if backend == Backend.MPI:
        _init_mpi(world_size, rank, timeout)
        return
    if store is None:
        store, rank, world_size = rendezvous(init_method or "env://", rank, world_size, timeout)
    else:
        if world_size <= 0:
            raise ValueError("world_size must be positive if using store")
        if rank < 0:
            raise ValueError("rank must be non-negative if using store")
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank} for world_size {world_size}: rank must be in [0, world_size)")
    pg = _C._ProcessGroupGloo(_C.PrefixStore("default_pg", store), rank, world_size, timeout, "127.0.0.1", _iface())
    GroupMember.WORLD = ProcessGroup(Backend.GLOO, pg, store, list(range(world_size)))
    _groups[:] = [GroupMember.WORLD]
    _group_count = 0


def _init_mpi(world_size: int, rank: int, timeout: timedelta) -> None:
    """The default group over MPI_COMM_WORLD: MPI assigns rank and world size (PyTorch warns when given). Unlike
    PyTorch's MPI groups, which wait for ever, its collectives honour the timeout as Gloo's do."""
    global _group_count
    if world_size != -1 or rank != -1:
        warnings.warn(f"For MPI backend, world_size ({world_size}) and rank ({rank}) are ignored since they are "
                      "assigned by the MPI runtime.", stacklevel=3)
    pg = _mpi.world_group(timeout)
    GroupMember.WORLD = ProcessGroup(Backend.MPI, pg, None, list(range(pg.size())))
    _groups[:] = [GroupMember.WORLD]
    _group_count = 0


def _check_timeout(timeout) -> timedelta:
    if timeout is None:
        return default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
    return timeout


def _check_backend(name) -> Backend:
    backend = Backend(name)
    if backend == Backend.NCCL:
        raise RuntimeError(f"Distributed package doesn't have {backend.upper()} built in")
    if backend == Backend.MPI:
        _mpi.load()  # raises, naming what is missing
        return backend
    if backend != Backend.GLOO:
        raise ValueError(f"Unknown backend type {backend}")
    if not is_gloo_available():
        raise RuntimeError("Distributed package doesn't have Gloo built in (libgloo-dev was missing at build time)")
    return backend


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization: bool = False,
              group_desc=None, device_id=None, sort_ranks: bool = True):
    """A group of some of the default group's ranks. Every rank of the default group calls it, in the same
    order (the calls are counted to name the group); non-members get GroupMember.NON_GROUP_MEMBER."""
    global _group_count
    world = _default_group()
    ranks = list(range(world.size())) if ranks is None else list(ranks)
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
    if len(ranks) > world.size():
        raise ValueError("the new group's world size should be less or equal to the world size set by "
                         "init_process_group")
    for r in ranks:
        if not isinstance(r, int) or not 0 <= r < world.size():
            raise ValueError("The new group's rank should be within the world_size set by init_process_group")
    if sort_ranks:
        ranks = sorted(ranks)
    backend = _check_backend(backend if backend is not None else world.name())
    timeout = _check_timeout(timeout)
    _group_count += 1
    me = world.rank()
    if backend == Backend.MPI or world._store is None:
        if backend != Backend.MPI:
            raise ValueError(f"new_group: a {backend} group needs a store, and the default MPI group has none")
        pg = _mpi.subgroup(ranks, timeout)  # collective over the world: every rank calls it, members or not
        if pg is None:
            return GroupMember.NON_GROUP_MEMBER
        group = ProcessGroup(backend, pg, None, ranks)
        _groups.append(group)
        return group
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    store = _C.PrefixStore(f"group_{_group_count}", world._store)
    pg = _C._ProcessGroupGloo(store, ranks.index(me), len(ranks), timeout, "127.0.0.1", _iface())
    group = ProcessGroup(backend, pg, world._store, ranks)
    _groups.append(group)
    return group


def _shutdown(pg: ProcessGroup) -> None:
    pg._pg.shutdown()  # runs what is queued, aborts pending transfers: no thread touches the buffers after
    # ...but MPI itself may still write a given-up collective's buffers: those are kept for good.
    _given_up.extend(w for w in pg._pending if pg._backend == Backend.MPI and not w.is_success())
    pg._pending = []


def destroy_process_group(group=None) -> None:
    """Destroys group, or every group (the default one included) when group is None."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    pg = _group(group)
    if pg is GroupMember.WORLD:
        for g in reversed(_groups):
            _shutdown(g)
        _groups.clear()
        GroupMember.WORLD = None
    else:
        _shutdown(pg)
        _groups.remove(pg)


_ELEM_TYPES = {ember.float32: "float32", ember.float64: "float64", ember.int32: "int32", ember.int64: "int64",
               ember.int8: "int8", ember.uint8: "uint8", ember.float16: "float16", ember.bfloat16: "bfloat16",
               ember.bool: "bool"}
_COMPLEX = {ember.complex64, ember.complex128}
_FLOATING = {ember.float32, ember.float64, ember.float16, ember.bfloat16}
# PyTorch's names of the dtypes in its cast error (AVG of an integral tensor)
_TORCH_TYPE_NAMES = {ember.int32: "Int", ember.int64: "Long", ember.int8: "Char", ember.uint8: "Byte",
                     ember.bool: "Bool"}


def _check_tensor(tensor, what: str = "tensor"):
    if not isinstance(tensor, ember.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{what}` of type ember.Tensor, "
                        f"but got {type(tensor).__name__} instead.")
    if tensor.device.type != "cpu":
        raise RuntimeError(f"ProcessGroupGloo: expected a CPU tensor, got one on {tensor.device}")
    if tensor.dtype not in _ELEM_TYPES and tensor.dtype not in _COMPLEX:
        names = ", ".join(str(d) for d in [*_ELEM_TYPES, *_COMPLEX])
        raise RuntimeError(f"ProcessGroupGloo: unsupported dtype {tensor.dtype} (supported: {names})")


def _buffer(tensor):
    """(contiguous tensor holding the data, write-back or None) for a tensor a collective writes into."""
    if tensor.is_contiguous():
        return tensor, None
    copy = tensor.contiguous()
    return copy, lambda: tensor.copy_(copy)


def _args(buf):
    """(pointer, count, element type) of a contiguous tensor; complex as pairs of its real type."""
    if buf.dtype in _COMPLEX:
        buf = ember.view_as_real(buf)
    return buf.data_ptr(), buf.numel(), getattr(_C._GlooElemType, _ELEM_TYPES[buf.dtype])


def _nbytes(buf) -> int:
    return buf.numel() * buf.element_size()


def _backend_op(op, tensor, collective: str = "all_reduce"):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be an ember.distributed.ReduceOp, got {type(op).__name__}")
    if tensor.dtype in _COMPLEX and op not in (ReduceOp.SUM, ReduceOp.AVG):
        raise ValueError(f"{collective} does not support ReduceOp.{op.name} on complex tensors")
    floating = tensor.dtype in _FLOATING or tensor.dtype in _COMPLEX
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and floating:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op is ReduceOp.AVG:
        if not floating:
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_TORCH_TYPE_NAMES[tensor.dtype]}")
        return _C._GlooReduceOp.SUM
    return getattr(_C._GlooReduceOp, op.name)


def _chain(*steps):
    steps = [s for s in steps if s is not None]
    return (lambda: [s() for s in steps]) if steps else None


def _check_rank(pg: ProcessGroup, rank: int, collective: str, what: str):
    if not isinstance(rank, int) or not 0 <= rank < pg.size():
        raise RuntimeError(f"ProcessGroupGloo::{collective}: invalid {what} rank: {rank}")


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    if _not_in_group(group, "all_reduce"):
        return None
    pg = _group(group)
    _check_tensor(tensor)
    backend_op = _backend_op(op, tensor)
    buf, write_back = _buffer(tensor)
    average = (lambda: buf.div_(pg.size())) if op is ReduceOp.AVG else None
    work = pg._pg.allreduce(*_args(buf), backend_op)
    return pg._submit(work, (tensor, buf), _chain(average, write_back), async_op, [tensor])


def broadcast(tensor, src: int | None = None, group=None, async_op: bool = False, group_src: int | None = None):
    if _not_in_group(group, "broadcast"):
        return None
    pg = _group(group)
    _check_tensor(tensor)
    src = _root(pg, src, group_src, "broadcast", "src")
    buf, write_back = _buffer(tensor)
    work = pg._pg.broadcast(*_args(buf), src)
    return pg._submit(work, (tensor, buf), write_back, async_op, [tensor])


def reduce(tensor, dst: int | None = None, op=ReduceOp.SUM, group=None, async_op: bool = False,
           group_dst: int | None = None):
    if _not_in_group(group, "reduce"):
        return None
    pg = _group(group)
    _check_tensor(tensor)
    dst = _root(pg, dst, group_dst, "reduce", "dst")
    backend_op = _backend_op(op, tensor, "reduce")
    buf, write_back = _buffer(tensor)
    average = (lambda: buf.div_(pg.size())) if op is ReduceOp.AVG and pg.rank() == dst else None
    work = pg._pg.reduce(*_args(buf), backend_op, dst)
    return pg._submit(work, (tensor, buf), _chain(average, write_back), async_op, [tensor])


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    if _not_in_group(group, "all_gather"):
        return None
    pg = _group(group)
    _check_tensor(tensor)
    if not isinstance(tensor_list, (list, tuple)):
        raise TypeError(f"Invalid function argument. Expected parameter `tensor_list` of type List[ember.Tensor], "
                        f"but got {type(tensor_list).__name__} instead.")
    if len(tensor_list) != pg.size():
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length "
                           f"{pg.size()}, got {len(tensor_list)})")
    for i, out in enumerate(tensor_list):
        _check_tensor(out, "tensor_list")
        if tuple(out.shape) != tuple(tensor.shape):
            raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor size at index {i} (expected "
                               f"{tuple(tensor.shape)}, got {tuple(out.shape)})")
        if out.dtype != tensor.dtype:
            raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor type at index {i} (expected "
                               f"{tensor.dtype}, got {out.dtype})")
    source = tensor.contiguous()
    gathered = ember.empty(pg.size() * source.numel(), dtype=tensor.dtype)
    n = source.numel()

    def scatter_into_list():
        for i, out in enumerate(tensor_list):
            out.copy_(gathered[i * n:(i + 1) * n].reshape(tensor.shape))

    ptr, count, elem = _args(source)
    work = pg._pg.allgather(ptr, gathered.data_ptr(), count, elem)
    return pg._submit(work, (tensor, source, gathered, tuple(tensor_list)), scatter_into_list, async_op,
                      list(tensor_list))


def barrier(group=None, async_op: bool = False, device_ids=None):
    if _not_in_group(group, "barrier"):
        return None
    pg = _group(group)
    return pg._submit(pg._pg.barrier(), (), None, async_op)
