"""ember.profiler against counts, times and sizes obtained independently: calls counted by hand or
by module hooks, wall time around the profiled region, the allocator's own statistics, and
hand-computed FLOPs."""
import gzip
import json
import threading
import time
import warnings

import pytest

import ember
import ember.nn as nn
from ember.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule


def _names(prof):
    return [e.name for e in prof.events()]


def _avg(prof, key, **kw):
    (row,) = [a for a in prof.key_averages(**kw) if a.key == key]
    return row


def test_op_calls_are_counted_with_their_names():
    a, b = ember.randn(8, 8), ember.randn(8, 8)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            ember.mm(a, b)
        for _ in range(5):
            a.add(b)
        ember.relu(a)
    names = _names(prof)
    assert names.count("aten::mm") == 3
    assert names.count("aten::add") == 5
    assert names.count("aten::relu") == 1
    assert _avg(prof, "aten::add").count == 5


def test_nothing_is_recorded_outside_a_profile():
    with profile() as prof:
        ember.ones(2)
    ember.mm(ember.ones(2, 2), ember.ones(2, 2))  # after the profile: not in it
    assert "aten::mm" not in _names(prof)
    assert not ember._C._profiler_enabled()


def test_nested_ops_and_record_function_form_a_tree():
    x = ember.randn(16, 16)
    with profile() as prof:
        with record_function("outer"):
            with record_function("inner"):
                ember.mm(x, x)
    (outer,) = [e for e in prof.events() if e.name == "outer"]
    (inner,) = [e for e in prof.events() if e.name == "inner"]
    (mm,) = [e for e in prof.events() if e.name == "aten::mm"]
    assert inner.cpu_parent is outer and mm.cpu_parent is inner
    assert outer.cpu_time_total >= inner.cpu_time_total >= mm.cpu_time_total
    assert inner.self_cpu_time_total == pytest.approx(inner.cpu_time_total - mm.cpu_time_total)


def test_self_times_add_up_to_the_wall_time_of_the_region():
    x = ember.randn(64, 64)
    with profile() as prof:
        t0 = time.perf_counter()
        with record_function("region"):
            for _ in range(50):
                y = ember.mm(x, x).relu().sum()
        wall_us = (time.perf_counter() - t0) * 1e6
    del y
    (region,) = [e for e in prof.events() if e.name == "region"]
    inside = [e for e in prof.events() if e.time_range.start >= region.time_range.start
              and e.time_range.end <= region.time_range.end]
    # the self times of the region and everything in it partition the region's total
    assert sum(e.self_cpu_time_total for e in inside) == pytest.approx(region.cpu_time_total, rel=1e-6)
    # and the region's total is the wall time measured around it (within 5%: the two clock reads)
    assert region.cpu_time_total == pytest.approx(wall_us, rel=0.05)


def test_memory_columns_match_the_allocator_statistics():
    before = ember._C._cpu_memory_allocated()
    probe = ember.empty(1000)  # measures what the allocator charges for this size, outside the profile
    charged = ember._C._cpu_memory_allocated() - before
    del probe
    assert charged >= 4000
    with profile(profile_memory=True) as prof:
        with record_function("alloc"):
            kept = ember.empty(1000)
        with record_function("alloc_and_free"):
            gone = ember.empty(1000)
            del gone
    alloc = _avg(prof, "alloc")
    assert alloc.cpu_memory_usage == charged
    assert alloc.self_cpu_memory_usage == 0  # charged to aten::empty inside it
    assert _avg(prof, "alloc_and_free").cpu_memory_usage == 0
    empty = _avg(prof, "aten::empty")
    assert empty.count == 2 and empty.self_cpu_memory_usage == 2 * charged
    mem = prof._memory_events
    assert [m.bytes for m in mem] == [charged, charged, -charged]
    assert mem[-1].total_allocated == ember._C._cpu_memory_allocated()
    del kept


def test_input_shapes_and_grouping():
    a, b, c = ember.randn(2, 3), ember.randn(3, 4), ember.randn(5, 6)
    with profile(record_shapes=True) as prof:
        ember.mm(a, b)
        ember.mm(a, b)
        ember.mm(c, c.t())
    groups = {(g.key, str(g.input_shapes)): g.count for g in prof.key_averages(group_by_input_shape=True)}
    assert groups[("aten::mm", "[[2, 3], [3, 4]]")] == 2
    assert groups[("aten::mm", "[[5, 6], [6, 5]]")] == 1
    # methods record their tensor too
    with profile(record_shapes=True) as prof:
        a.add(a, alpha=2)
    (add,) = [e for e in prof.events() if e.name == "aten::add"]
    assert add.input_shapes[:2] == [[2, 3], [2, 3]] and add.concrete_inputs[2] == "2"


