"""PowerSGD (Vogels et al., NeurIPS 2019) as a DDP comm hook: each gradient matrix M (a tensor viewed as
rows x rest) is replaced by a rank-r approximation P Q^T found by one power-iteration step, so only P and
Q cross the wire: P = M Q, all-reduced and orthonormalised, then Q = M^T P, all-reduced and averaged.
Error feedback adds what the approximation missed to the next step's gradient; warm start reuses Q.
Tensors too small to gain from compression (vectors, and matrices where (n + m) r * min_compression_rate
>= n m) are all-reduced as they are. The first start_powerSGD_iter iterations use plain all-reduce."""
from __future__ import annotations

import math
import random

import ember

from .default_hooks import _allreduce_fut

__all__ = ["PowerSGDState", "batched_powerSGD_hook", "powerSGD_hook"]


def _dist():
    from ember import distributed
    return distributed


def _orthogonalize(matrix, epsilon: float = 0.0):
    """Gram-Schmidt on matrix's columns, in place. A zero column (a gradient that is all zeros) stays zero
    where PyTorch's version would divide by a zero norm and fill the step with NaN."""
    cols = matrix.shape[1]
    for i in range(cols):
        col = matrix[:, i:i + 1]
        norm = float(col.norm()) + epsilon
        if norm == 0.0:
            continue
        col.div_(norm)
        if i + 1 < cols:
            rest = matrix[:, i + 1:]
            rest.sub_((col * rest).sum(dim=0) * col)


def _should_compress(num_rows: int, num_cols: int, rank: int, min_compression_rate: float):
    uncompressed = num_rows * num_cols
    compressed = (num_rows + num_cols) * rank
    return compressed * min_compression_rate < uncompressed, uncompressed, compressed


class PowerSGDState:
    """The hook's state across iterations: hyperparameters, per-bucket P/Q memories (warm start) and
    error-feedback residuals, the iteration count, and a seeded generator so every rank draws the same
    initial Q."""

    __slots__ = ["process_group", "matrix_approximation_rank", "start_powerSGD_iter", "min_compression_rate",
                 "orthogonalization_epsilon", "use_error_feedback", "warm_start", "batch_tensors_with_same_shape",
                 "rng", "error_dict", "p_memory_dict", "q_memory_dict", "iter", "total_numel_before_compression",
                 "total_numel_after_compression", "compression_stats_logging_frequency",
                 "next_stats_report"]

    def __init__(self, process_group, matrix_approximation_rank: int = 1, start_powerSGD_iter: int = 1_000,
                 min_compression_rate: float = 2, use_error_feedback: bool = True, warm_start: bool = True,
                 orthogonalization_epsilon: float = 0, random_seed: int = 0,
                 compression_stats_logging_frequency: int = 10_000, batch_tensors_with_same_shape: bool = False):
        if (use_error_feedback or warm_start) and start_powerSGD_iter <= 1:
            raise ValueError("Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or `warm_start` is enabled, "
                             "because PowerSGD can only be applied after the first two iterations in DDP.")
        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.min_compression_rate = min_compression_rate
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.orthogonalization_epsilon = orthogonalization_epsilon
        self.batch_tensors_with_same_shape = batch_tensors_with_same_shape
        self.rng = random.Random(random_seed)
        self.error_dict: dict = {}
        self.p_memory_dict: dict = {}
        self.q_memory_dict: dict = {}
        self.iter = 0
        self.total_numel_before_compression = 0
        self.total_numel_after_compression = 0
        self.compression_stats_logging_frequency = max(1, compression_stats_logging_frequency)
        self.next_stats_report = 0

    def maybe_increase_iter(self, bucket):
        if bucket.is_last():
            self.iter += 1

    def compression_stats(self):
        """(compression rate, numel before, numel after) over the compressed steps so far."""
        rate = (self.total_numel_before_compression / self.total_numel_after_compression
                if self.total_numel_after_compression > 0 else 0)
        return rate, self.total_numel_before_compression, self.total_numel_after_compression


def _random_q(state: PowerSGDState, rows: int, cols: int):
    gen = ember.Generator().manual_seed(state.rng.randint(0, 1_000_000_000))
    q = ember.randn(rows, cols, generator=gen)
    _orthogonalize(q, state.orthogonalization_epsilon)
    return q


def _error_feedback(state: PowerSGDState, index: int, buffer):
    """Adds the residual of this bucket's last step; returns a copy of the corrected buffer."""
    if state.use_error_feedback:
        if index in state.error_dict:
            buffer.add_(state.error_dict[index])
        else:
            state.error_dict[index] = ember.zeros_like(buffer)
        return buffer.clone()
    return None


