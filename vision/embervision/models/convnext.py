"""ConvNeXt tiny/small/base/large (Liu et al. 2022): depthwise 7x7 conv, channels-last LayerNorm and an
inverted MLP per block, layer scale and stochastic depth; torchvision's layout."""

from functools import partial

import ember
from ember import nn
from ember.nn import functional as F

from ..ops.misc import Conv2dNormActivation, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._utils import make_builder


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of an NCHW tensor."""

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    def __init__(self, dim, layer_scale, stochastic_depth_prob, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim, bias=True), Permute([0, 2, 3, 1]),
            norm_layer(dim), nn.Linear(dim, 4 * dim, bias=True), nn.GELU(), nn.Linear(4 * dim, dim, bias=True),
            Permute([0, 3, 1, 2]))
        self.layer_scale = nn.Parameter(ember.ones(dim, 1, 1) * layer_scale)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")

    def forward(self, input):
        return self.stochastic_depth(self.layer_scale * self.block(input)) + input


class CNBlockConfig:
    def __init__(self, input_channels, out_channels, num_layers):
        self.input_channels, self.out_channels, self.num_layers = input_channels, out_channels, num_layers


class ConvNeXt(nn.Module):
    def __init__(self, block_setting, stochastic_depth_prob=0.0, layer_scale=1e-6, num_classes=1000, block=None,
                 norm_layer=None):
        super().__init__()
        if not block_setting:
            raise ValueError("The block_setting should not be empty")
        block = block or CNBlock
        norm_layer = norm_layer or partial(LayerNorm2d, eps=1e-6)
        layers = [Conv2dNormActivation(3, block_setting[0].input_channels, kernel_size=4, stride=4, padding=0,
                                       norm_layer=norm_layer, activation_layer=None, bias=True)]
        total_stage_blocks = sum(cnf.num_layers for cnf in block_setting)
        stage_block_id = 0
        for cnf in block_setting:
            stage = []
            for _ in range(cnf.num_layers):
                sd_prob = stochastic_depth_prob * stage_block_id / (total_stage_blocks - 1.0)
                stage.append(block(cnf.input_channels, layer_scale, sd_prob))
                stage_block_id += 1
            layers.append(nn.Sequential(*stage))
            if cnf.out_channels is not None:
                layers.append(nn.Sequential(norm_layer(cnf.input_channels),
                                            nn.Conv2d(cnf.input_channels, cnf.out_channels, kernel_size=2, stride=2)))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = block_setting[-1]
        last_out = last.out_channels if last.out_channels is not None else last.input_channels
        self.classifier = nn.Sequential(norm_layer(last_out), nn.Flatten(1), nn.Linear(last_out, num_classes))
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)))


def _convnext(rows, sd_prob):
    def construct(**kwargs):
        kwargs.setdefault("stochastic_depth_prob", sd_prob)
        return ConvNeXt([CNBlockConfig(*r) for r in rows], **kwargs)
    return construct


convnext_tiny = make_builder("convnext_tiny", __name__, _convnext(
    [(96, 192, 3), (192, 384, 3), (384, 768, 9), (768, None, 3)], 0.1))
convnext_small = make_builder("convnext_small", __name__, _convnext(
    [(96, 192, 3), (192, 384, 3), (384, 768, 27), (768, None, 3)], 0.4))
convnext_base = make_builder("convnext_base", __name__, _convnext(
    [(128, 256, 3), (256, 512, 3), (512, 1024, 27), (1024, None, 3)], 0.5))
convnext_large = make_builder("convnext_large", __name__, _convnext(
    [(192, 384, 3), (384, 768, 3), (768, 1536, 27), (1536, None, 3)], 0.5))
