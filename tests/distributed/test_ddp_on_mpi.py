"""DDP's equalities on backend='mpi' (test_ddp.py runs them on gloo): 2 ranks under mpiexec against one process
on the whole batch, with several buckets, no_sync, uneven inputs under Join, an exact comm hook and SyncBatchNorm,
and ZeRO's consolidated state dict loading into a plain Adam."""
from __future__ import annotations

import os

import pytest
from dist_launch import launch_mpi, mpiexec

import ddp_scenarios as scen
import ember.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_mpi_available() or mpiexec() is None,
                                reason="built without the mpich wheel")

HERE = os.path.dirname(os.path.abspath(__file__))


def _run(call: str) -> list:
    return launch_mpi(f"import sys; sys.path.insert(0, {HERE!r}); import ddp_scenarios as s; {call}", 2, timeout=180)


def _max_diff(a: list, b: list) -> float:
    import numpy as np
    return max(float(np.abs(np.array(x) - np.array(y)).max()) for x, y in zip(a, b))


@pytest.mark.parametrize("kw,ref_kw", [({"bucket_cap_mb": 0.0001}, {}), ({"accumulate": 2}, {"accumulate": 2}),
                                       ({"hook": "powersgd_full"}, {}), ({"norm": "syncbn"}, {"norm": "syncbn"})],
                         ids=["many-buckets", "no_sync", "powersgd-full-rank", "syncbn"])
def test_ddp_on_mpi_equals_single_process(kw, ref_kw):
    ref = scen.params(scen.single_process(**ref_kw)[0])
    for r in _run(f"s.run('basic', **{kw!r})"):
        assert _max_diff(r["params"], ref) < 1e-4, r["rank"]


def test_join_on_mpi():
    ref = scen.join_reference()
    for r in _run("s.run_join()"):
        assert _max_diff(r["params"], ref) < 1e-5


def test_zero_consolidated_state_on_mpi():
    model, opt = scen.single_process(optimizer="adam")
    results = _run("s.run('zero')")
    for r in results:
        assert _max_diff(r["params"], scen.params(model)) < 1e-5
    state = opt.state_dict()["state"]
    for k, v in state.items():
        got = results[0]["adam_state"][str(k)]
        assert _max_diff(got, [v["exp_avg"].tolist(), v["exp_avg_sq"].tolist()]) < 1e-5
