"""DistributedDataParallel on 2 gloo processes: after training, every rank's parameters equal those of one
process training on the whole global batch (the acceptance criterion), across bucket sizes, bucket views,
no_sync accumulation, unused parameters, SyncBatchNorm, Join with uneven inputs and the comm hooks; plus
the errors PyTorch raises and a rank killed mid-training making the survivor raise instead of hanging."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest
from dist_launch import free_port, launch

import ddp_scenarios as scen
import ember.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without libgloo-dev")

HERE = os.path.dirname(os.path.abspath(__file__))


def _script(call: str) -> str:
    return f"import sys; sys.path.insert(0, {HERE!r}); import ddp_scenarios as s; {call}"


def _env(**extra):
    return {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()), **extra}


def _max_diff(a: list, b: list) -> float:
    return max(float(np.abs(np.array(x) - np.array(y)).max()) for x, y in zip(a, b))


def _run(scenario: str = "basic", **kw) -> list:
    return launch(_script(f"s.run({scenario!r}, **{kw!r})"), 2, env=_env(), timeout=180)


@pytest.mark.parametrize("kw", [{}, {"bucket_cap_mb": 0.0001}, {"as_view": True},
                                {"as_view": True, "bucket_cap_mb": 0.0001}],
                         ids=["one-bucket", "many-buckets", "bucket-view", "bucket-view-many"])
def test_ddp_equals_single_process_on_the_whole_batch(kw):
    ref = scen.params(scen.single_process()[0])
    for r in _run(**kw):
        assert _max_diff(r["params"], ref) < 1e-5, r["rank"]
    # Without reduction each rank would have trained on its half: far from the reference.
    half = scen.mlp()
    opt = scen.make_optimizer("sgd", half.parameters())
    for step in range(scen.STEPS):
        opt.zero_grad()
        x, y = scen.data(step)
        ((half(scen.shard(x, 0, 2)) - scen.shard(y, 0, 2)) ** 2).mean().backward()
        opt.step()
    assert _max_diff(scen.params(half), ref) > 1e-3


def test_no_sync_accumulates_then_reduces_the_sum():
    ref = scen.params(scen.single_process(accumulate=2)[0])
    for r in _run(accumulate=2):
        assert _max_diff(r["params"], ref) < 1e-5


def test_find_unused_parameters():
    ref = scen.params(scen.single_process(with_unused=True)[0])
    for r in _run(with_unused=True, find_unused=True):
        assert _max_diff(r["params"], ref) < 1e-5


def test_unused_parameters_without_detection_raise_naming_them():
    with pytest.raises(AssertionError) as info:
        _run(with_unused=True)
    text = str(info.value)
    assert "Expected to have finished reduction in the prior iteration" in text
    assert "find_unused_parameters=True" in text
    assert "did not receive grad for rank 0: 4 5" in text or "did not receive grad for rank 1: 4 5" in text


def test_sync_batchnorm_equals_batchnorm_on_the_whole_batch():
    ref_model, _ = scen.single_process(norm="syncbn")
    results = _run(norm="syncbn")
    bn = ref_model[1]
    for r in results:
        assert _max_diff(r["params"], scen.params(ref_model)) < 1e-5
        assert _max_diff(r["running"], [bn.running_mean.tolist(), bn.running_var.tolist()]) < 1e-5


@pytest.mark.parametrize("hook", ["allreduce", "powersgd_full", "batched_powersgd_full"])
def test_comm_hooks_that_are_exact(hook):
    ref = scen.params(scen.single_process()[0])
    for r in _run(hook=hook):
        assert _max_diff(r["params"], ref) < 1e-4, hook


@pytest.mark.parametrize("hook, tol", [("fp16", 2e-3), ("bf16", 2e-2)])
def test_compression_hooks_stay_within_their_precision(hook, tol):
    ref = scen.params(scen.single_process()[0])
    for r in _run(hook=hook):
        err = _max_diff(r["params"], ref)
        assert 0 < err < tol, (hook, err)  # rounded (not exact), yet close


def test_join_with_uneven_inputs():
    ref = scen.join_reference()
    results = launch(_script("s.run_join()"), 2, env=_env(), timeout=180)
    for r in results:
        assert _max_diff(r["params"], ref) < 1e-5


def test_join_throw_on_early_termination():
    results = launch(_script("s.run_join(throw=True)"), 2, env=_env(), timeout=180)
    assert results[0]["error"] == "Rank 0 exhausted all inputs."
    assert results[1]["error"] == "Detected at least one rank that exhausted inputs. Throwing across all ranks."


def test_zero_redundancy_optimizer_with_ddp_and_its_consolidated_state_dict():
    ref_model, ref_opt = scen.single_process(optimizer="adam")
    results = _run("zero")
    for r in results:
        assert _max_diff(r["params"], scen.params(ref_model)) < 1e-5
    ref_state = ref_opt.state_dict()["state"]
    got = results[0]["adam_state"]
    assert sorted(got) == sorted(str(k) for k in ref_state)
    for k, v in ref_state.items():
        assert _max_diff(got[str(k)], [v["exp_avg"].tolist(), v["exp_avg_sq"].tolist()]) < 1e-5


def test_a_killed_rank_makes_the_other_raise_within_10_seconds():
    script = _script("s.run('kill')")
    env = dict(os.environ, WORLD_SIZE="2", DDP_TIMEOUT="10", **_env())
    procs = [subprocess.Popen([sys.executable, "-c", script], env=dict(env, RANK=str(r)), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for r in range(2)]
    try:
        assert procs[1].wait(timeout=120) == 17
        died = time.monotonic()
        _, err = procs[0].communicate(timeout=60)
        assert procs[0].returncode != 0
        assert time.monotonic() - died < 10 + 5  # the timeout, plus process exit
        assert "Error" in err
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_powersgd_rank1_is_low_rank_and_error_feedback_recovers_the_mean():
    model = scen.mlp()
    x, y = scen.data(0)
    ((model(x) - y) ** 2).mean().backward()
    exact = [p.grad.numpy() for p in model.parameters()]
    results = launch(_script("s.run_powersgd_fixed()"), 2, env=_env(), timeout=180)
    for r in results:
        first = [np.array(g) for g in r["first"]]
        mean = [np.array(g) for g in r["mean"]]
        for i in (0, 2):  # the weight matrices: one power-iteration step gives a rank-1 gradient
            s = np.linalg.svd(first[i], compute_uv=False)
            assert s[1] < 1e-5 * s[0]
        for i in (1, 3):  # biases go uncompressed: the exact average
            np.testing.assert_allclose(first[i], exact[i], rtol=1e-5, atol=1e-6)
        err_first = np.linalg.norm(first[0] - exact[0]) / np.linalg.norm(exact[0])
        err_mean = np.linalg.norm(mean[0] - exact[0]) / np.linalg.norm(exact[0])
        assert err_first > 0.05  # a rank-1 step really loses information...
        assert err_mean < err_first / 3  # ...which error feedback hands back over the following steps
