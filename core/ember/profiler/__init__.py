"""ember.profiler: where time and memory go, with torch.profiler's API. `profile` records op calls
(as "aten::<op>"), record_function ranges, autograd nodes, DataLoader fetches and optimizer steps on
every thread, with input shapes, allocated memory, FLOPs and Python stacks when asked; schedules
record chosen steps; results come out as PyTorch's tables, Chrome traces, flame-graph stacks, a
memory timeline, or one self-contained HTML report (export_html)."""
from ._events import EventList, FunctionEvent, FunctionEventAvg
from ._record_function import record_function
from .profiler import (ProfilerAction, ProfilerActivity, _KinetoProfile, profile, schedule, supported_activities,
                       tensorboard_trace_handler)
from . import itt

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler", "ProfilerAction",
           "ProfilerActivity", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg", "itt",
           "_KinetoProfile"]
