"""ember.multiprocessing.spawn / start_processes: fn(i, *args) in nprocs processes; a failure in one
stops the others and raises ProcessRaisedException (with the child's traceback) or
ProcessExitedException (exit code or signal), with PyTorch's messages. One test starts real 'spawn'
children (about a second each: they import ember); the rest fork."""
import os
import signal
import sys
import time

import pytest

import ember
import ember.multiprocessing as mp


def _raise_in_second(i):
    if i == 1:
        raise ValueError("boom from the second process")
    time.sleep(60)  # stopped by the parent once the second one fails


def _exit_with_three(i):
    sys.exit(3)


def _kill_self(i):
    os.kill(os.getpid(), signal.SIGKILL)


def _write_rank(i, shared):
    shared[i] = float(i + 1)


def _fail_after_write(i, shared):
    shared[i] = 5.0
    raise KeyError("spawned failure")


def test_raised_exception_carries_the_child_traceback():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.start_processes(_raise_in_second, nprocs=2, start_method="fork")
    e = info.value
    assert e.error_index == 1 and isinstance(e.error_pid, int)
    assert str(e).startswith("\n\n-- Process 1 terminated with the following error:\nTraceback (most recent call last)")
    assert "ValueError: boom from the second process" in str(e)


def test_exit_code_and_signal():
    with pytest.raises(mp.ProcessExitedException, match="^process 0 terminated with exit code 3$") as info:
        mp.start_processes(_exit_with_three, start_method="fork")
    assert info.value.exit_code == 3 and info.value.signal_name is None
    with pytest.raises(mp.ProcessExitedException, match="^process 0 terminated with signal SIGKILL$") as info:
        mp.start_processes(_kill_self, start_method="fork")
    assert info.value.exit_code == -signal.SIGKILL and info.value.signal_name == "SIGKILL"


def test_no_join_returns_the_context():
    shared = ember.zeros(3).share_memory_()
    ctx = mp.start_processes(_write_rank, args=(shared,), nprocs=3, join=False, start_method="fork")
    assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 3
    while not ctx.join(timeout=30):
        pass
    assert ctx.join() is True and shared.tolist() == [1.0, 2.0, 3.0]


def test_exceptions_pickle():
    import pickle
    e = pickle.loads(pickle.dumps(mp.ProcessExitedException("m", 1, 2, -9, "SIGKILL")))
    assert (e.msg, e.error_index, e.error_pid, e.exit_code, e.signal_name) == ("m", 1, 2, -9, "SIGKILL")


def test_spawn_shares_arguments_and_propagates_errors():
    shared = ember.zeros(2)
    mp.spawn(_write_rank, args=(shared,), nprocs=2)  # the argument reaches the children in shared memory
    assert shared.tolist() == [1.0, 2.0]
    with pytest.warns(FutureWarning, match="This method only supports start_method=spawn \\(got: fork\\)"):
        with pytest.raises(mp.ProcessRaisedException, match="KeyError: 'spawned failure'"):
            mp.spawn(_fail_after_write, args=(shared,), nprocs=1, start_method="fork")
    assert shared.tolist() == [5.0, 2.0]
