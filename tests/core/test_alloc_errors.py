"""Allocations too large for the machine raise at once: ember.OutOfMemoryError, a RuntimeError (the
type PyTorch's CPU allocator raises: "DefaultCPUAllocator: not enough memory: you tried to allocate N
bytes") and a MemoryError, naming the op and the bytes. A size whose byte count overflows raises
PyTorch's RuntimeError "Storage size calculation overflowed with sizes=[...]". Never an abort, a
std::bad_alloc text or the kernel's OOM killer."""
import re

import pytest

import ember


def _available_bytes():
    with open("/proc/meminfo") as f:
        info = dict(line.split(":", 1) for line in f)
    kb = lambda k: int(info.get(k, "0 kB").split()[0]) * 1024
    return kb("MemAvailable") + kb("SwapFree")


def test_out_of_memory_error_type():
    assert issubclass(ember.OutOfMemoryError, RuntimeError)
    assert issubclass(ember.OutOfMemoryError, MemoryError)


def test_byte_count_overflow():
    # PyTorch: "Storage size calculation overflowed with sizes=[...]" for all three; ember says so
    # when the bytes overflow, and names the element count when that overflows first
    with pytest.raises(
        RuntimeError, match=re.escape("Storage size calculation overflowed with sizes=[4611686018427387904]")
    ):
        ember.ones(2**62)
    for make, sizes in ((lambda: ember.empty(2**40, 2**30), "[1099511627776, 1073741824]"),
                        (lambda: ember.zeros(2**31, 2**31, 4), "[2147483648, 2147483648, 4]")):
        with pytest.raises(RuntimeError, match=r"overflow.* " + re.escape(sizes)):
            make()


def test_larger_than_any_address_space():
    with pytest.raises(ember.OutOfMemoryError, match=r"^empty\(\): DefaultCPUAllocator: not enough memory: "
                                                     r"you tried to allocate 4398046511104 bytes"):
        ember.empty(2**40)  # 4 TiB of float32


def test_larger_than_the_memory_left():
    # fits the address space, so overcommit would map it and the OOM killer end the process on use
    n = int(_available_bytes() * 1.5) // 8
    with pytest.raises(ember.OutOfMemoryError, match=rf"ones\(\): .*you tried to allocate {n * 8} bytes"):
        ember.ones(n, dtype=ember.float64)
    with pytest.raises(MemoryError):
        ember.full((n,), 1.0, dtype=ember.float64)
    assert ember.ones(3).sum().item() == 3.0  # and the process goes on


def test_an_op_whose_result_is_huge():
    x = ember.zeros(1).expand(2**21, 2**21)  # 2**42 elements, no memory behind them
    with pytest.raises(ember.OutOfMemoryError, match=r"^add\(\): .*you tried to allocate 17592186044416 bytes"):
        ember.add(x, 1)
    with pytest.raises(ember.OutOfMemoryError, match=r"^contiguous\(\)"):
        x.contiguous()
    with pytest.raises(RuntimeError, match="you tried to allocate"):
        x * 2  # the operator reaches the same allocator


def test_message_names_no_cpp():
    with pytest.raises(ember.OutOfMemoryError) as info:
        ember.empty(2**45, dtype=ember.float64)
    assert "std::" not in str(info.value) and "bad_alloc" not in str(info.value)
