"""The default process group and its collectives (torch.distributed.distributed_c10d's names and messages).
Tensors go to the C++ gloo backend as (data pointer, element count, type): a non-contiguous tensor is
gathered into a contiguous copy and written back when the collective completes, and every buffer stays
referenced (by its Work, and by the group until completion) while the backend's thread may touch it."""
from __future__ import annotations

import enum
import os
from datetime import timedelta

import ember
from ember import _distributed_C as _C
from ember.distributed.constants import default_pg_timeout
from ember.distributed.rendezvous import rendezvous

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_reduce", "barrier",
           "broadcast", "destroy_process_group", "get_backend", "get_rank", "get_world_size", "init_process_group",
           "is_gloo_available", "is_initialized", "reduce"]

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


class Work:
    """The handle async_op=True returns: wait() blocks until the collective is done (raising its error),
    then finishes it on the Python side (write-back of copies, AVG's division)."""

    def __init__(self, work, keep_alive: tuple, finish=None, result=None):
        self._work = work
        self._keep_alive = keep_alive
        self._finish = finish
        self._result = result

    def wait(self, timeout: timedelta | None = None) -> bool:
        ms = -1 if timeout is None else int(timeout.total_seconds() * 1000)
        self._work.wait(ms)
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()
        return True

    def is_completed(self) -> bool:
        return self._work.is_completed()

    def is_success(self) -> bool:
        return self._work.is_success()

    def get_future(self):
        """A Future completed with the collective's output tensors (a list) when it is done."""
        from ember.distributed._work_future import work_future
        return work_future(self, self._result)


class ProcessGroup:
    """A group of ranks with a backend (only the default group, on gloo, exists so far)."""

    def __init__(self, backend: str, pg, store):
        self._backend, self._pg, self._store = backend, pg, store
        self._pending: list[Work] = []  # keeps buffers alive until the backend's thread is done with them

    def rank(self) -> int:
        return self._pg.rank()

    def size(self) -> int:
        return self._pg.size()

    def name(self) -> str:
        return self._backend

    def _submit(self, work, keep_alive: tuple, finish, async_op: bool, result=None):
        self._pending = [w for w in self._pending if not w.is_completed()]
        handle = Work(work, keep_alive, finish, result)
        self._pending.append(handle)
        if async_op:
            return handle
        handle.wait()
        return None


class GroupMember:
    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = -100


def _default_group() -> ProcessGroup:
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INITIALIZED)
    return GroupMember.WORLD


def _group(group) -> ProcessGroup:
    pg = _default_group()
    if group is not None and group is not pg:
        raise ValueError("Invalid process group specified: only the default group exists (new_group is not built yet)")
    return pg


def is_initialized() -> bool:
    return GroupMember.WORLD is not None


def get_rank(group=None) -> int:
    return _group(group).rank()


def get_world_size(group=None) -> int:
    return _group(group).size()


def get_backend(group=None) -> str:
    return Backend(_group(group).name())


def init_process_group(backend=None, init_method=None, timeout: timedelta | None = None, world_size: int = -1,
                       rank: int = -1, store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
    backend = Backend(backend if backend is not None else "gloo")
    if backend in (Backend.NCCL, Backend.MPI):
        raise RuntimeError(f"Distributed package doesn't have {backend.upper()} built in")
    if backend != Backend.GLOO:
        raise ValueError(f"Unknown backend type {backend}")
    if not is_gloo_available():
        raise RuntimeError("Distributed package doesn't have Gloo built in (libgloo-dev was missing at build time)")
    if store is None:
        store, rank, world_size = rendezvous(init_method or "env://", rank, world_size, timeout)
    else:
        if world_size <= 0:
            raise ValueError("world_size must be positive if using store")
        if rank < 0:
            raise ValueError("rank must be non-negative if using store")
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank} for world_size {world_size}: rank must be in [0, world_size)")
    # Peers reach this process at GLOO_SOCKET_IFNAME's address when set (PyTorch's variable), else over
    # loopback: one machine until multi-host rendezvous is tested.
    iface = os.environ.get("GLOO_SOCKET_IFNAME", "")
    pg_store = _C.PrefixStore("default_pg", store)
    pg = _C._ProcessGroupGloo(pg_store, rank, world_size, timeout, "127.0.0.1", iface)
    GroupMember.WORLD = ProcessGroup(Backend.GLOO, pg, store)


