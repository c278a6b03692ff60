"""Script versions of the ember.nn.functional functions the core's nn modules call (convolutions, pooling,
normalizations, embedding): their eager bodies check arguments with Python the compiler does not take
(helpers over arbitrary objects, `with no_grad()`, dtype sets), so a scripted call compiles one of these,
written in the script language over the same ops (as TorchScript maps functions to builtins). Each
computes what the eager function does; argument forms (an int or a tuple) are resolved when compiling."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import ember
from ember import Tensor

from ._ops import aten


def _int_list(v: Any, n: int) -> List[int]:
    """An int or a sequence of ints as n ints (one value repeated), as the eager functions take them."""
    if isinstance(v, int):
        return [v] * n
    out: List[int] = []
    for x in v:
        out.append(x)
    if len(out) == 1:
        return out * n
    if len(out) != n:
        raise RuntimeError(f"expected a single integer value or a list of {n} values, but got {out}")
    return out


def _check_dims(input: Tensor, nd: int, name: str) -> bool:
    """Whether input is unbatched (nd + 1 dims); raises unless it has nd + 1 or nd + 2."""
    if input.dim() != nd + 1 and input.dim() != nd + 2:
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
                           f"size: {input.shape}")
    return input.dim() == nd + 1


def _same_padding(x: Tensor, weight: Tensor, padding: str, stride: List[int], dilation: List[int],
                  nd: int) -> Tuple[Tensor, List[int]]:
    if padding == "valid":
        return x, [0] * nd
    if padding != "same":
        raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    for s in stride:
        if s != 1:
            raise RuntimeError("padding='same' is not supported for strided convolutions")
    left: List[int] = []
    for i in range(nd):
        total = dilation[i] * (weight.size(2 + i) - 1)
        left.append(total // 2)
        if total % 2 == 1:  # the odd one on the right, as PyTorch pads it
            d = 2 + i
            x = ember.cat([x, ember.zeros_like(x.narrow(d, 0, 1))], d)
    return x, left


def _conv(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any, padding: Any, dilation: Any,
          groups: int, nd: int, name: str) -> Tensor:
    unbatched = _check_dims(input, nd, name)
    s, d = _int_list(stride, nd), _int_list(dilation, nd)
    if not isinstance(padding, str):  # one node for the optimization passes to see, as TorchScript's aten::conv2d
        return aten._conv_nd(input, weight, bias, s, _int_list(padding, nd), d, groups)
    x = input.unsqueeze(0) if unbatched else input
    x, p = _same_padding(x, weight, padding, s, d, nd)
    out = aten.convolution(x, weight, bias, s, p, d, False, [0] * nd, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any, padding: Any,
                    output_padding: Any, groups: int, dilation: Any, nd: int, name: str) -> Tensor:
    unbatched = _check_dims(input, nd, name)
    x = input.unsqueeze(0) if unbatched else input
    out = aten.convolution(x, weight, bias, _int_list(stride, nd), _int_list(padding, nd), _int_list(dilation, nd),
                           True, _int_list(output_padding, nd), groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


def conv_transpose2d(input, weight, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


def conv_transpose3d(input, weight, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d")


# --- pooling ----------------------------------------------------------------------------------------
def _max_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool,
              return_indices: bool, nd: int) -> Any:
    unbatched = _check_dims(input, nd, f"max_pool{nd}d")
    x = input.unsqueeze(0) if unbatched else input
    k = _int_list(kernel_size, nd)
    if stride is None:
        s = k
    else:
        s = _int_list(stride, nd)
    values, indices = aten.max_pool(x, k, s, _int_list(padding, nd), _int_list(dilation, nd), ceil_mode)
    if unbatched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    if return_indices:  # a constant (the modules list it in __constants__), as TorchScript requires
        return values, indices
    return values


def max_pool1d(input, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


def max_pool2d(input, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def max_pool3d(input, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


def _avg_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool, count_include_pad: bool,
              divisor_override: Optional[int], nd: int) -> Tensor:
    unbatched = _check_dims(input, nd, f"avg_pool{nd}d")
    x = input.unsqueeze(0) if unbatched else input
    k = _int_list(kernel_size, nd)
    if stride is None:
        s = k
    else:
        s = _int_list(stride, nd)
    out = aten.avg_pool(x, k, s, _int_list(padding, nd), ceil_mode, count_include_pad, divisor_override)
    return out.squeeze(0) if unbatched else out


def avg_pool1d(input, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


def avg_pool2d(input, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: Optional[int] = None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


def avg_pool3d(input, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: Optional[int] = None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


def _output_size(x: Tensor, output_size: Any, nd: int) -> List[int]:
    """output_size as nd ints, None entries taken from the input's spatial size."""
    if isinstance(output_size, int):
        return [output_size] * nd
    out: List[int] = []
    k = 0
    for v in output_size:
        if v is None:
            out.append(x.size(x.dim() - nd + k))
        else:
            out.append(v)
        k += 1
    if len(out) == 1:
        return out * nd
    return out


def _adaptive_avg(input: Tensor, output_size: Any, nd: int) -> Tensor:
    unbatched = _check_dims(input, nd, f"adaptive_avg_pool{nd}d")
    x = input.unsqueeze(0) if unbatched else input
    out = aten.adaptive_avg_pool(x, _output_size(x, output_size, nd))
    return out.squeeze(0) if unbatched else out


def adaptive_avg_pool1d(input, output_size: Any):
    return _adaptive_avg(input, output_size, 1)


def adaptive_avg_pool2d(input, output_size: Any):
    return _adaptive_avg(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size: Any):
    return _adaptive_avg(input, output_size, 3)


def _adaptive_max(input: Tensor, output_size: Any, return_indices: bool, nd: int) -> Any:
    unbatched = _check_dims(input, nd, f"adaptive_max_pool{nd}d")
    x = input.unsqueeze(0) if unbatched else input
    values, indices = aten.adaptive_max_pool(x, _output_size(x, output_size, nd))
    if unbatched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    if return_indices:
        return values, indices
    return values


def adaptive_max_pool1d(input, output_size: Any, return_indices: bool = False):
    return _adaptive_max(input, output_size, return_indices, 1)


def adaptive_max_pool2d(input, output_size: Any, return_indices: bool = False):
    return _adaptive_max(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input, output_size: Any, return_indices: bool = False):
    return _adaptive_max(input, output_size, return_indices, 3)
