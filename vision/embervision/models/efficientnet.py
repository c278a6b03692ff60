"""EfficientNet B0-B7 (Tan & Le): MBConv stages scaled in width and depth, with squeeze-excitation and
stochastic depth, torchvision's layout."""

import copy
import math
from functools import partial

import ember
from ember import nn

from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ._utils import _make_divisible, make_builder


class MBConvConfig:
    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, width_mult=1.0,
                 depth_mult=1.0):
        self.expand_ratio = expand_ratio
        self.kernel = kernel
        self.stride = stride
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.num_layers = int(math.ceil(num_layers * depth_mult))

    @staticmethod
    def adjust_channels(channels, width_mult, min_value=None):
        return _make_divisible(channels * width_mult, 8, min_value)


class MBConv(nn.Module):
    def __init__(self, cnf, stochastic_depth_prob, norm_layer, se_layer=SqueezeExcitation):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        layers = []
        if expanded != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=nn.SiLU))
        layers.append(Conv2dNormActivation(expanded, expanded, kernel_size=cnf.kernel, stride=cnf.stride,
                                           groups=expanded, norm_layer=norm_layer, activation_layer=nn.SiLU))
        layers.append(se_layer(expanded, max(1, cnf.input_channels // 4), activation=partial(nn.SiLU, inplace=True)))
        layers.append(Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result) + input
        return result


class EfficientNet(nn.Module):
    def __init__(self, inverted_residual_setting, dropout, stochastic_depth_prob=0.2, num_classes=1000,
                 norm_layer=None, last_channel=None):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        norm_layer = norm_layer or nn.BatchNorm2d
        first = inverted_residual_setting[0].input_channels
        layers = [Conv2dNormActivation(3, first, kernel_size=3, stride=2, norm_layer=norm_layer,
                                       activation_layer=nn.SiLU)]
        total_stage_blocks = sum(cnf.num_layers for cnf in inverted_residual_setting)
        stage_block_id = 0
        for cnf in inverted_residual_setting:
            stage = []
            for _ in range(cnf.num_layers):
                block_cnf = copy.copy(cnf)
                if stage:  # later blocks of a stage keep its width and resolution
                    block_cnf.input_channels = block_cnf.out_channels
                    block_cnf.stride = 1
                sd_prob = stochastic_depth_prob * float(stage_block_id) / total_stage_blocks
                stage.append(MBConv(block_cnf, sd_prob, norm_layer))
                stage_block_id += 1
            layers.append(nn.Sequential(*stage))
        last_in = inverted_residual_setting[-1].out_channels
        last_out = last_channel if last_channel is not None else 4 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True), nn.Linear(last_out, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                init_range = 1.0 / math.sqrt(m.out_features)
                nn.init.uniform_(m.weight, -init_range, init_range)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(ember.flatten(self.avgpool(self.features(x)), 1))


def _b_setting(width_mult, depth_mult):
    c = partial(MBConvConfig, width_mult=width_mult, depth_mult=depth_mult)
    return [c(1, 3, 1, 32, 16, 1), c(6, 3, 2, 16, 24, 2), c(6, 5, 2, 24, 40, 2), c(6, 3, 2, 40, 80, 3),
            c(6, 5, 1, 80, 112, 3), c(6, 5, 2, 112, 192, 4), c(6, 3, 1, 192, 320, 1)]


def _efficientnet(width_mult, depth_mult, dropout, eps_norm):
    def construct(**kwargs):
        if eps_norm:
            kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=0.001, momentum=0.01))
        return EfficientNet(_b_setting(width_mult, depth_mult), kwargs.pop("dropout", dropout), **kwargs)
    return construct


_B = {"b0": (1.0, 1.0, 0.2, False), "b1": (1.0, 1.1, 0.2, False), "b2": (1.1, 1.2, 0.3, False),
      "b3": (1.2, 1.4, 0.3, False), "b4": (1.4, 1.8, 0.4, False), "b5": (1.6, 2.2, 0.4, True),
      "b6": (1.8, 2.6, 0.5, True), "b7": (2.0, 3.1, 0.5, True)}

efficientnet_b0 = make_builder("efficientnet_b0", __name__, _efficientnet(*_B["b0"]))
efficientnet_b1 = make_builder("efficientnet_b1", __name__, _efficientnet(*_B["b1"]))
efficientnet_b2 = make_builder("efficientnet_b2", __name__, _efficientnet(*_B["b2"]))
efficientnet_b3 = make_builder("efficientnet_b3", __name__, _efficientnet(*_B["b3"]))
efficientnet_b4 = make_builder("efficientnet_b4", __name__, _efficientnet(*_B["b4"]))
efficientnet_b5 = make_builder("efficientnet_b5", __name__, _efficientnet(*_B["b5"]))
efficientnet_b6 = make_builder("efficientnet_b6", __name__, _efficientnet(*_B["b6"]))
efficientnet_b7 = make_builder("efficientnet_b7", __name__, _efficientnet(*_B["b7"]))