def destroy_process_group(group=None) -> None:
    pg = _group(group)
    for work in pg._pending:  # the backend's thread finishes them before the group goes
        try:
            work._work.wait(-1)
        except _C.DistError:
            pass
    GroupMember.WORLD = None


_ELEM_TYPES = {ember.float32: "float32", ember.float64: "float64", ember.int32: "int32", ember.int64: "int64",
               ember.int8: "int8", ember.uint8: "uint8"}


def _check_tensor(tensor, what: str = "tensor"):
    if not isinstance(tensor, ember.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{what}` of type ember.Tensor, "
                        f"but got {type(tensor).__name__} instead.")
    if tensor.device.type != "cpu":
        raise RuntimeError(f"ProcessGroupGloo: expected a CPU tensor, got one on {tensor.device}")
    if tensor.dtype not in _ELEM_TYPES:
        names = ", ".join(str(d) for d in _ELEM_TYPES)
        raise RuntimeError(f"ProcessGroupGloo: unsupported dtype {tensor.dtype} (supported: {names})")


def _buffer(tensor):
    """(contiguous tensor holding the data, write-back or None) for a tensor a collective writes into."""
    if tensor.is_contiguous():
        return tensor, None
    copy = tensor.contiguous()
    return copy, lambda: tensor.copy_(copy)


def _args(buf):
    return buf.data_ptr(), buf.numel(), getattr(_C._GlooElemType, _ELEM_TYPES[buf.dtype])


def _backend_op(op, tensor):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be an ember.distributed.ReduceOp, got {type(op).__name__}")
    floating = tensor.dtype in (ember.float32, ember.float64)
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and floating:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op is ReduceOp.AVG:
        if not floating:
            raise RuntimeError("ProcessGroupGloo: ReduceOp.AVG needs a floating-point tensor, got " + str(tensor.dtype))
        return _C._GlooReduceOp.SUM
    return getattr(_C._GlooReduceOp, op.name)


def _chain(*steps):
    steps = [s for s in steps if s is not None]
    return (lambda: [s() for s in steps]) if steps else None


def _check_rank(pg: ProcessGroup, rank: int, collective: str, what: str):
    if not isinstance(rank, int) or not 0 <= rank < pg.size():
        raise RuntimeError(f"ProcessGroupGloo::{collective}: invalid {what} rank: {rank}")


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    pg = _group(group)
    _check_tensor(tensor)
    backend_op = _backend_op(op, tensor)
    buf, write_back = _buffer(tensor)
    average = (lambda: buf.div_(pg.size())) if op is ReduceOp.AVG else None
    work = pg._pg.allreduce(*_args(buf), backend_op)
    return pg._submit(work, (tensor, buf), _chain(average, write_back), async_op, [tensor])


def broadcast(tensor, src: int, group=None, async_op: bool = False):
    pg = _group(group)
    _check_tensor(tensor)
    _check_rank(pg, src, "broadcast", "root")
    buf, write_back = _buffer(tensor)
    work = pg._pg.broadcast(*_args(buf), src)
    return pg._submit(work, (tensor, buf), write_back, async_op, [tensor])


def reduce(tensor, dst: int, op=ReduceOp.SUM, group=None, async_op: bool = False):
    pg = _group(group)
    _check_tensor(tensor)
    _check_rank(pg, dst, "reduce", "root")
    backend_op = _backend_op(op, tensor)
    buf, write_back = _buffer(tensor)
    average = (lambda: buf.div_(pg.size())) if op is ReduceOp.AVG and pg.rank() == dst else None
    work = pg._pg.reduce(*_args(buf), backend_op, dst)
    return pg._submit(work, (tensor, buf), _chain(average, write_back), async_op)


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
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
    return pg._submit(work, (tensor, source, gathered, tuple(tensor_list)), scatter_into_list, async_op)


def barrier(group=None, async_op: bool = False, device_ids=None):
    pg = _group(group)
    return pg._submit(pg._pg.barrier(), (), None, async_op)
