"""Feature Pyramid Network (Lin et al.): lateral 1x1 convs plus a top-down pathway of nearest upsampling,
then a 3x3 conv per level; optional extra levels (a max-pooled one, or RetinaNet's P6/P7)."""

from collections import OrderedDict
from typing import Dict, List, Tuple

from ember import Tensor, nn
from ember.nn import functional as F

from .misc import Conv2dNormActivation


class ExtraFPNBlock(nn.Module):
    """Base of the blocks that add levels: forward(results, x, names) -> (results, names)."""

    def forward(self, results: List[Tensor], x: List[Tensor], names: List[str]) -> Tuple[List[Tensor], List[str]]:
        raise NotImplementedError(f"{type(self).__name__} must define forward(results, x, names)")


class LastLevelMaxPool(ExtraFPNBlock):
    """Adds a "pool" level: the last level subsampled by 2."""

    def forward(self, x: List[Tensor], y: List[Tensor], names: List[str]) -> Tuple[List[Tensor], List[str]]:
        names.append("pool")
        x.append(F.max_pool2d(x[-1], kernel_size=1, stride=2, padding=0))
        return x, names


def _init_convs(module):
    for m in module.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_uniform_(m.weight, a=1)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)


class LastLevelP6P7(ExtraFPNBlock):
    """RetinaNet's P6 and P7: stride-2 3x3 convs on P5 (or C5 when the channel counts differ)."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.p6 = nn.Conv2d(in_channels, out_channels, 3, 2, 1)
        self.p7 = nn.Conv2d(out_channels, out_channels, 3, 2, 1)
        _init_convs(self)
        self.use_P5 = in_channels == out_channels

    def forward(self, p: List[Tensor], c: List[Tensor], names: List[str]) -> Tuple[List[Tensor], List[str]]:
        p5, c5 = p[-1], c[-1]
        p6 = self.p6(p5 if self.use_P5 else c5)
        p7 = self.p7(F.relu(p6))
        p.extend([p6, p7])
        names.extend(["p6", "p7"])
        return p, names


class FeaturePyramidNetwork(nn.Module):
    """forward takes an OrderedDict of feature maps (highest resolution first) and returns one of the
    same keys (plus the extra block's) with out_channels each."""

    _version = 2

    def __init__(self, in_channels_list, out_channels, extra_blocks=None, norm_layer=None):
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels == 0:
                raise ValueError("in_channels=0 is currently not supported")
            self.inner_blocks.append(Conv2dNormActivation(in_channels, out_channels, kernel_size=1, padding=0,
                                                          norm_layer=norm_layer, activation_layer=None))
            self.layer_blocks.append(Conv2dNormActivation(out_channels, out_channels, kernel_size=3,
                                                          norm_layer=norm_layer, activation_layer=None))
        _init_convs(self)
        if extra_blocks is not None and not isinstance(extra_blocks, ExtraFPNBlock):
            raise TypeError(f"extra_blocks should be of type ExtraFPNBlock not {type(extra_blocks)}")
        self.extra_blocks = extra_blocks

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # Version 1 checkpoints (plain Conv2d blocks) name inner_blocks.0.weight what is now inner_blocks.0.0.weight.
        version = local_metadata.get("version", None) if local_metadata else None
        if version is None or version < 2:
            for block in ("inner_blocks", "layer_blocks"):
                for i in range(len(self.inner_blocks)):
                    for kind in ("weight", "bias"):
                        old, new = f"{prefix}{block}.{i}.{kind}", f"{prefix}{block}.{i}.0.{kind}"
                        if old in state_dict:
                            state_dict[new] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def get_result_from_inner_blocks(self, x: Tensor, idx: int) -> Tensor:
        """self.inner_blocks[idx](x); a loop, as scripted code indexes a ModuleList only by constants."""
        if idx < 0:
            idx += len(self.inner_blocks)
        out = x
        for i, module in enumerate(self.inner_blocks):
            if i == idx:
                out = module(x)
        return out

    def get_result_from_layer_blocks(self, x: Tensor, idx: int) -> Tensor:
        if idx < 0:
            idx += len(self.layer_blocks)
        out = x
        for i, module in enumerate(self.layer_blocks):
            if i == idx:
                out = module(x)
        return out

    def forward(self, x: Dict[str, Tensor]) -> Dict[str, Tensor]:
        names = list(x.keys())
        feats = list(x.values())
        last_inner = self.get_result_from_inner_blocks(feats[-1], -1)
        results = [self.get_result_from_layer_blocks(last_inner, -1)]
        for idx in range(len(feats) - 2, -1, -1):
            inner_lateral = self.get_result_from_inner_blocks(feats[idx], idx)
            feat_shape = inner_lateral.shape[-2:]
            top_down = F.interpolate(last_inner, size=feat_shape, mode="nearest")
            last_inner = inner_lateral + top_down
            results.insert(0, self.get_result_from_layer_blocks(last_inner, idx))
        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, feats, names)
        out: Dict[str, Tensor] = OrderedDict()
        for name, result in zip(names, results):
            out[name] = result
        return out
