"""ember.utils.benchmark: time statements honestly (Timer, Measurement), print comparisons (Compare),
generate benchmark inputs (Fuzzer) and count instructions (Timer.collect_callgrind), with
torch.utils.benchmark's API. Beyond it: Measurements record how much CPU other processes took while
they ran, and Timer.ratio_to times two statements in alternation for a ratio measured in one run."""
from .utils.common import Measurement, TaskSpec, select_unit, trim_sigfig
from .utils.compare import Colorize, Compare
from .utils.fuzzer import Fuzzer, FuzzedParameter, FuzzedTensor, ParameterAlias
from .utils.timer import Language, Ratio, Timer, timer
from .utils.valgrind_wrapper.timer_interface import CallgrindStats, FunctionCount, FunctionCounts

__all__ = ["Timer", "timer", "Language", "Ratio", "Measurement", "TaskSpec", "Compare", "Colorize", "Fuzzer",
           "FuzzedParameter", "FuzzedTensor", "ParameterAlias", "CallgrindStats", "FunctionCount", "FunctionCounts",
           "select_unit", "trim_sigfig"]
