"""The losses' reduction: the deprecated size_average / reduce arguments mapped to reduction as
PyTorch does, and the reduction itself."""


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def _reduce(loss, reduction):
    """A loss's elementwise values reduced as `reduction` says ('none', 'mean' or 'sum')."""
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


_CODES = {"none": 0, "mean": 1, "sum": 2}


def reduction_code(reduction):
    """The reduction as the loss ops' enum (0 none, 1 mean, 2 sum), refusing anything else as
    PyTorch does (a dict or list given must not fail to hash first)."""
    code = _CODES.get(reduction) if isinstance(reduction, str) else None
    if code is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return code
