"""The profiler's events as PyTorch's profiler hands them out: FunctionEvent (one recorded range with its
children), FunctionEventAvg (events grouped by key_averages) and EventList (tree building, averages,
the table, Chrome trace and flame-graph exports). Times are in microseconds, as PyTorch's."""
from __future__ import annotations

import json
from collections import defaultdict

from . import _flops
from ._table import build_table, format_time

# C++ event kinds (base/trace.h)
KIND_OP, KIND_USER, KIND_AUTOGRAD = 0, 1, 2
# Our dtype names in PyTorch's profiler spelling ("Input type" of a Chrome trace, input dtypes)
_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
               "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
               "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
               "complex128": "c10::complex<double>"}


class FunctionEvent:
    """One recorded range: an op call, a record_function range or an autograd node."""

    def __init__(self, id, name, thread, start_us, end_us, kind=KIND_OP, input_shapes=None, input_dtypes=None,
                 concrete_inputs=None, stack=None, self_cpu_memory_usage=0, scope=0):
        self.id = id
        self.name = name
        self.thread = thread
        self.time_range = _Interval(start_us, end_us)
        self.kind = kind
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_dtypes = input_dtypes if input_dtypes is not None else []
        self.concrete_inputs = concrete_inputs if concrete_inputs is not None else []
        self.stack = stack if stack is not None else []
        self.self_cpu_memory_usage = self_cpu_memory_usage
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.count = 1
        self.scope = scope
        self.is_async = False
        self.is_legacy = False
        self.device_type = "cpu"
        self.device_index = 0
        self.node_id = -1
        self.sequence_nr = -1
        self.overload_name = ""
        self.flops = _flops.flops_of(name, self.input_shapes, self.concrete_inputs) if input_shapes else 0

    key = property(lambda self: self.name)
    is_user_annotation = property(lambda self: self.kind == KIND_USER)
    cpu_time_total = property(lambda self: self.time_range.elapsed_us())
    cpu_time = property(lambda self: self.cpu_time_total)
    self_cpu_time_total = property(
        lambda self: self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children))
    cpu_memory_usage = property(
        lambda self: self.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in self.cpu_children))
    # CPU-only: the device columns are zero, as PyTorch's on a machine without an accelerator
    device_time_total = self_device_time_total = device_time = 0
    device_memory_usage = self_device_memory_usage = 0
    cuda_time_total = self_cuda_time_total = 0
    use_device = None
    self_cpu_time_total_str = property(lambda self: format_time(self.self_cpu_time_total))
    cpu_time_total_str = property(lambda self: format_time(self.cpu_time_total))
    cpu_time_str = property(lambda self: format_time(self.cpu_time))

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_total_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class _Interval:
    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        return self.end - self.start