def _end_step(state: PowerSGDState, bucket, corrected, approximated):
    """After a bucket's compressed step: the residual for error feedback, the memories dropped without warm
    start, the iteration counted."""
    index = bucket.index()
    if state.use_error_feedback:
        state.error_dict[index] = corrected - approximated
    if not state.warm_start:
        state.p_memory_dict.pop(index, None)
        state.q_memory_dict.pop(index, None)
    state.maybe_increase_iter(bucket)


def _low_rank_round(state: PowerSGDState, index: int, matrices: list, finish):
    """One power-iteration step over `matrices` (views written in place with their approximations);
    returns a Future whose value is finish()'s."""
    dist = _dist()
    group = state.process_group
    world = dist.get_world_size(group)
    shapes = [(m.shape[0], m.shape[1], min(m.shape[0], m.shape[1], state.matrix_approximation_rank))
              for m in matrices]
    if not state.warm_start or index not in state.p_memory_dict:
        state.p_memory_dict[index] = [ember.empty(n, r) for n, _, r in shapes]
        state.q_memory_dict[index] = [_random_q(state, m_, r) for _, m_, r in shapes]
    ps, qs = state.p_memory_dict[index], state.q_memory_dict[index]
    for m, q, p in zip(matrices, qs, ps):
        p.copy_(m @ q)
    flat_p = ember.cat([p.reshape(-1) for p in ps]) if ps else ember.zeros(0)
    p_fut = dist.all_reduce(flat_p, group=group, async_op=True).get_future()

    def compute_qs(fut):
        offset = 0
        for p in ps:
            p.copy_(fut.value()[0][offset:offset + p.numel()].view(p.shape))
            offset += p.numel()
            _orthogonalize(p, state.orthogonalization_epsilon)
        for m, p, q in zip(matrices, ps, qs):
            q.copy_(m.t() @ p)
        flat_q = ember.cat([q.reshape(-1) for q in qs]) if qs else ember.zeros(0)
        return dist.all_reduce(flat_q, group=group, async_op=True).get_future().wait()[0]

    def decompress(fut):
        flat_q = fut.value().div_(world)
        offset = 0
        for q in qs:
            q.copy_(flat_q[offset:offset + q.numel()].view(q.shape))
            offset += q.numel()
        for p, q, m in zip(ps, qs, matrices):
            m.copy_(p @ q.t())
        return finish()
    return p_fut.then(compute_qs).then(decompress)


def powerSGD_hook(state: PowerSGDState, bucket):
    """PowerSGD per gradient tensor of the bucket; vectors and small matrices go uncompressed."""
    dist = _dist()
    group = state.process_group
    buffer = bucket.buffer()
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        return _allreduce_fut(group, buffer)
    world = dist.get_world_size(group)
    index = bucket.index()
    corrected = _error_feedback(state, index, buffer)
    to_compress, uncompressed = [], []
    for grad in bucket.gradients():
        matrix = grad.view(grad.shape[0], -1) if grad.dim() > 1 else None
        if matrix is not None:
            n, m = matrix.shape
            ok, before, after = _should_compress(n, m, min(n, m, state.matrix_approximation_rank),
                                                 state.min_compression_rate)
            if ok:
                to_compress.append(matrix)
                state.total_numel_before_compression += before
                state.total_numel_after_compression += after
                continue
        uncompressed.append(grad)
        state.total_numel_before_compression += grad.numel()
        state.total_numel_after_compression += grad.numel()
    flat = ember.cat([g.reshape(-1) for g in uncompressed]) if uncompressed else ember.zeros(0)
    plain = dist.all_reduce(flat, group=group, async_op=True)
    plain.wait()
    flat.div_(world)
    offset = 0
    for g in uncompressed:
        g.copy_(flat[offset:offset + g.numel()].view(g.shape))
        offset += g.numel()

    def finish():
        _end_step(state, bucket, corrected, buffer)
        return buffer
    return _low_rank_round(state, index, to_compress, finish)


def batched_powerSGD_hook(state: PowerSGDState, bucket):
    """PowerSGD on the whole bucket at once, viewed as a square matrix (zero-padded): fewer, larger
    products, a coarser approximation."""
    group = state.process_group
    buffer = bucket.buffer()
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        return _allreduce_fut(group, buffer)
    index = bucket.index()
    total = buffer.numel()
    side = math.ceil(math.sqrt(total))
    square = ember.zeros(side * side, dtype=buffer.dtype)
    square[:total].copy_(buffer)
    corrected = _error_feedback(state, index, square)
    matrix = square.view(side, side)
    state.total_numel_before_compression += total
    state.total_numel_after_compression += 2 * side * min(side, state.matrix_approximation_rank)

    def finish():
        _end_step(state, bucket, corrected, square)
        buffer.copy_(square[:total])
        return buffer
    return _low_rank_round(state, index, [matrix], finish)
