"""The plain hooks: all-reduce (averaging), and all-reduce of a float16 / bfloat16 copy of the bucket
(half the bytes on the wire), with wrappers that compress around another hook."""
from __future__ import annotations

import ember

__all__ = ["allreduce_hook", "bf16_compress_hook", "bf16_compress_wrapper", "fp16_compress_hook",
           "fp16_compress_wrapper"]


def _dist():
    from ember import distributed
    return distributed


def _group_size(process_group) -> int:
    return _dist().get_world_size(process_group)


def _allreduce_fut(process_group, tensor):
    """Averages tensor over the group in place; the future's value is tensor."""
    tensor.div_(_group_size(process_group))
    work = _dist().all_reduce(tensor, group=process_group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """What DDP does without a hook: the bucket averaged over the group."""
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype, process_group, bucket):
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(_group_size(process_group))
    work = _dist().all_reduce(compressed, group=process_group, async_op=True)

    def decompress(fut):
        buffer.copy_(fut.value()[0])
        return buffer
    return work.get_future().then(decompress)


def fp16_compress_hook(process_group, bucket):
    """The bucket all-reduced as float16 (averaged before the cast's rounding adds up), then cast back."""
    return _compress_hook(ember.float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """As fp16_compress_hook, in bfloat16 (float32's range, fewer mantissa bits)."""
    return _compress_hook(ember.bfloat16, process_group, bucket)


def _compress_wrapper(dtype, hook):
    def wrapped(state, bucket):
        buffer = bucket.buffer()
        bucket.set_buffer(buffer.to(dtype))

        def decompress(fut):
            buffer.copy_(fut.value())
            bucket.set_buffer(buffer)
            return buffer
        return hook(state, bucket).then(decompress)
    return wrapped


def fp16_compress_wrapper(hook):
    """hook run on a float16 copy of the bucket; the result is cast back into the bucket."""
    return _compress_wrapper(ember.float16, hook)


def bf16_compress_wrapper(hook):
    """hook run on a bfloat16 copy of the bucket; the result is cast back into the bucket."""
    return _compress_wrapper(ember.bfloat16, hook)
