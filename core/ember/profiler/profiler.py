"""ember.profiler.profile: PyTorch's torch.profiler API on ember's recorder (base/trace.h). A profile
records op calls, record_function ranges, autograd nodes, DataLoader fetches and optimizer steps on
the CPU; with a schedule it records only the active steps of each cycle and hands each finished
cycle to on_trace_ready."""
from __future__ import annotations

import enum
import gzip
import json
import os
import socket
import time
import warnings

from ember import _C, _profiler_hooks

from ._events import EventList, FunctionEvent, chrome_trace
from ._memory import MemoryEvent, memory_timeline

_FLAG_MEMORY, _FLAG_SHAPES, _FLAG_STACK = 2, 4, 8


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3
    PrivateUse1 = 4


def supported_activities():
    """The activities this build can record: the CPU only (no accelerator here)."""
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action for each step: skip `skip_first` steps, then cycles of `wait` idle steps, `warmup`
    steps and `active` recorded steps (the last one RECORD_AND_SAVE), `repeat` times (0: forever).
    With skip_first_wait, the first cycle has no wait steps."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step should be non-negative, got {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule(_step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready that writes each trace as `{worker_name}.{ns}.pt.trace.json[.gz]` into dir_name
    (TensorBoard's profiler plugin reads that folder)."""

    def handler_fn(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        path = os.path.join(dir_name, name)
        if use_gzip:
            with gzip.open(path, "wt") as f:
                json.dump(prof._chrome_trace(), f)
        else:
            prof.export_chrome_trace(path)
        return path

    return handler_fn


class _KinetoProfile:
    """Recording without a schedule: start() ... stop(), then the events and exports."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None):
        activities = set(activities) if activities is not None else supported_activities()
        if use_cuda:
            activities.add(ProfilerActivity.CUDA)
        unsupported = activities - supported_activities()
        if unsupported:
            names = ", ".join(sorted(a.name for a in unsupported))
            raise RuntimeError(f"ember.profiler: this build records only ProfilerActivity.CPU; {names} is not "
                               f"available (no accelerator)")
        self.activities = activities
        self.record_shapes = record_shapes or with_flops  # FLOPs are computed from the shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.acc_events = acc_events
        self._function_events = None
        self._memory_events: list = []
        self._metadata: dict = {}
        self._recording = False
        self._module_hooks = None
        self._t0_ns = None

    # -- recording ----------------------------------------------------------------------------------------
    def start(self):
        self._start_trace()

    def stop(self):
        self._stop_trace()

    def _start_trace(self):
        if self._recording:
            return
        flags = ((_FLAG_MEMORY if self.profile_memory else 0) | (_FLAG_SHAPES if self.record_shapes else 0)
                 | (_FLAG_STACK if self.with_stack else 0))
        _C._profiler_start(flags)
        self._recording = True
        _profiler_hooks.state.recording = True
        if self.with_modules:
            from ._modules import ModuleRanges
            self._module_hooks = ModuleRanges()

    def _stop_trace(self):
        if not self._recording:
            return
        if self._module_hooks is not None:
            self._module_hooks.remove()
            self._module_hooks = None
        raw_events, raw_memory = _C._profiler_stop()
        self._recording = False
        _profiler_hooks.state.recording = False
        self._take(raw_events, raw_memory)

    def _take(self, raw_events, raw_memory):
        t0 = min([e[3] for e in raw_events] + [m[0] for m in raw_memory], default=0)
        events = [FunctionEvent(i, name, tid, (start - t0) / 1e3, (end - t0) / 1e3, kind=kind,
                                input_shapes=shapes if self.record_shapes else None,
                                input_dtypes=dtypes if self.record_shapes else None,
                                concrete_inputs=concrete if self.record_shapes else None,
                                stack=stack if self.with_stack else None, self_cpu_memory_usage=mem)
                  for i, (name, kind, tid, start, end, mem, shapes, dtypes, concrete, stack) in enumerate(raw_events)]
        events.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
        new = EventList(events, profile_memory=self.profile_memory, with_flops=self.with_flops)
        new._build_tree()
        memory = [MemoryEvent((ts - t0) / 1e3, tid, nbytes, total, ptr)
                  for ts, tid, nbytes, total, ptr in sorted(raw_memory)]
        if self.acc_events and self._function_events is not None:
            self._function_events.extend(new)
            self._memory_events.extend(memory)
        else:
            self._function_events, self._memory_events = new, memory

    # -- results ------------------------------------------------------------------------------------------
    def events(self):
        if self._function_events is None:
            raise RuntimeError("ember.profiler: no recorded events (the profiler has not recorded yet)")
        return self._function_events

    @property
    def function_events(self):
        return self.events()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        if group_by_input_shape and not self.record_shapes:
            raise AssertionError("group_by_input_shape needs the profile to have recorded shapes (record_shapes=True)")
        if group_by_stack_n and not self.with_stack:
            raise AssertionError("group_by_stack_n needs the profile to have recorded stacks (with_stack=True)")
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def add_metadata(self, key, value):
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        self._metadata[key] = json.loads(value)

    def _chrome_trace(self):
        trace = chrome_trace(self.events(), self._memory_events, os.getpid())
        trace.update(self._metadata)
        return trace

    def export_chrome_trace(self, path):
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "wt") as f:
            json.dump(self._chrome_trace(), f)
        return path

    def export_stacks(self, path, metric="self_cpu_time_total"):
        if not self.with_stack:
            raise RuntimeError("export_stacks: the profile was recorded without stacks (with_stack=True)")
        return self.events().export_stacks(path, metric)

    def memory_timeline(self):
        """(times in us, bytes allocated after each event) of the recording; needs profile_memory."""
        if not self.profile_memory:
            raise RuntimeError("ember.profiler: the memory timeline needs profile_memory=True")
        return memory_timeline(self._memory_events)

    def export_memory_timeline(self, path, device=None):
        """The memory timeline as JSON ([times_us, bytes]) or, for a .html path, as the HTML report."""
        if str(path).endswith(".html"):
            return self.export_html(path)
        times, sizes = self.memory_timeline()
        with open(path, "w") as f:
            json.dump([times, sizes], f)
        return path

    def export_html(self, path):
        """One self-contained HTML file: a zoomable timeline per thread, the op table (sortable) and
        memory over time. It needs nothing else to open (no network, no TensorBoard)."""
        from ._html import write_html
        return write_html(self, path)


class profile(_KinetoProfile):
    """Context manager (and step() driver) recording ember's CPU activity: op calls with their input
    shapes, memory and Python stacks when asked, under a schedule of wait/warmup/active steps."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        super().__init__(activities=activities, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules,
                         acc_events=acc_events, use_cuda=use_cuda)
        self.schedule = schedule or _default_schedule
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._step_range = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        return False

    def start(self):
        self._act(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self):
        self._close_step()
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._finish_cycle()
        elif self.current_action == ProfilerAction.WARMUP:
            # stopped in a warm-up: nothing was recorded; the cycle ends empty as PyTorch's does
            self._stop_trace()

    def step(self):
        """Marks the end of a step: the schedule decides what the next one records."""
        self._close_step()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._act(previous, self.current_action)
        self._open_step()

    def _recording_action(self, action):
        return action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

    def _act(self, previous, current):
        saving = previous == ProfilerAction.RECORD_AND_SAVE
        if self._recording_action(previous) and not saving and not self._recording_action(current):
            warnings.warn(f"Incorrect schedule: {previous.name} followed by {current.name}", stacklevel=3)
            self._stop_trace()
        if saving:
            self._finish_cycle()
        if self._recording_action(current) and not self._recording:
            self._start_trace()

    def _finish_cycle(self):
        self._stop_trace()
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _open_step(self):
        if self.record_steps and self._recording:
            self._step_range = _profiler_hooks.Range(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step(self):
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None