def test_table_has_pytorchs_columns_and_footer():
    x = ember.randn(4, 4)
    with profile(record_shapes=True, profile_memory=True) as prof:
        ember.mm(x, x)
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=5)
    lines = table.splitlines()
    header = lines[1].split()
    assert " ".join(header) == ("Name Self CPU % Self CPU CPU total % CPU total CPU time avg CPU Mem Self CPU Mem "
                                "# of Calls Input Shapes")
    assert set(lines[0]) == {"-", " "} and lines[0] == lines[2] == lines[-2]
    assert lines[-1].startswith("Self CPU time total: ")
    row = [line for line in lines if "aten::mm" in line][0]
    assert "100.00%" in row and "[[4, 4], [4, 4]]" in row and "64 B" in row


def test_flops_of_matmul_and_convolution():
    with profile(with_flops=True) as prof:
        ember.mm(ember.randn(6, 7), ember.randn(7, 8))
        nn.functional.conv2d(ember.randn(2, 3, 10, 12), ember.randn(4, 3, 3, 5), stride=(1, 2), padding=1)
    assert _avg(prof, "aten::mm").flops == 2 * 6 * 7 * 8
    out_h, out_w = (10 + 2 - 3) // 1 + 1, (12 + 2 - 5) // 2 + 1
    assert _avg(prof, "aten::convolution").flops == 2 * 2 * out_h * out_w * 4 * 3 * 3 * 5
    assert "Total KFLOPs" in prof.key_averages().table() or "Total FLOPs" in prof.key_averages().table()


def test_chrome_trace_is_json_with_nested_ranges(tmp_path):
    with profile(record_shapes=True) as prof:
        with record_function("outer"):
            with record_function("inner"):
                ember.ones(3).sum()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    by_name = {e["name"]: e for e in trace["traceEvents"]}
    outer, inner, total = by_name["outer"], by_name["inner"], by_name["aten::sum"]
    assert outer["cat"] == inner["cat"] == "user_annotation" and total["cat"] == "cpu_op"
    assert outer["ts"] <= inner["ts"] <= total["ts"]
    assert total["ts"] + total["dur"] <= inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 1e-6
    assert total["args"]["Input Dims"][0] == [3] and total["args"]["Input type"][0] == "float"


def test_schedule_actions():
    s = schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    expected = [ProfilerAction.NONE, ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD,
                ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE, ProfilerAction.NONE]
    assert [s(i) for i in range(7)] == expected
    s = schedule(wait=0, warmup=1, active=1)  # repeat=0: forever
    assert [s(i) for i in range(4)] == [ProfilerAction.WARMUP, ProfilerAction.RECORD_AND_SAVE] * 2
    with pytest.raises(AssertionError):
        schedule(wait=1, warmup=1, active=0)


def test_schedule_records_exactly_the_active_steps():
    ready = []
    x = ember.randn(4, 4)
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=lambda p: ready.append([e.name for e in p.events()])) as prof:
        for step in range(10):
            with record_function(f"work{step}"):
                ember.mm(x, x)
            prof.step()
    assert len(ready) == 2
    assert sorted(n for n in ready[0] if n.startswith("work")) == ["work2", "work3"]
    assert sorted(n for n in ready[1] if n.startswith("work")) == ["work6", "work7"]
    assert sorted(n for n in ready[0] if n.startswith("ProfilerStep")) == ["ProfilerStep#2", "ProfilerStep#3"]
    assert ready[1].count("aten::mm") == 2


def test_tensorboard_trace_handler_writes_one_file_per_cycle(tmp_path):
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2),
                 on_trace_ready=ember.profiler.tensorboard_trace_handler(str(tmp_path), worker_name="w")) as p:
        for _ in range(5):
            ember.ones(2).exp()
            p.step()
    files = sorted(tmp_path.iterdir())
    assert len(files) == 2 and all(f.name.startswith("w.") and f.name.endswith(".pt.trace.json") for f in files)
    assert any(e["name"] == "aten::exp" for e in json.loads(files[0].read_text())["traceEvents"])


def test_backward_nodes_dataloader_and_optimizer_steps_are_recorded():
    model = nn.Linear(4, 2)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    data = ember.utils.data.TensorDataset(ember.randn(6, 4), ember.randn(6, 2))
    loader = ember.utils.data.DataLoader(data, batch_size=3)
    with profile() as prof:
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    names = _names(prof)
    assert names.count("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__") == 3  # 2 batches + the end
    assert names.count("Optimizer.step#SGD.step") == 2
    engine = [n for n in names if n.startswith("autograd::engine::evaluate_function: ")]
    assert engine and all(n.split(": ", 1)[1] in names for n in engine)


