"""ember.autograd.profiler: PyTorch 1.6's profiler API (profile with use_cuda/record_shapes/
profile_memory/with_stack, record_function, emit_nvtx/emit_itt), on the same recorder as
ember.profiler."""
from __future__ import annotations

import contextlib

from ember.profiler import EventList, FunctionEvent, FunctionEventAvg, ProfilerActivity, record_function
from ember.profiler.profiler import _KinetoProfile

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList", "FunctionEvent", "FunctionEventAvg",
           "load_nvprof"]


class profile:
    """with profile() as prof: ...; then prof.key_averages().table(), prof.export_chrome_trace(path)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled = enabled
        if not enabled:
            return
        if not use_cpu:
            raise RuntimeError("ember.autograd.profiler.profile: use_cpu=False leaves nothing to record on this "
                               "CPU-only build")
        self._prof = _KinetoProfile(activities=[ProfilerActivity.CPU], record_shapes=record_shapes,
                                    with_flops=with_flops, profile_memory=profile_memory, with_stack=with_stack,
                                    with_modules=with_modules, use_cuda=use_cuda or use_device == "cuda")
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._prof.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.enabled:
            self._prof.stop()
        return False

    def _check_finished(self):
        if not self.enabled:
            raise RuntimeError("Profiler was disabled: there are no events")
        if self._prof._recording or self._prof._function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    @property
    def function_events(self):
        self._check_finished()
        return self._prof.events()

    def events(self):
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check_finished()
        return self._prof.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self):
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        return self.function_events.self_cpu_time_total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit,
                                          max_src_column_width=max_src_column_width,
                                          max_name_column_width=max_name_column_width,
                                          max_shapes_column_width=max_shapes_column_width, header=header,
                                          top_level_events_only=top_level_events_only)

    def export_chrome_trace(self, path):
        self._check_finished()
        return self._prof.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._check_finished()
        return self._prof.export_stacks(path, metric)

    def __str__(self):
        return self.table()

    def __repr__(self):
        return repr(self.function_events) if self.enabled and self._prof._function_events is not None else \
            "<unfinished ember.autograd.profiler.profile>"


@contextlib.contextmanager
def emit_nvtx(enabled=True, record_shapes=False):
    """NVTX ranges are for CUDA tools; on this CPU-only build there is nothing to emit to."""
    yield


@contextlib.contextmanager
def emit_itt(enabled=True, record_shapes=False):
    """ITT ranges need Intel's ITT library, which this build does not have (ember.profiler.itt)."""
    yield


def load_nvprof(path):
    raise RuntimeError("load_nvprof reads CUDA nvprof traces; this CPU-only build has none")
