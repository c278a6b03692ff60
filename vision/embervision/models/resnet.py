"""ResNet (He et al. 2015) with torchvision's layout: BasicBlock/Bottleneck (stride on the 3x3 conv, the
"v1.5" variant), plus ResNeXt and Wide ResNet as Bottleneck widths/groups."""

import ember
from ember import nn

from ._api import register_model
from ._utils import _apply_weights, _load_weights, _ovewrite_named_param


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups, bias=False,
                     dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False, groups=1, width_per_group=64,
                 replace_stride_with_dilation=None, norm_layer=None):
        super().__init__()
        self._norm_layer = norm_layer or nn.BatchNorm2d
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None or a 3-element tuple, got "
                             f"{replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            # Each residual branch starts as zero, so every block starts as the identity.
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation,
                        norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                dilation=self.dilation, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(ember.flatten(self.avgpool(x), 1))


def _resnet(block, layers, weights, progress, **kwargs):
    _apply_weights(kwargs, weights)
    return _load_weights(ResNet(block, layers, **kwargs), weights, progress)


def _builder(name, block, layers, enum_name, **fixed):
    from . import _weights_resnet as w
    weights_enum = getattr(w, enum_name)

    def build(*, weights=None, progress=True, **kwargs):
        weights = weights_enum.verify(weights)
        for key, value in fixed.items():
            _ovewrite_named_param(kwargs, key, value)
        return _resnet(block, layers, weights, progress, **kwargs)

    build.__name__ = build.__qualname__ = name
    build.__module__ = __name__
    build.__doc__ = f"{name} from torchvision's builder: weights (a {enum_name} or its name), progress, **kwargs."
    return register_model(name, weights_enum)(build)


resnet18 = _builder("resnet18", BasicBlock, [2, 2, 2, 2], "ResNet18_Weights")
resnet34 = _builder("resnet34", BasicBlock, [3, 4, 6, 3], "ResNet34_Weights")
resnet50 = _builder("resnet50", Bottleneck, [3, 4, 6, 3], "ResNet50_Weights")
resnet101 = _builder("resnet101", Bottleneck, [3, 4, 23, 3], "ResNet101_Weights")
resnet152 = _builder("resnet152", Bottleneck, [3, 8, 36, 3], "ResNet152_Weights")
resnext50_32x4d = _builder("resnext50_32x4d", Bottleneck, [3, 4, 6, 3], "ResNeXt50_32X4D_Weights", groups=32,
                           width_per_group=4)
resnext101_32x8d = _builder("resnext101_32x8d", Bottleneck, [3, 4, 23, 3], "ResNeXt101_32X8D_Weights", groups=32,
                            width_per_group=8)
resnext101_64x4d = _builder("resnext101_64x4d", Bottleneck, [3, 4, 23, 3], "ResNeXt101_64X4D_Weights", groups=64,
                            width_per_group=4)
wide_resnet50_2 = _builder("wide_resnet50_2", Bottleneck, [3, 4, 6, 3], "Wide_ResNet50_2_Weights",
                           width_per_group=128)
wide_resnet101_2 = _builder("wide_resnet101_2", Bottleneck, [3, 4, 23, 3], "Wide_ResNet101_2_Weights",
                            width_per_group=128)
