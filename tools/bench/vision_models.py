"""Issue 24 speed target: resnet50 and mobilenet_v3_large inference (eval, no_grad) at batch 8 on
3x224x224. ember runs embervision.models' builders; PyTorch (when importable: torchvision does not import
beside PyTorch 2.13 here) runs the same architectures written out below for torch, checked to have
torchvision's parameter counts."""
from __future__ import annotations

import ember

from .runner import Case, best_of, ember_and_torch, torch


def _torch_resnet50():
    nn = torch.nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, planes, stride):
            super().__init__()
            cout = planes * 4
            self.body = nn.Sequential(
                nn.Conv2d(cin, planes, 1, bias=False), nn.BatchNorm2d(planes), nn.ReLU(inplace=True),
                nn.Conv2d(planes, planes, 3, stride, 1, bias=False), nn.BatchNorm2d(planes), nn.ReLU(inplace=True),
                nn.Conv2d(planes, cout, 1, bias=False), nn.BatchNorm2d(cout))
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            return torch.relu(self.body(x) + (x if self.down is None else self.down(x)))

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for planes, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, planes, stride if i == 0 else 1))
            cin = planes * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


# mobilenet_v3_large's blocks: (in, kernel, expanded, out, squeeze-excite, hard-swish, stride)
_V3_LARGE = [(16, 3, 16, 16, 0, 0, 1), (16, 3, 64, 24, 0, 0, 2), (24, 3, 72, 24, 0, 0, 1), (24, 5, 72, 40, 1, 0, 2),
             (40, 5, 120, 40, 1, 0, 1), (40, 5, 120, 40, 1, 0, 1), (40, 3, 240, 80, 0, 1, 2),
             (80, 3, 200, 80, 0, 1, 1), (80, 3, 184, 80, 0, 1, 1), (80, 3, 184, 80, 0, 1, 1),
             (80, 3, 480, 112, 1, 1, 1), (112, 3, 672, 112, 1, 1, 1), (112, 5, 672, 160, 1, 1, 2),
             (160, 5, 960, 160, 1, 1, 1), (160, 5, 960, 160, 1, 1, 1)]


def _torch_mobilenet_v3_large():
    nn = torch.nn

    def cna(cin, cout, k, stride=1, groups=1, act=None):
        layers = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
                  nn.BatchNorm2d(cout, eps=0.001, momentum=0.01)]
        return nn.Sequential(*layers, act(inplace=True)) if act else nn.Sequential(*layers)

    class SE(nn.Module):
        def __init__(self, c):
            super().__init__()
            sq = max(8, int(c // 4 + 4) // 8 * 8)
            sq = sq + 8 if sq < 0.9 * (c // 4) else sq
            self.fc1, self.fc2 = nn.Conv2d(c, sq, 1), nn.Conv2d(sq, c, 1)

        def forward(self, x):
            s = torch.nn.functional.adaptive_avg_pool2d(x, 1)
            return x * torch.nn.functional.hardsigmoid(self.fc2(torch.relu(self.fc1(s))))

    class Block(nn.Module):
        def __init__(self, cin, k, exp, cout, se, hs, stride):
            super().__init__()
            act = nn.Hardswish if hs else nn.ReLU
            layers = [cna(cin, exp, 1, act=act)] if exp != cin else []
            layers.append(cna(exp, exp, k, stride, groups=exp, act=act))
            if se:
                layers.append(SE(exp))
            layers.append(cna(exp, cout, 1))
            self.block = nn.Sequential(*layers)
            self.res = stride == 1 and cin == cout

        def forward(self, x):
            return x + self.block(x) if self.res else self.block(x)

    layers = [cna(3, 16, 3, 2, act=nn.Hardswish)] + [Block(*row) for row in _V3_LARGE]
    layers += [cna(160, 960, 1, act=nn.Hardswish), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(960, 1280),
               nn.Hardswish(inplace=True), nn.Dropout(0.2), nn.Linear(1280, 1000)]
    return nn.Sequential(*layers)


_PARAMS = {"resnet50": 25557032, "mobilenet_v3_large": 5483032}


def _inference(name):
    def factory(lib):
        if lib == "numpy":
            return None
        if lib == "ember":
            import embervision.models as M
            t, model = ember, getattr(M, name)()
        else:
            t, model = torch, {"resnet50": _torch_resnet50, "mobilenet_v3_large": _torch_mobilenet_v3_large}[name]()
        assert sum(p.numel() for p in model.parameters()) == _PARAMS[name], f"{lib} {name}: not the same network"
        model.eval()
        t.manual_seed(0)
        x = t.randn(8, 3, 224, 224)

        def step():
            with t.no_grad():
                model(x)
        step()  # warm-up (weight packing, allocator)
        return lambda: best_of(step, 3) * 1e3
    return factory


def cases():
    return [
        Case("vision resnet50 inference, batch 8", "ms", False, ember_and_torch(_inference("resnet50")),
             "<= PyTorch's", lambda e, p: e <= p.get("torch", float("inf"))),
        Case("vision mobilenet_v3_large inference, batch 8", "ms", False,
             ember_and_torch(_inference("mobilenet_v3_large")),
             "<= PyTorch's", lambda e, p: e <= p.get("torch", float("inf"))),
    ]