def test_with_stack_and_export_stacks(tmp_path):
    def my_function_for_the_stack():
        return ember.ones(1 << 20).neg()  # long enough for a whole microsecond in the stacks file

    with profile(with_stack=True) as prof:
        my_function_for_the_stack()
    (neg,) = [e for e in prof.events() if e.name == "aten::neg"]
    assert "my_function_for_the_stack" in neg.stack[0] and "test_profiler.py" in neg.stack[0]
    path = tmp_path / "stacks.txt"
    prof.export_stacks(str(path))
    lines = [line for line in path.read_text().splitlines() if line.split(" ")[0].endswith("aten::neg")]
    assert lines and int(lines[0].rsplit(" ", 1)[1]) >= 0
    assert "my_function_for_the_stack" in lines[0].split(";")[-2] and " " not in lines[0].rsplit(" ", 1)[0]


def test_with_modules_names_module_ranges():
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
    with profile(with_modules=True) as prof:
        model(ember.randn(2, 3))
    names = _names(prof)
    assert "nn.Module: Sequential_0" in names and "nn.Module: Linear_0" in names and "nn.Module: ReLU_0" in names
    model(ember.randn(2, 3))  # the hooks are gone once the profile stops
    assert not nn.modules.module._global_forward_pre_hooks


def test_events_of_other_threads_carry_their_thread():
    def work():
        ember.ones(2).cos()

    with profile() as prof:
        t = threading.Thread(target=work)
        t.start()
        t.join()
        ember.ones(2).sin()
    (cos,) = [e for e in prof.events() if e.name == "aten::cos"]
    (sin,) = [e for e in prof.events() if e.name == "aten::sin"]
    assert cos.thread != sin.thread


def test_record_function_as_decorator_and_outside_a_profile():
    @record_function("decorated")
    def f(x):
        return x * 2

    assert f(ember.ones(1)).item() == 2.0  # no profile: just runs
    with profile() as prof:
        f(ember.ones(1))
    assert _names(prof).count("decorated") == 1


def test_legacy_autograd_profiler_api():
    with ember.autograd.profiler.profile(record_shapes=True) as prof:
        with ember.autograd.profiler.record_function("legacy"):
            ember.ones(2, 2).matmul(ember.ones(2, 2))
    assert "legacy" in [e.name for e in prof.function_events]
    assert "aten::matmul" in prof.key_averages().table()
    assert prof.self_cpu_time_total > 0
    with ember.autograd.profiler.emit_nvtx(), ember.autograd.profiler.emit_itt():
        ember.ones(1)


def test_bad_arguments():
    with pytest.raises(TypeError, match="name must be a str"):
        record_function(3)
    with pytest.raises(RuntimeError, match="CUDA is not available|ProfilerActivity.CPU"):
        profile(activities=[ProfilerActivity.CUDA])
    with profile() as prof:
        ember.ones(1)
    with pytest.raises(AssertionError, match="record_shapes"):
        prof.key_averages(group_by_input_shape=True)
    with pytest.raises(RuntimeError, match="with_stack"):
        prof.export_stacks("unused.txt")
    with pytest.raises(RuntimeError, match="profile_memory"):
        prof.memory_timeline()
    fresh = ember.autograd.profiler.profile()
    with pytest.raises(RuntimeError, match="didn't finish"):
        fresh.key_averages()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="warmup"):
            schedule(wait=0, warmup=0, active=1)


def test_python_operators_are_recorded_as_their_ops():
    a, b = ember.ones(2, 2), ember.ones(2, 2)
    with profile(record_shapes=True) as prof:
        c = a + b
        c += 1
        d = a @ b
        e = -(a < b).float()
        f = 2 / a
    del c, d, e, f
    names = _names(prof)
    for op in ("aten::add", "aten::add_", "aten::matmul", "aten::lt", "aten::neg", "aten::div"):
        assert op in names, op
    (add,) = [e for e in prof.events() if e.name == "aten::add"]
    assert add.input_shapes == [[2, 2], [2, 2]]


def test_gzip_exports_metadata_and_memory_timeline(tmp_path):
    handler = ember.profiler.tensorboard_trace_handler(str(tmp_path / "tb"), "w", use_gzip=True)
    with profile(profile_memory=True, schedule=schedule(wait=0, warmup=1, active=1), on_trace_ready=handler) as p:
        for _ in range(2):
            keep = ember.empty(1000)
            p.step()
    del keep
    (gz,) = (tmp_path / "tb").iterdir()
    assert gz.name.endswith(".pt.trace.json.gz")
    assert any(e["name"] == "aten::empty" for e in json.loads(gzip.open(gz, "rt").read())["traceEvents"])
    p.add_metadata("run", "a")
    p.add_metadata_json("config", '{"lr": 0.1}')
    p.export_chrome_trace(str(tmp_path / "t.json.gz"))
    trace = json.loads(gzip.open(tmp_path / "t.json.gz", "rt").read())
    assert trace["run"] == "a" and trace["config"] == {"lr": 0.1}
    p.export_memory_timeline(str(tmp_path / "mem.json"))
    times, sizes = json.loads((tmp_path / "mem.json").read_text())
    assert len(times) == len(sizes) == len(p._memory_events) > 0 and times == sorted(times)
    assert sizes == [m.total_allocated for m in p._memory_events]
