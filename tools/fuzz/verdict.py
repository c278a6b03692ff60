"""Which exceptions count as failures. A clean Python exception (RuntimeError, ValueError, TypeError,
IndexError... with a message about the arguments) passes; C++ text leaking through, or Python's own
internal errors raised inside ember's code on bad input (an IndexError from a list, a division by
zero, a missing attribute), fail."""
from __future__ import annotations

import traceback

# Text that only a C++ exception or the C++ runtime writes.
CPP_LEAKS = ("std::", "basic_string", "vector::_M", "terminate called", "bad_alloc", "bad_array_new_length",
             "St9", "__cxa", "_M_range_check", "what():")
# (PyTorch's own dtype messages name C++ types, "float != c10::complex<double>", and ember's copy them.)

# Messages of Python's own errors that mean ember's code tripped over its input instead of checking it.
INTERNAL_MESSAGES = ("list index out of range", "tuple index out of range", "string index out of range",
                     "integer modulo by zero", "integer division or modulo by zero", "float division by zero",
                     "division by zero", "object has no attribute", "object is not subscriptable",
                     "referenced before assignment", "is not defined", "unsupported operand type",
                     "object is not iterable", "can't multiply sequence", "object cannot be interpreted as an integer",
                     "cannot unpack non-iterable", "not enough values to unpack", "too many values to unpack",
                     "must be real number, not", "'NoneType'", "unhashable type", "math domain error",
                     "object of type", "argument after * must be", "maximum recursion depth",
                     "unhashable type", "not supported between instances of", "bad operand type for",
                     "int too large to convert", "int too big to convert", "cannot convert float",
                     "invalid literal for", "slice indices must be", "indices must be integers or slices",
                     "can only concatenate", "object is not callable", "object does not support item assignment")

# Messages that are right for a Tensor method (PyTorch's own words for float(t), int(t)) but, raised by
# nn.functional's Python code on an argument, leave the user guessing which argument it was.
NN_UNNAMED = ("only one element tensors can be converted to Python scalars",
              "only integer tensors of a single element can be converted to an index")

INTERNAL_TYPES = ("AttributeError", "NameError", "UnboundLocalError", "SystemError", "KeyError", "RecursionError",
                  "StopIteration")
# (an AssertionError with a message is PyTorch's own type where it asserts on arguments, as in
# multi_head_attention_forward; a bare one is an assert of ours tripping over its input)


def _raised_in_ember(exc: BaseException) -> bool:
    """Whether the innermost Python frame that raised is ember's own code (not the fuzzer's)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return True  # raised by C code (a binding) directly
    return "/ember/" in frames[-1].filename.replace("\\", "/")


def judge(exc: BaseException, ember, nn: bool = False) -> str | None:
    """None for a clean exception, else the failure class: "cpp_leak", "internal" or "memory";
    `nn` for a call of ember.nn.functional, whose messages must also name the argument."""
    name = type(exc).__name__
    msg = str(exc)
    if any(s in msg for s in CPP_LEAKS):
        return "cpp_leak"
    oom = getattr(ember, "OutOfMemoryError", ())
    if isinstance(exc, MemoryError) and not isinstance(exc, oom):
        return "memory"  # Python ran out building something huge before ember checked its size
    zde = getattr(ember, "ZeroDivisionRuntimeError", None) or getattr(getattr(ember, "_tensor", None),
                                                                      "ZeroDivisionRuntimeError", None)
    if isinstance(exc, ZeroDivisionError) and not (zde and isinstance(exc, zde)):
        return "internal"
    if name == "AssertionError" and msg.startswith("Ember not compiled with "):
        return None  # a cuda/xpu device: PyTorch's CPU-only build raises this AssertionError, and ember copies it
    if name in INTERNAL_TYPES or (isinstance(exc, AssertionError) and not msg):
        return "internal"
    if any(s in msg for s in INTERNAL_MESSAGES) and _raised_in_ember(exc):
        return "internal"
    if nn and any(s in msg for s in NN_UNNAMED):
        return "internal"
    return None
