"""Video ResNets (Tran et al. 2018, "A Closer Look at Spatiotemporal Convolutions") with torchvision's layout:
R3D (full 3D convolutions), MC3 (3D in the first stage, spatial-only after) and R(2+1)D (each 3x3x3 split
into a 1x3x3 spatial and a 3x1x1 temporal convolution), all on N x C x T x H x W clips."""

import ember
from ember import nn

from .._api import register_model
from .._utils import _ovewrite_named_param
from ._weights import MC3_18_Weights, R2Plus1D_18_Weights, R3D_18_Weights


class Conv3DSimple(nn.Conv3d):
    def __init__(self, in_planes, out_planes, midplanes=None, stride=1, padding=1):
        super().__init__(in_planes, out_planes, kernel_size=(3, 3, 3), stride=stride, padding=padding, bias=False)

    @staticmethod
    def get_downsample_stride(stride):
        return stride, stride, stride


class Conv2Plus1D(nn.Sequential):
    def __init__(self, in_planes, out_planes, midplanes, stride=1, padding=1):
        super().__init__(
            nn.Conv3d(in_planes, midplanes, kernel_size=(1, 3, 3), stride=(1, stride, stride),
                      padding=(0, padding, padding), bias=False),
            nn.BatchNorm3d(midplanes), nn.ReLU(inplace=True),
            nn.Conv3d(midplanes, out_planes, kernel_size=(3, 1, 1), stride=(stride, 1, 1), padding=(padding, 0, 0),
                      bias=False))

    @staticmethod
    def get_downsample_stride(stride):
        return stride, stride, stride


class Conv3DNoTemporal(nn.Conv3d):
    def __init__(self, in_planes, out_planes, midplanes=None, stride=1, padding=1):
        super().__init__(in_planes, out_planes, kernel_size=(1, 3, 3), stride=(1, stride, stride),
                         padding=(0, padding, padding), bias=False)

    @staticmethod
    def get_downsample_stride(stride):
        return 1, stride, stride


def _midplanes(inplanes, planes):
    # R(2+1)D's intermediate width: the split pair has as many parameters as the full 3x3x3 convolution.
    return (inplanes * planes * 3 * 3 * 3) // (inplanes * 3 * 3 + 3 * planes)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, conv_builder, stride=1, downsample=None):
        super().__init__()
        midplanes = _midplanes(inplanes, planes)
        self.conv1 = nn.Sequential(conv_builder(inplanes, planes, midplanes, stride), nn.BatchNorm3d(planes),
                                   nn.ReLU(inplace=True))
        self.conv2 = nn.Sequential(conv_builder(planes, planes, midplanes), nn.BatchNorm3d(planes))
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        residual = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv2(self.conv1(x)) + residual)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, conv_builder, stride=1, downsample=None):
        super().__init__()
        midplanes = _midplanes(inplanes, planes)
        self.conv1 = nn.Sequential(nn.Conv3d(inplanes, planes, kernel_size=1, bias=False), nn.BatchNorm3d(planes),
                                   nn.ReLU(inplace=True))
        self.conv2 = nn.Sequential(conv_builder(planes, planes, midplanes, stride), nn.BatchNorm3d(planes),
                                   nn.ReLU(inplace=True))
        self.conv3 = nn.Sequential(nn.Conv3d(planes, planes * self.expansion, kernel_size=1, bias=False),
                                   nn.BatchNorm3d(planes * self.expansion))
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        residual = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv3(self.conv2(self.conv1(x))) + residual)


class BasicStem(nn.Sequential):
    """R3D/MC3 stem: a 3x7x7 convolution, spatial stride 2."""

    def __init__(self):
        super().__init__(nn.Conv3d(3, 64, kernel_size=(3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False),
                         nn.BatchNorm3d(64), nn.ReLU(inplace=True))


class R2Plus1dStem(nn.Sequential):
    """R(2+1)D stem: a 1x7x7 spatial convolution to 45 channels, then a 3x1x1 temporal one to 64."""

    def __init__(self):
        super().__init__(nn.Conv3d(3, 45, kernel_size=(1, 7, 7), stride=(1, 2, 2), padding=(0, 3, 3), bias=False),
                         nn.BatchNorm3d(45), nn.ReLU(inplace=True),
                         nn.Conv3d(45, 64, kernel_size=(3, 1, 1), stride=(1, 1, 1), padding=(1, 0, 0), bias=False),
                         nn.BatchNorm3d(64), nn.ReLU(inplace=True))


class VideoResNet(nn.Module):
    def __init__(self, block, conv_makers, layers, stem, num_classes=400, zero_init_residual=False):
        super().__init__()
        self.inplanes = 64
        self.stem = stem()
        self.layer1 = self._make_layer(block, conv_makers[0], 64, layers[0], stride=1)
        self.layer2 = self._make_layer(block, conv_makers[1], 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, conv_makers[2], 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, conv_makers[3], 512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv3d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.BatchNorm3d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            # Each residual branch's last BatchNorm starts at zero, so every block starts as the identity.
            for m in self.modules():
                if isinstance(m, Bottleneck):
                    nn.init.constant_(m.conv3[1].weight, 0)
                elif isinstance(m, BasicBlock):
                    nn.init.constant_(m.conv2[1].weight, 0)

    def _make_layer(self, block, conv_builder, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            ds_stride = conv_builder.get_downsample_stride(stride)
            downsample = nn.Sequential(
                nn.Conv3d(self.inplanes, planes * block.expansion, kernel_size=1, stride=ds_stride, bias=False),
                nn.BatchNorm3d(planes * block.expansion))
        layers = [block(self.inplanes, planes, conv_builder, stride, downsample)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, conv_builder))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(ember.flatten(self.avgpool(x), 1))


def _video_resnet(block, conv_makers, layers, stem, weights, progress, **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = VideoResNet(block, conv_makers, layers, stem, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model(weights=R3D_18_Weights)
def r3d_18(*, weights=None, progress=True, **kwargs):
    """R3D-18: 3D convolutions throughout. weights: an R3D_18_Weights (or its name); **kwargs to VideoResNet."""
    weights = R3D_18_Weights.verify(weights)
    return _video_resnet(BasicBlock, [Conv3DSimple] * 4, [2, 2, 2, 2], BasicStem, weights, progress, **kwargs)


@register_model(weights=MC3_18_Weights)
def mc3_18(*, weights=None, progress=True, **kwargs):
    """MC3-18: 3D convolutions in the first stage, spatial-only (1x3x3) after. weights: an MC3_18_Weights."""
    weights = MC3_18_Weights.verify(weights)
    return _video_resnet(BasicBlock, [Conv3DSimple] + [Conv3DNoTemporal] * 3, [2, 2, 2, 2], BasicStem, weights,
                         progress, **kwargs)


@register_model(weights=R2Plus1D_18_Weights)
def r2plus1d_18(*, weights=None, progress=True, **kwargs):
    """R(2+1)D-18: every 3D convolution factored into spatial then temporal. weights: an R2Plus1D_18_Weights."""
    weights = R2Plus1D_18_Weights.verify(weights)
    return _video_resnet(BasicBlock, [Conv2Plus1D] * 4, [2, 2, 2, 2], R2Plus1dStem, weights, progress, **kwargs)
