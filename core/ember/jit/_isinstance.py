"""ember.jit.isinstance (TorchScript's torch.jit.isinstance): isinstance with script types (List[int],
Dict[str, Tensor], Optional[T], Union[...]) that eager code checks item by item and scripted code compiles
to a run-time check refining the value's type, as isinstance does."""
from __future__ import annotations

import typing


def isinstance(obj, target_type) -> bool:  # noqa: A001  (the name TorchScript gives it)
    """Whether obj is a value of target_type: containers are checked item by item (an empty list is a list of
    every type)."""
    import builtins

    import ember

    origin, args = typing.get_origin(target_type), typing.get_args(target_type)
    if target_type is typing.Any:
        return True
    if target_type is None or target_type is type(None):
        return obj is None
    if origin is typing.Union or type(target_type).__name__ == "UnionType":
        return any(isinstance(obj, a) for a in args)
    if origin is list:
        return builtins.isinstance(obj, list) and (not args or all(isinstance(x, args[0]) for x in obj))
    if origin is tuple:
        return builtins.isinstance(obj, tuple) and (not args or (len(obj) == len(args) and
                                                                  all(isinstance(x, a) for x, a in zip(obj, args))))
    if origin is dict:
        return builtins.isinstance(obj, dict) and (not args or all(isinstance(k, args[0]) and isinstance(v, args[1])
                                                                   for k, v in obj.items()))
    if target_type is int:  # a bool is no int to the script language
        return builtins.isinstance(obj, int) and not builtins.isinstance(obj, bool)
    if target_type is float:
        return builtins.isinstance(obj, float)
    if target_type is ember.Tensor:
        return builtins.isinstance(obj, ember.Tensor)
    return builtins.isinstance(obj, target_type)
