"""nn.utils.rnn: PackedSequence and the pad/pack helpers, as PyTorch defines them (sequences
sorted by decreasing length inside the packed data; batch_sizes[t] sequences active at step t)."""
from __future__ import annotations

from typing import NamedTuple

from ... import _C

__all__ = ["PackedSequence", "pad_sequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence",
           "unpad_sequence", "unpack_sequence", "invert_permutation"]


class PackedSequence(NamedTuple):
    data: object
    batch_sizes: object
    sorted_indices: object = None
    unsorted_indices: object = None

    def to(self, *args, **kwargs):
        return PackedSequence(self.data.to(*args, **kwargs), self.batch_sizes, self.sorted_indices,
                              self.unsorted_indices)

    @property
    def is_cuda(self):
        return self.data.device.type == "cuda"


def invert_permutation(permutation):
    if permutation is None:
        return None
    out = _C.empty_like(permutation)
    out[permutation] = _C.arange(permutation.numel(), dtype=permutation.dtype)
    return out


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """A list of (L_i, *) tensors as one (L_max, B, *) (or (B, L_max, *)) tensor."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    seqs = list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.shape[0] for s in seqs)
    trailing = list(seqs[0].shape[1:])
    out = _C.full([len(seqs), max_len] + trailing, padding_value, dtype=seqs[0].dtype)
    for i, s in enumerate(seqs):
        n = s.shape[0]
        if padding_side == "right":
            out[i, :n] = s
        else:
            out[i, max_len - n:] = s
    return out if batch_first else out.transpose(0, 1)


def _lengths(lengths):
    if isinstance(lengths, _C.TensorBase):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    lens = _lengths(lengths)
    if enforce_sorted:
        if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                               "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])
        sorted_indices = _C.tensor(order, dtype=_C.int64)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
        lens = [lens[i] for i in order]
    if any(v <= 0 for v in lens):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    x = input.transpose(0, 1) if batch_first else input
    if lens[0] > x.shape[0]:
        raise RuntimeError(f"the longest length {lens[0]} exceeds the input's {x.shape[0]} time steps")
    # step t holds the samples longer than t: the first batch_sizes[t] (lengths are sorted), so the
    # packed rows are x's rows where that mask is set, in time-major order (no loop over steps)
    steps = _C.arange(lens[0], dtype=_C.int64).unsqueeze(1)
    present = _C.tensor(lens, dtype=_C.int64).unsqueeze(0) > steps  # (T, B)
    data = x.narrow(0, 0, lens[0])[present]
    return PackedSequence(data, present.sum(1), sorted_indices, invert_permutation(sorted_indices))


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """(padded, lengths): the inverse of pack_padded_sequence, in the original batch order."""
    data, batch_sizes = sequence.data, [int(v) for v in sequence.batch_sizes.tolist()]
    steps, batch = len(batch_sizes), batch_sizes[0] if batch_sizes else 0
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
        steps_out = total_length
    else:
        steps_out = steps
    out = _C.full([steps_out, batch] + list(data.shape[1:]), padding_value, dtype=data.dtype)
    sizes = _C.tensor(batch_sizes + [0] * (steps_out - steps), dtype=_C.int64).unsqueeze(1)
    present = _C.arange(batch, dtype=_C.int64).unsqueeze(0) < sizes  # (steps_out, batch), time-major like data
    out[present] = data
    lengths = present.sum(0)
    if sequence.unsorted_indices is not None:
        out = out.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return (out.transpose(0, 1) if batch_first else out), lengths


def pack_sequence(sequences, enforce_sorted=True):
    seqs = list(sequences)
    return pack_padded_sequence(pad_sequence(seqs), [s.shape[0] for s in seqs], enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :n] for i, n in enumerate(_lengths(lengths))]


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
