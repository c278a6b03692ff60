"""The fuzzer (tools/fuzz) as a test: a short seeded campaign over every op of the database, the rest of
ember._C and ember.nn.functional must end without a crash, a hang or a non-Python error. The CI part
runs 1,500 calls (about two minutes here); EMBER_FUZZ_CALLS=100000 runs a full campaign
(`python -m tools.fuzz --calls 100000 --seed 1` does the same from the command line)."""
import os
import subprocess
import sys

import pytest

import ember
from tools.fuzz import campaign, runner, values, verdict

CI_CALLS = 1500


def _campaign(seed: int, calls: int, start: int = 0):
    # an unclear message from nn.functional (Python's own error inside our code) fails like the rest
    lines = []
    res = runner.run(seed, calls, start=start, batch=2000, timeout=20.0, log=lines.append)
    assert res.calls == calls
    assert not res.failures, f"{len(res.failures)} failures {res.by_kind()}:\n" + "\n".join(lines[:40])


def test_short_campaign():
    _campaign(seed=29, calls=CI_CALLS)


@pytest.mark.skipif(not os.environ.get("EMBER_FUZZ_CALLS"), reason="a long campaign: set EMBER_FUZZ_CALLS")
def test_long_campaign():
    _campaign(seed=int(os.environ.get("EMBER_FUZZ_SEED", "1")), calls=int(os.environ["EMBER_FUZZ_CALLS"]))


def test_targets_cover_the_op_database_and_functional():
    from tools.opgen import opdb
    paths = {t.path for t in campaign.targets(ember)}
    for op in opdb.load():
        if "function" in op.variants:
            assert op.binding_path in paths, op.name
        if "inplace" in op.variants and op.args and op.args[0].type in ("Tensor", "TensorLike"):
            assert f"Tensor.{op.public_name}_" in paths, op.name
    for name in ("relu", "conv2d", "interpolate", "pad", "cross_entropy", "batch_norm", "grid_sample"):
        assert f"nn.functional.{name}" in paths


def test_calls_are_reproducible():
    t = campaign.targets(ember)
    for i in (0, 17, 12345):
        assert campaign.make_call(t, 5, i).describe() == campaign.make_call(t, 5, i).describe()
    assert campaign.make_call(t, 5, 3).describe() != campaign.make_call(t, 6, 3).describe()


def test_verdicts():
    # clean: ember's own errors about the arguments
    for exc in (RuntimeError("expected a 2-D tensor"), TypeError("add(): argument 'other' must be Tensor"),
                IndexError("index 5 is out of bounds for dimension 0 with size 3"), ValueError("bad reduction")):
        assert verdict.judge(exc, ember) is None
    assert verdict.judge(ember.OutOfMemoryError("add(): DefaultCPUAllocator: not enough memory"), ember) is None
    # failures: C++ text, Python's internal errors, a plain MemoryError
    assert verdict.judge(RuntimeError("std::bad_alloc"), ember) == "cpp_leak"
    assert verdict.judge(RuntimeError("vector::_M_range_check: __n"), ember) == "cpp_leak"
    assert verdict.judge(ZeroDivisionError("float division by zero"), ember) == "internal"
    assert verdict.judge(AttributeError("'int' object has no attribute 'dim'"), ember) == "internal"
    assert verdict.judge(MemoryError(), ember) == "memory"


def _raise_in_ember_code(exc):
    # an exception whose innermost frame is in a file under an "/ember/" directory, as if our code raised it
    code = compile("def f(e):\n    raise e\n", "/x/ember/nn/_fake.py", "exec")
    ns = {}
    exec(code, ns)
    try:
        ns["f"](exc)
    except Exception as e:
        return e


def test_verdicts_on_python_internal_messages():
    # Python's own words, raised inside ember's Python code: our code tripped over its input
    for exc in (TypeError("unhashable type: 'list'"),
                TypeError("'<' not supported between instances of 'str' and 'int'"),
                OverflowError("Python int too large to convert to C ssize_t"),
                TypeError("'int' object is not iterable"),
                ValueError("invalid literal for int() with base 10: 'x'")):
        assert verdict.judge(_raise_in_ember_code(exc), ember) == "internal", exc
    # the same words from the fuzzer's own frame (a C binding raised them) are not ember's Python
    try:
        {}[[1]]
    except TypeError as e:
        assert verdict.judge(e, ember) is None
    # a Tensor's float() message is PyTorch's for a method, but from nn.functional it names no argument
    msg = ValueError("only one element tensors can be converted to Python scalars")
    assert verdict.judge(msg, ember) is None
    assert verdict.judge(msg, ember, nn=True) == "internal"
    # PyTorch's multi_head_attention_forward asserts on its arguments, with a message: clean; a bare
    # assert of ours is not
    assert verdict.judge(AssertionError("was expecting embedding dimension of 4, but got 1"), ember) is None
    assert verdict.judge(AssertionError(), ember) == "internal"


def test_runner_reports_a_crash_and_a_hang(tmp_path, monkeypatch):
    # A child that segfaults on its second call and one that hangs: both pinned to their call.
    fake = tmp_path / "tools" / "fuzz"
    fake.mkdir(parents=True)
    (tmp_path / "tools" / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "child.py").write_text(
        "import argparse, os, signal, time\n"
        "p = argparse.ArgumentParser()\n"
        "for a in ('--seed', '--start', '--stop', '--report', '--mem'): p.add_argument(a, type=int)\n"
        "a = p.parse_args()\n"
        "out = os.fdopen(a.report, 'w', buffering=1)\n"
        "for i in range(a.start, a.stop):\n"
        "    out.write(f'S {i}\\n')\n"
        "    if i == 1: os.kill(os.getpid(), signal.SIGSEGV)\n"
        "    if i == 3: time.sleep(60)\n"
        "out.write('D\\n')\n")
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    monkeypatch.setattr(runner, "describe_call", lambda seed, i: f"call {i}")
    lines = []
    res = runner.run(0, 5, batch=5, timeout=2.0, log=lines.append)
    assert [(f.index, f.kind) for f in res.failures] == [(1, "crash"), (3, "hang")]
    assert "SIGSEGV" in res.failures[0].message
    assert "--seed 0 --replay 1" in lines[0] and "call 1" in lines[0]
    assert res.calls == 5


def test_replay_prints_the_call():
    env = dict(os.environ, PYTHONPATH=str(runner.ROOT))
    out = subprocess.run([sys.executable, "-m", "tools.fuzz", "--seed", "3", "--replay", "7"], cwd=runner.ROOT,
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    expected = campaign.make_call(campaign.targets(ember), 3, 7).describe()
    assert out.stdout.splitlines()[0] == expected


def test_values_stay_small():
    import random
    rng = random.Random(0)
    for _ in range(2000):
        s = values.tensor_spec(rng)
        t = values.build(s, ember, __import__("numpy"))
        real = t.numel() if s.data["layout"] not in ("huge", "expanded", "overlap", "meta") else 0
        assert real <= 2 * values.MAX_ELEMENTS * 2 ** 5
