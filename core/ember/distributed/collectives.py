"""The collectives beyond all_reduce/broadcast/reduce/all_gather (torch.distributed's names, arguments and
messages): gather, scatter, reduce_scatter(_tensor), all_gather_into_tensor, all_to_all(_single). Data
movement goes to the backend as bytes, so every supported dtype moves alike; reduce_scatter is an all-reduce
of the concatenated inputs of which each rank keeps its own part (as PyTorch's gloo backend computes it)."""
from __future__ import annotations

import ember
from ember.distributed.distributed_c10d import (ReduceOp, _args, _backend_op, _check_tensor, _group, _nbytes,
                                                _not_in_group, _root)

__all__ = ["all_gather_into_tensor", "all_to_all", "all_to_all_single", "gather", "reduce_scatter",
           "reduce_scatter_tensor", "scatter"]


def _check_list(tensors, what: str):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"Invalid function argument. Expected parameter `{what}` of type List[ember.Tensor], "
                        f"but got {type(tensors).__name__} instead.")
    for t in tensors:
        _check_tensor(t, what)


def _check_like(collective: str, tensors, like, count: int, what: str = "tensor"):
    """Every tensor of the list has like's shape and dtype, and there are count of them (PyTorch's messages)."""
    if len(tensors) != count:
        raise RuntimeError(f"ProcessGroupGloo::{collective}: invalid {what} list size: expected {count}, "
                           f"got {len(tensors)}")
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(like.shape):
            raise RuntimeError(f"ProcessGroupGloo::{collective}: invalid tensor size at index {i} (expected "
                               f"{tuple(like.shape)}, got {tuple(t.shape)})")
        if t.dtype != like.dtype:
            raise RuntimeError(f"ProcessGroupGloo::{collective}: invalid tensor type at index {i} (expected "
                               f"{like.dtype}, got {t.dtype})")


def _rooted(collective: str, tensor, group, peer, group_peer, what: str):
    """gather's and scatter's group and root (a group rank): from peer (dst/src, a global rank) or group_peer
    (group_dst/group_src), rank 0 when neither is given."""
    pg = _group(group)
    _check_tensor(tensor)
    if peer is None and group_peer is None:
        peer = 0
    return pg, _root(pg, peer, group_peer, collective, what)


def _root_list(collective: str, tensors, name: str, like, pg, what: str):
    """The root's list (gather's outputs, scatter's inputs), checked: world_size tensors of like's shape and dtype."""
    tensors = list(tensors or [])
    _check_list(tensors, name)
    _check_like(collective, tensors, like, pg.size(), what)
    return tensors


def _check_same_dtype(first, first_name: str, second, second_name: str):
    if first.dtype != second.dtype:
        raise RuntimeError(f"{first_name} tensor must have the same type as {second_name} tensor, got {first.dtype} "
                           f"and {second.dtype}")


def _contiguous_output(output):
    """(a contiguous tensor the backend writes, the copy back into output after it, or None when output is that
    tensor)."""
    out = output.contiguous()
    return out, (None if out is output else (lambda: output.copy_(out)))


def _flat(tensors, like):
    """One contiguous 1-D tensor holding the tensors one after another."""
    if not tensors:
        return ember.empty(0, dtype=like.dtype)
    return ember.cat([t.reshape(-1) for t in tensors]).contiguous()


def _split_into(flat, outputs):
    offset = 0
    for out in outputs:
        n = out.numel()
        out.copy_(flat[offset:offset + n].reshape(out.shape))
        offset += n


def gather(tensor, gather_list=None, dst: int | None = None, group=None, async_op: bool = False,
           group_dst: int | None = None):
    if _not_in_group(group, "gather"):
        return None
    pg, root = _rooted("gather", tensor, group, dst, group_dst, "dst")
    source = tensor.contiguous()
    if pg.rank() == root:
        gather_list = _root_list("gather", gather_list, "gather_list", tensor, pg, "output")
        gathered = ember.empty(pg.size() * source.numel(), dtype=tensor.dtype)
        finish = (lambda: _split_into(gathered, gather_list))
    else:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
        gathered, finish, gather_list = source, None, []
    work = pg._pg.gather(source.data_ptr(), _nbytes(source), gathered.data_ptr(), root)
    return pg._submit(work, (tensor, source, gathered, tuple(gather_list)), finish, async_op, gather_list)


