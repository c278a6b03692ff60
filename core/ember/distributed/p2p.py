"""Point-to-point transfers (send/recv/isend/irecv, P2POp and batch_isend_irecv) and monitored_barrier, with
torch.distributed's names and messages. Peers are global ranks (group_dst/group_src name group ranks); a
transfer is matched by (peer, tag) and moves the tensor's bytes."""
from __future__ import annotations

import time
from datetime import timedelta

import ember
from ember import _distributed_C as _C
from ember.distributed.distributed_c10d import _check_tensor, _group, _nbytes, _not_in_group, _root, get_rank

__all__ = ["P2POp", "batch_isend_irecv", "irecv", "isend", "monitored_barrier", "recv", "send"]

_USER_TAGS = 1 << 31  # user tags are below; monitored_barrier's own tags above


def _peer(pg, rank, group_rank, what: str) -> int:
    peer = _root(pg, rank, group_rank, "send" if what == "dst" else "recv", what)
    if peer == pg.rank():
        kind = "destination" if what == "dst" else "source"
        raise ValueError(f"Invalid {kind} rank: {kind} rank should not be the same as the rank of the current "
                         f"process.")
    return peer


def _check_tag(tag) -> int:
    if not isinstance(tag, int) or not 0 <= tag < _USER_TAGS:
        raise ValueError(f"tag must be an integer in [0, 2**31), got {tag!r}")
    return tag


def isend(tensor, dst: int | None = None, group=None, tag: int = 0, group_dst: int | None = None):
    if _not_in_group(group, "isend"):
        return None
    pg = _group(group)
    _check_tensor(tensor)
    peer = _peer(pg, dst, group_dst, "dst")
    source = tensor.contiguous()
    work = pg._pg.send(source.data_ptr(), _nbytes(source), peer, _check_tag(tag))
    return pg._submit(work, (tensor, source), None, True, [tensor])


def irecv(tensor, src: int | None = None, group=None, tag: int = 0, group_src: int | None = None):
    """Receives into tensor from src, or from whichever rank sends first when src and group_src are None."""
    if _not_in_group(group, "irecv"):
        return None
    pg = _group(group)
    _check_tensor(tensor)
    peer = -1 if src is None and group_src is None else _peer(pg, src, group_src, "src")
    out = tensor.contiguous()
    write_back = None if out is tensor else (lambda: tensor.copy_(out))
    work = pg._pg.recv(out.data_ptr(), _nbytes(out), peer, _check_tag(tag))
    return pg._submit(work, (tensor, out), write_back, True, [tensor])


def send(tensor, dst: int | None = None, group=None, tag: int = 0, group_dst: int | None = None) -> None:
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src: int | None = None, group=None, tag: int = 0, group_src: int | None = None) -> int:
    """Returns the sender's global rank (-1 when this rank is not in group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    pg = _group(group)
    return pg._ranks[work._source_rank()]


class P2POp:
    """One transfer of a batch_isend_irecv: op is isend or irecv."""

    def __init__(self, op, tensor, peer: int | None = None, group=None, tag: int = 0, group_peer: int | None = None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        _check_tensor(tensor)
        self.op, self.tensor, self.peer, self.group = op, tensor, peer, group
        self.tag, self.group_peer = tag, group_peer

    def __repr__(self):
        return f"P2POp(op={self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list) -> list:
    """Posts every transfer of the list, in order, and returns their Work handles."""
    if not isinstance(p2p_op_list, (list, tuple)) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    if len({id(p.group) for p in p2p_op_list}) > 1:
        raise ValueError("All ops need to use the same group.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, p.peer, p.group, p.tag, p.group_peer))
        else:
            works.append(irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer))
    return [w for w in works if w is not None]


def monitored_barrier(group=None, timeout: timedelta | None = None, wait_all_ranks: bool = False) -> None:
    """A barrier through rank 0, which hears from every other rank within timeout and names the ranks that
    did not arrive (the first one, or all of them with wait_all_ranks) in the error it raises."""
    if _not_in_group(group, "monitored_barrier"):
        return
    pg = _group(group)
    if pg.name() != "gloo":
        raise ValueError("monitored_barrier is only implemented for GLOO backend.")
    if timeout is None:
        timeout = pg._pg.timeout
    ms = int(timeout.total_seconds() * 1000)
    pg._p2p_tags += 1
    tag = _USER_TAGS + pg._p2p_tags  # fresh per call: a late arrival cannot satisfy a later barrier
    me = pg.rank()
    token = ember.zeros(1, dtype=ember.uint8)
    if me != 0:
        pg._submit(pg._pg.send(token.data_ptr(), 1, 0, tag), (token,), None, True).wait(timeout)
        answer = ember.zeros(1, dtype=ember.uint8)
        pg._submit(pg._pg.recv(answer.data_ptr(), 1, 0, tag), (answer,), None, True).wait(timeout)
        return
    deadline = time.monotonic() + timeout.total_seconds()
    tokens = {r: ember.zeros(1, dtype=ember.uint8) for r in range(1, pg.size())}
    works = {r: pg._submit(pg._pg.recv(t.data_ptr(), 1, r, tag), (t,), None, True) for r, t in tokens.items()}
    missing, first_error = [], None
    for r, work in works.items():
        try:
            work.wait(timedelta(seconds=max(0.0, deadline - time.monotonic())))
        except _C.DistError as e:
            missing.append(pg._ranks[r])
            first_error = first_error or e
            if not wait_all_ranks:
                break
    if missing:
        who = f"Rank {missing[0]}" if len(missing) == 1 else "Ranks " + ", ".join(str(r) for r in missing)
        message = f"[Rank {get_rank()}]: {who} failed to pass monitoredBarrier in {ms} ms"
        if not wait_all_ranks:
            message += f"\n Original exception: \n{first_error}"
        raise _C.DistBackendError(message)
    for r in range(1, pg.size()):
        pg._submit(pg._pg.send(token.data_ptr(), 1, r, tag), (token,), None, True).wait(timeout)