class FunctionEventAvg:
    """Events with one key (and shape/stack group) added together."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.flops = 0
        self.cpu_parent = None
        self.is_async = False
        self.is_legacy = False
        self.is_user_annotation = False
        self.node_id = -1
        self.overload_name = ""
        self.device_type = "cpu"
        self.device_time_total = self.self_device_time_total = 0
        self.device_memory_usage = self.self_device_memory_usage = 0
        self.cuda_time_total = self.self_cuda_time_total = 0
        self.use_device = None

    cpu_time = property(lambda self: self.cpu_time_total / self.count if self.count else 0.0)
    self_cpu_time_total_str = property(lambda self: format_time(self.self_cpu_time_total))
    cpu_time_total_str = property(lambda self: format_time(self.cpu_time_total))
    cpu_time_str = property(lambda self: format_time(self.cpu_time))

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.is_user_annotation = other.is_user_annotation
            # the average's parent stands for "not top level" in table(top_level_events_only=True)
            self.cpu_parent = other.cpu_parent
        elif other.key != self.key:
            raise AssertionError(f"Expected keys to be the same, but got {self.key} and {other.key}")
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.flops += other.flops
        return self

    __iadd__ = add

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of FunctionEvents (or of averages) with PyTorch's summaries and exports."""

    def __init__(self, *args, **kwargs):
        self._profile_memory = kwargs.pop("profile_memory", False)
        self._with_flops = kwargs.pop("with_flops", False)
        kwargs.pop("use_device", None)
        kwargs.pop("use_cuda", None)
        super().__init__(*args, **kwargs)
        self._tree_built = False

    def _build_tree(self):
        """Parents and children from time nesting, per thread (a range that starts inside another on
        the same thread and ends no later is its child)."""
        by_thread = defaultdict(list)
        for e in self:
            by_thread[e.thread].append(e)
        for events in by_thread.values():
            events.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
            open_ranges: list[FunctionEvent] = []
            for e in events:
                while open_ranges and open_ranges[-1].time_range.end < e.time_range.end:
                    open_ranges.pop()
                if open_ranges:
                    e.cpu_parent = open_ranges[-1]
                    open_ranges[-1].append_cpu_child(e)
                open_ranges.append(e)
        self._tree_built = True

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        groups: dict = defaultdict(FunctionEventAvg)
        for e in self:
            key = [e.key]
            if group_by_input_shapes:
                key.append(str(e.input_shapes))
            if group_by_stack_n > 0:
                key += list(e.stack[:group_by_stack_n])
            groups[tuple(key)].add(e)
        out = EventList(groups.values(), profile_memory=self._profile_memory, with_flops=self._with_flops)
        for avg in out:
            avg.stack = avg.stack[:group_by_stack_n] if group_by_stack_n else []
            if not group_by_input_shapes:
                avg.input_shapes = ""
        return out

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.count += e.count
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
            total.cpu_memory_usage += e.cpu_memory_usage
            total.self_cpu_memory_usage += e.self_cpu_memory_usage
            total.flops += e.flops
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        return build_table(self, sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width, header=header,
                           profile_memory=self._profile_memory, with_flops=self._with_flops,
                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path, memory_events=(), pid=0):
        """Chrome's trace-event JSON (chrome://tracing, Perfetto): one complete ("X") event per range,
        on its thread, and an instant event per allocation when memory was recorded."""
        with open(path, "w") as f:
            json.dump(chrome_trace(self, memory_events, pid), f)
        return path

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Folded stacks for flame graphs (flamegraph.pl, speedscope): one line per event that has a
        Python stack, its frames outermost first and the op last, then the metric in microseconds."""
        if metric not in ("self_cpu_time_total", "self_cuda_time_total", "self_device_time_total"):
            raise ValueError(f"export_stacks: metric should be one of self_cpu_time_total, self_device_time_total; "
                             f"got {metric!r}")
        blank = str.maketrans(" ;\t\n", "____")  # as PyTorch's: the last space separates the value
        with open(path, "w") as f:
            for e in self:
                value = int(getattr(e, metric, 0))
                if e.stack and value > 0:
                    frames = ";".join(s.translate(blank) for s in reversed(e.stack))
                    f.write(f"{frames};{e.name.translate(blank)} {value}\n")


def chrome_trace(events, memory_events=(), pid=0):
    out = []
    for e in events:
        args = {}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
            args["Input type"] = [_TYPE_NAMES.get(t, t) for t in e.input_dtypes]
            if any(e.concrete_inputs):
                args["Concrete Inputs"] = e.concrete_inputs
        if e.stack:
            args["Call stack"] = ";".join(reversed(e.stack))
        if e.flops:
            args["flops"] = e.flops
        cat = {KIND_OP: "cpu_op", KIND_USER: "user_annotation", KIND_AUTOGRAD: "cpu_op"}[e.kind]
        out.append({"ph": "X", "cat": cat, "name": e.name, "pid": pid, "tid": e.thread,
                    "ts": e.time_range.start, "dur": e.time_range.elapsed_us(), "args": args})
    for m in memory_events:
        out.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": pid, "tid": m.thread,
                    "ts": m.ts_us, "args": {"Total Reserved": 0, "Total Allocated": m.total_allocated,
                                            "Bytes": m.bytes, "Addr": m.ptr, "Device Type": 0, "Device Id": -1}})
    return {"schemaVersion": 1, "deviceProperties": [], "traceEvents": out, "displayTimeUnit": "ms",
            "traceName": "ember profiler"}
