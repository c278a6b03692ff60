"""RegNetX/RegNetY (Radosavovic et al. 2020): stage widths and depths from the quantized linear rule
(depth, w_0, w_a, w_m), bottleneck blocks with group convs (and squeeze-excitation for Y)."""

import math
from collections import OrderedDict
from functools import partial

import ember
from ember import nn

from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ._utils import _make_divisible, make_builder


class SimpleStemIN(Conv2dNormActivation):
    def __init__(self, width_in, width_out, norm_layer, activation_layer):
        super().__init__(width_in, width_out, kernel_size=3, stride=2, norm_layer=norm_layer,
                         activation_layer=activation_layer)


class BottleneckTransform(nn.Sequential):
    def __init__(self, width_in, width_out, stride, norm_layer, activation_layer, group_width, bottleneck_multiplier,
                 se_ratio):
        layers = OrderedDict()
        w_b = int(round(width_out * bottleneck_multiplier))
        g = w_b // group_width
        layers["a"] = Conv2dNormActivation(width_in, w_b, kernel_size=1, stride=1, norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        layers["b"] = Conv2dNormActivation(w_b, w_b, kernel_size=3, stride=stride, groups=g, norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        if se_ratio:
            layers["se"] = SqueezeExcitation(w_b, int(round(se_ratio * width_in)), activation=activation_layer)
        layers["c"] = Conv2dNormActivation(w_b, width_out, kernel_size=1, stride=1, norm_layer=norm_layer,
                                           activation_layer=None)
        super().__init__(layers)


class ResBottleneckBlock(nn.Module):
    def __init__(self, width_in, width_out, stride, norm_layer, activation_layer, group_width=1,
                 bottleneck_multiplier=1.0, se_ratio=None):
        super().__init__()
        self.proj = None
        if width_in != width_out or stride != 1:
            self.proj = Conv2dNormActivation(width_in, width_out, kernel_size=1, stride=stride, norm_layer=norm_layer,
                                             activation_layer=None)
        self.f = BottleneckTransform(width_in, width_out, stride, norm_layer, activation_layer, group_width,
                                     bottleneck_multiplier, se_ratio)
        self.activation = activation_layer(inplace=True)

    def forward(self, x):
        shortcut = x if self.proj is None else self.proj(x)
        return self.activation(shortcut + self.f(x))


class AnyStage(nn.Sequential):
    def __init__(self, width_in, width_out, stride, depth, block_constructor, norm_layer, activation_layer,
                 group_width, bottleneck_multiplier, se_ratio=None, stage_index=0):
        super().__init__()
        for i in range(depth):
            block = block_constructor(width_in if i == 0 else width_out, width_out, stride if i == 0 else 1,
                                      norm_layer, activation_layer, group_width, bottleneck_multiplier, se_ratio)
            self.add_module(f"block{stage_index}-{i}", block)


class BlockParams:
    def __init__(self, depths, widths, group_widths, bottleneck_multipliers, strides, se_ratio=None):
        self.depths, self.widths, self.group_widths = depths, widths, group_widths
        self.bottleneck_multipliers, self.strides, self.se_ratio = bottleneck_multipliers, strides, se_ratio

    @classmethod
    def from_init_params(cls, depth, w_0, w_a, w_m, group_width, bottleneck_multiplier=1.0, se_ratio=None):
        """Per-block widths w_0 + w_a * i, snapped to w_0 * w_m^k and multiples of 8; equal widths form a stage.
        Computed in float32 as the reference does, so the rounding lands on the same integers."""
        quant = 8
        if w_a < 0 or w_0 <= 0 or w_m <= 1 or w_0 % 8 != 0:
            raise ValueError("Invalid RegNet settings")
        widths_cont = ember.arange(depth, dtype=ember.float32, device="cpu") * w_a + w_0  # also under meta
        block_capacity = ember.round(ember.log(widths_cont / w_0) / math.log(w_m))
        block_widths = (ember.round(ember.divide(w_0 * ember.pow(w_m, block_capacity), quant)) * quant).int().tolist()
        num_stages = len(set(block_widths))
        splits = [w != wp for w, wp in zip(block_widths + [0], [0] + block_widths)]
        stage_widths = [w for w, t in zip(block_widths, splits[:-1]) if t]
        starts = [d for d, t in enumerate(splits) if t]
        stage_depths = [b - a for a, b in zip(starts, starts[1:])]
        multipliers = [bottleneck_multiplier] * num_stages
        stage_widths, group_widths = _adjust_widths_groups(stage_widths, multipliers, [group_width] * num_stages)
        return cls(stage_depths, stage_widths, group_widths, multipliers, [2] * num_stages, se_ratio)

    def _get_expanded_params(self):
        return zip(self.widths, self.strides, self.depths, self.group_widths, self.bottleneck_multipliers)


def _adjust_widths_groups(stage_widths, bottleneck_ratios, group_widths):
    """Bottleneck widths must be multiples of their group width."""
    widths = [int(w * b) for w, b in zip(stage_widths, bottleneck_ratios)]
    group_widths_min = [min(g, w_bot) for g, w_bot in zip(group_widths, widths)]
    ws_bot = [_make_divisible(w_bot, g) for w_bot, g in zip(widths, group_widths_min)]
    return [int(w_bot / b) for w_bot, b in zip(ws_bot, bottleneck_ratios)], group_widths_min


class RegNet(nn.Module):
    def __init__(self, block_params, num_classes=1000, stem_width=32, stem_type=None, block_type=None,
                 norm_layer=None, activation=None):
        super().__init__()
        stem_type = stem_type or SimpleStemIN
        norm_layer = norm_layer or nn.BatchNorm2d
        block_type = block_type or ResBottleneckBlock
        activation = activation or nn.ReLU
        self.stem = stem_type(3, stem_width, norm_layer, activation)
        current_width, blocks = stem_width, []
        for i, (width_out, stride, depth, group_width, bm) in enumerate(block_params._get_expanded_params()):
            blocks.append((f"block{i + 1}", AnyStage(current_width, width_out, stride, depth, block_type, norm_layer,
                                                     activation, group_width, bm, block_params.se_ratio,
                                                     stage_index=i + 1)))
            current_width = width_out
        self.trunk_output = nn.Sequential(OrderedDict(blocks))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(current_width, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                nn.init.normal_(m.weight, mean=0.0, std=math.sqrt(2.0 / fan_out))
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.avgpool(self.trunk_output(self.stem(x)))
        return self.fc(ember.flatten(x, 1))


def _regnet(depth, w_0, w_a, w_m, group_width, se_ratio=None):
    def construct(**kwargs):
        params = BlockParams.from_init_params(depth, w_0, w_a, w_m, group_width, se_ratio=se_ratio)
        kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1))
        return RegNet(params, **kwargs)
    return construct


_CONFIGS = {
    "regnet_y_400mf": (16, 48, 27.89, 2.09, 8, 0.25), "regnet_y_800mf": (14, 56, 38.84, 2.4, 16, 0.25),
    "regnet_y_1_6gf": (27, 48, 20.71, 2.65, 24, 0.25), "regnet_y_3_2gf": (21, 80, 42.63, 2.66, 24, 0.25),
    "regnet_y_8gf": (17, 192, 76.82, 2.19, 56, 0.25), "regnet_y_16gf": (18, 200, 106.23, 2.48, 112, 0.25),
    "regnet_y_32gf": (20, 232, 115.89, 2.53, 232, 0.25), "regnet_y_128gf": (27, 456, 160.83, 2.52, 264, 0.25),
    "regnet_x_400mf": (22, 24, 24.48, 2.54, 16), "regnet_x_800mf": (16, 56, 35.73, 2.28, 16),
    "regnet_x_1_6gf": (18, 80, 34.01, 2.25, 24), "regnet_x_3_2gf": (25, 88, 26.31, 2.25, 48),
    "regnet_x_8gf": (23, 80, 49.56, 2.88, 120), "regnet_x_16gf": (22, 216, 55.59, 2.1, 128),
    "regnet_x_32gf": (23, 320, 69.86, 2.0, 168),
}

for _name, _cfg in _CONFIGS.items():
    globals()[_name] = make_builder(_name, __name__, _regnet(*_cfg))
