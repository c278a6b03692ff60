"""ember.profiler.itt: Intel ITT annotations. This build has no ITT library, so `is_available()` is
False and the range/mark calls do nothing, as PyTorch's do in a build without ITT."""


def is_available():
    return False


def range_push(msg):
    return None


def range_pop():
    return None


def mark(msg):
    return None
