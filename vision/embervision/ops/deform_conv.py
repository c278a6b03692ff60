"""Deformable convolution (v1; v2 with a mask): the C++ deform_im2col samples the input at each tap's
offset position, a grouped matmul with the weight does the rest (so weight and bias get autograd's
ordinary gradients)."""

import math

import ember
from ember import nn
from ember.nn import init

from ._utils import autocast_fp32, pair


def deform_conv2d(input, offset, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), mask=None):
    """input [B, C, H, W], offset [B, 2 * G * kh * kw, OH, OW], weight [O, C / groups, kh, kw],
    mask [B, G * kh * kw, OH, OW] or None; returns [B, O, OH, OW]. Inside a CPU autocast region it runs in
    float32 with autocast off and returns the input's dtype, as torchvision's autocast kernel does."""
    if ember.is_autocast_enabled("cpu"):
        cast = [None if t is None else autocast_fp32(t) for t in (input, offset, weight, bias, mask)]
        with ember.autocast("cpu", enabled=False):
            out = _deform_conv2d(cast[0], cast[1], cast[2], cast[3], stride, padding, dilation, cast[4])
        return out.to(input.dtype)
    return _deform_conv2d(input, offset, weight, bias, stride, padding, dilation, mask)


def _deform_conv2d(input, offset, weight, bias, stride, padding, dilation, mask):
    if weight.dim() != 4:
        raise RuntimeError(f"deform_conv2d: weight must be 4-d (out, in / groups, kh, kw), got shape "
                           f"{tuple(weight.shape)}")
    out_channels, per_group, kh, kw = weight.shape
    in_channels = input.shape[1] if input.dim() == 4 else -1
    if per_group == 0 or in_channels % per_group != 0:
        raise RuntimeError(f"deform_conv2d: input channels ({in_channels}) must be a multiple of weight.shape[1] "
                           f"({per_group})")
    groups = in_channels // per_group
    if out_channels % groups != 0:
        raise RuntimeError(f"deform_conv2d: output channels ({out_channels}) must be divisible by the weight "
                           f"groups ({groups})")
    geometry = [kh, kw, *pair(stride), *pair(padding), *pair(dilation)]
    cols = ember.ops.vision.deform_im2col(input, offset, mask, geometry)
    batch, out_h, out_w = input.shape[0], offset.shape[2], offset.shape[3]
    cols = cols.view(batch, groups, per_group * kh * kw, out_h * out_w)
    w = weight.reshape(groups, out_channels // groups, per_group * kh * kw)
    out = ember.matmul(w.unsqueeze(0), cols).reshape(batch, out_channels, out_h, out_w)
    if bias is not None:
        out = out + bias.view(1, -1, 1, 1)
    return out


class DeformConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True):
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = pair(kernel_size)
        self.stride, self.padding, self.dilation = pair(stride), pair(padding), pair(dilation)
        self.groups = groups
        self.weight = nn.Parameter(ember.empty(out_channels, in_channels // groups, *self.kernel_size))
        self.bias = nn.Parameter(ember.empty(out_channels)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * self.kernel_size[0] * self.kernel_size[1]
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input, offset, mask=None):
        return deform_conv2d(input, offset, self.weight, self.bias, self.stride, self.padding, self.dilation, mask)

    def __repr__(self):
        s = (f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
             f", stride={self.stride}")
        s += f", padding={self.padding}" if self.padding != (0, 0) else ""
        s += f", dilation={self.dilation}" if self.dilation != (1, 1) else ""
        s += f", groups={self.groups}" if self.groups != 1 else ""
        s += ", bias=False" if self.bias is None else ""
        return s + ")"