def scatter(tensor, scatter_list=None, src: int | None = None, group=None, async_op: bool = False,
            group_src: int | None = None):
    if _not_in_group(group, "scatter"):
        return None
    pg, root = _rooted("scatter", tensor, group, src, group_src, "src")
    out, write_back = _contiguous_output(tensor)
    if pg.rank() == root:
        scatter_list = _root_list("scatter", scatter_list, "scatter_list", tensor, pg, "input")
        source = _flat(scatter_list, tensor)
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        source = out
    work = pg._pg.scatter(source.data_ptr(), out.data_ptr(), _nbytes(out), root)
    return pg._submit(work, (tensor, out, source), write_back, async_op, [tensor])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """output_tensor holds world_size inputs, stacked (world_size * n, ...) or concatenated along dim 0."""
    if _not_in_group(group, "all_gather_into_tensor"):
        return None
    pg = _group(group)
    _check_tensor(input_tensor, "input_tensor")
    _check_tensor(output_tensor, "output_tensor")
    _check_same_dtype(output_tensor, "output", input_tensor, "input")
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise RuntimeError("output tensor size must be equal to world_size times input tensor size")
    source = input_tensor.contiguous()
    out, write_back = _contiguous_output(output_tensor)
    ptr, count, elem = _args(source)
    work = pg._pg.allgather(ptr, out.data_ptr(), count, elem)
    return pg._submit(work, (input_tensor, source, output_tensor, out), write_back, async_op, [output_tensor])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op: bool = False):
    if _not_in_group(group, "reduce_scatter"):
        return None
    pg = _group(group)
    _check_tensor(output, "output")
    _check_list(input_list, "input_list")
    if len(input_list) != pg.size():
        raise RuntimeError("invalid input tensor list size, must be world size")
    _check_like("reduce_scatter", input_list, output, pg.size(), "input")
    return _reduce_scatter_flat(pg, output, _flat(input_list, output), op, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False):  # noqa: A002
    if _not_in_group(group, "reduce_scatter_tensor"):
        return None
    pg = _group(group)
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _check_same_dtype(input, "input", output, "output")
    if input.numel() != output.numel() * pg.size():
        raise RuntimeError("input tensor must be the same size as output size times world size")
    return _reduce_scatter_flat(pg, output, input.contiguous().reshape(-1).clone(), op, async_op)


def _reduce_scatter_flat(pg, output, flat, op, async_op: bool):
    backend_op = _backend_op(op, output, "reduce_scatter")
    n = output.numel()
    mine = pg.rank()

    def keep_mine():
        part = flat[mine * n:(mine + 1) * n].reshape(output.shape)
        output.copy_(part / pg.size() if op is ReduceOp.AVG else part)
    work = pg._pg.allreduce(*_args(flat), backend_op)
    return pg._submit(work, (output, flat), keep_mine, async_op, [output])


def _splits(sizes, total_rows: int, world: int, what: str) -> list[int]:
    if sizes is None or len(sizes) == 0:
        if total_rows % world:
            raise RuntimeError(f"Tensor's dim 0 does not divide equally across group size (size {total_rows}, "
                               f"group size {world})")
        return [total_rows // world] * world
    sizes = [int(s) for s in sizes]
    if len(sizes) != world:
        raise RuntimeError(f"Number of {what} splits must equal the group size {world}, got {len(sizes)}")
    if sum(sizes) != total_rows or min(sizes) < 0:
        raise RuntimeError(f"Split sizes doesn't match total dim 0 size ({what} splits {sizes}, size {total_rows})")
    return sizes


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,  # noqa: A002
                      group=None, async_op: bool = False):
    """Rank r sends rows input_split_sizes[j] of input (dim 0) to rank j, and receives its rows from rank j into
    output at output_split_sizes[j]; without sizes, both split evenly."""
    if _not_in_group(group, "all_to_all_single"):
        return None
    pg = _group(group)
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _check_same_dtype(output, "output", input, "input")
    rows_in = input.shape[0] if input.dim() else 1
    rows_out = output.shape[0] if output.dim() else 1
    in_splits = _splits(input_split_sizes, rows_in, pg.size(), "input")
    out_splits = _splits(output_split_sizes, rows_out, pg.size(), "output")
    row_in = _nbytes(input) // rows_in if rows_in else 0
    row_out = _nbytes(output) // rows_out if rows_out else 0
    if row_in != row_out:
        raise RuntimeError("all_to_all_single: input and output rows must have the same size")
    source = input.contiguous()
    out, write_back = _contiguous_output(output)
    work = pg._pg.alltoallv(source.data_ptr(), [s * row_in for s in in_splits], out.data_ptr(),
                            [s * row_out for s in out_splits])
    return pg._submit(work, (input, source, output, out), write_back, async_op, [output])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Rank r sends input_tensor_list[j] to rank j and receives rank j's into output_tensor_list[j]."""
    if _not_in_group(group, "all_to_all"):
        return None
    pg = _group(group)
    _check_list(output_tensor_list, "output_tensor_list")
    _check_list(input_tensor_list, "input_tensor_list")
    for what, tensors in (("input", input_tensor_list), ("output", output_tensor_list)):
        if len(tensors) != pg.size():
            raise RuntimeError(f"ProcessGroupGloo::all_to_all: invalid {what} tensor list size: expected "
                               f"{pg.size()}, got {len(tensors)}")
    dtypes = {t.dtype for t in [*input_tensor_list, *output_tensor_list]}
    if len(dtypes) != 1:
        raise RuntimeError("ProcessGroupGloo::all_to_all: all tensors must have the same dtype")
    like = input_tensor_list[0]
    source = _flat(input_tensor_list, like)
    received = ember.empty(sum(t.numel() for t in output_tensor_list), dtype=like.dtype)
    size = like.element_size()
    work = pg._pg.alltoallv(source.data_ptr(), [t.numel() * size for t in input_tensor_list], received.data_ptr(),
                            [t.numel() * size for t in output_tensor_list])
    return pg._submit(work, (source, received, tuple(output_tensor_list)),
                      lambda: _split_into(received, output_tensor_list), async_op, list(output_tensor_list))
