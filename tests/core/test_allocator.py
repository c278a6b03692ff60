"""The caching CPU allocator: a block of any size class is reused after it is freed, so repeated
allocations of one size do not pile up in the cache (a block just under 1 MiB once went to the
large-block cache, was never reused and was finally released with the wrong call)."""
import pytest

import ember


@pytest.mark.parametrize("nbytes", [64, 100_000, 600_000, 1_000_000, (1 << 20) - 8, 1 << 20, 3 << 20])
def test_freed_blocks_are_reused(nbytes):
    ember._C._cpu_empty_cache()
    for _ in range(20):
        t = ember.empty(nbytes // 4, dtype=ember.float32)
        t.fill_(1.0)
        del t
    cached = ember._C._cpu_cached_bytes()
    assert 0 < cached <= max(2 * nbytes, 2 << 20) + 4096, f"{cached} bytes cached after 20 allocations of {nbytes}"
    ember._C._cpu_empty_cache()
    assert ember._C._cpu_cached_bytes() == 0


def test_large_blocks_reused_most_recent_first():
    # several cached blocks of one size: an allocation takes the one freed last (still in the CPU's
    # caches), not the oldest; a first-in-first-out pick cycled a + b's result through every cached block
    ember._C._cpu_empty_cache()
    blocks = [ember.empty(1 << 20, dtype=ember.float32) for _ in range(4)]
    ptrs = [b.data_ptr() for b in blocks]
    while blocks:
        blocks.pop(0)  # freed in order: ptrs[-1] last
    for _ in range(3):
        t = ember.empty(1 << 20, dtype=ember.float32)
        assert t.data_ptr() == ptrs[-1]
        del t
    ember._C._cpu_empty_cache()


def test_allocated_bytes_stay_exact_across_threads():
    # each thread counts its own bytes (no shared counter on the hot path); the total is their sum,
    # exact when a block is freed by another thread than its allocator's and after that thread ended
    import threading
    before = ember._C._cpu_memory_allocated()
    made = []
    t = threading.Thread(target=lambda: made.append(ember.empty(3 << 20, dtype=ember.uint8)))
    t.start()
    t.join()
    assert ember._C._cpu_memory_allocated() - before == 4 << 20  # 3 MiB rounds up to 2 MiB multiples
    made.clear()
    assert ember._C._cpu_memory_allocated() == before
