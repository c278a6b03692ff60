"""DenseNet-121/161/169/201 (Huang et al.): dense blocks of BN-ReLU-Conv1x1-BN-ReLU-Conv3x3 layers whose
outputs are concatenated, with BN-ReLU-Conv1x1-AvgPool transitions."""

from typing import Any

import ember
from ember import nn
from ember.nn import functional as F

from . import _weights_classic as W
from ._utils import make_builder


class _DenseLayer(nn.Module):
    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate, memory_efficient=False):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        # Checkpointing is not available here; memory_efficient is kept for signature parity only.
        self.memory_efficient = memory_efficient

    def forward(self, input: Any):  # a Tensor, or the list of the block's earlier outputs
        prev = [input] if isinstance(input, ember.Tensor) else input
        out = self.conv1(self.relu1(self.norm1(ember.cat(prev, 1))))
        out = self.conv2(self.relu2(self.norm2(out)))
        if self.drop_rate > 0:
            out = F.dropout(out, p=self.drop_rate, training=self.training)
        return out


class _DenseBlock(nn.ModuleDict):
    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate, memory_efficient=False):
        super().__init__()
        for i in range(num_layers):
            self.add_module(f"denselayer{i + 1}", _DenseLayer(num_input_features + i * growth_rate, growth_rate,
                                                             bn_size, drop_rate, memory_efficient))

    def forward(self, init_features):
        features = [init_features]
        for layer in self.values():
            features.append(layer(features))
        return ember.cat(features, 1)


class _Transition(nn.Sequential):
    def __init__(self, num_input_features, num_output_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    def __init__(self, growth_rate=32, block_config=(6, 12, 24, 16), num_init_features=64, bn_size=4, drop_rate=0,
                 num_classes=1000, memory_efficient=False):
        super().__init__()
        self.features = nn.Sequential()
        self.features.add_module("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3,
                                                    bias=False))
        self.features.add_module("norm0", nn.BatchNorm2d(num_init_features))
        self.features.add_module("relu0", nn.ReLU(inplace=True))
        self.features.add_module("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add_module(f"denseblock{i + 1}", _DenseBlock(num_layers, num_features, bn_size, growth_rate,
                                                                       drop_rate, memory_efficient))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                self.features.add_module(f"transition{i + 1}", _Transition(num_features, num_features // 2))
                num_features //= 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        out = F.relu(self.features(x), inplace=True)
        return self.classifier(ember.flatten(F.adaptive_avg_pool2d(out, (1, 1)), 1))


def _densenet(growth_rate, block_config, num_init_features):
    def construct(**kwargs):
        return DenseNet(growth_rate, block_config, num_init_features, **kwargs)
    return construct


densenet121 = make_builder("densenet121", __name__, _densenet(32, (6, 12, 24, 16), 64), W.DenseNet121_Weights)
densenet161 = make_builder("densenet161", __name__, _densenet(48, (6, 12, 36, 24), 96), W.DenseNet161_Weights)
densenet169 = make_builder("densenet169", __name__, _densenet(32, (6, 12, 32, 32), 64), W.DenseNet169_Weights)
densenet201 = make_builder("densenet201", __name__, _densenet(32, (6, 12, 48, 32), 64), W.DenseNet201_Weights)
