"""ImageClassification: the inference preprocessing a classification checkpoint was evaluated with
(resize the short side, centre crop, scale to [0, 1], normalize), on CHW/NCHW tensors."""

import ember
from ember import nn
from ember.nn import functional as F
from embervision.transforms import functional as TF
from embervision.transforms._interpolation import InterpolationMode


def resize_antialiased(x, size):
    """Bilinear resize of NCHW x to size with antialiasing (torchvision's antialias=True): the core's antialiased
    interpolate, a triangle filter widened by the downscale factor."""
    return F.interpolate(x, size=list(size), mode="bilinear", align_corners=False, antialias=True)


class ImageClassification(nn.Module):
    def __init__(self, *, crop_size, resize_size=256, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
                 interpolation="bilinear", antialias=True):
        super().__init__()
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean, self.std = list(mean), list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img):
        batched = img.dim() == 4
        x = img if batched else img.unsqueeze(0)
        if not x.is_floating_point():
            x = x.to(ember.float32) / 255.0
        h, w = x.shape[-2:]
        short = self.resize_size[0]
        size = (short, max(1, int(short * w / h))) if h <= w else (max(1, int(short * h / w)), short)
        if self.antialias and self.interpolation == "bilinear":
            x = resize_antialiased(x, size)
        else:
            x = F.interpolate(x, size=size, mode=self.interpolation, align_corners=False)
        crop = self.crop_size[0]
        top, left = int(round((size[0] - crop) / 2.0)), int(round((size[1] - crop) / 2.0))
        x = x[..., top:top + crop, left:left + crop]
        mean = ember.tensor(self.mean, dtype=x.dtype).view(1, -1, 1, 1)
        std = ember.tensor(self.std, dtype=x.dtype).view(1, -1, 1, 1)
        x = (x - mean) / std
        return x if batched else x.squeeze(0)

    def __repr__(self):
        return (f"{self.__class__.__name__}(\n    crop_size={self.crop_size}\n    resize_size={self.resize_size}\n"
                f"    mean={self.mean}\n    std={self.std}\n    interpolation={self.interpolation}\n)")


class ObjectDetection(nn.Module):
    """The detection checkpoints' preprocessing: images to float in [0, 1] (the model normalizes and resizes)."""

    def forward(self, img):
        if not img.is_floating_point():
            return img.to(ember.float32) / 255.0
        return img

    def __repr__(self):
        return self.__class__.__name__ + "()"


class SemanticSegmentation(nn.Module):
    """The segmentation checkpoints' preprocessing: shorter side resized to resize_size (bilinear,
    antialiased), scaled to [0, 1], normalized; no crop."""

    def __init__(self, *, resize_size, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
                 interpolation="bilinear", antialias=True):
        super().__init__()
        self.resize_size = [resize_size] if resize_size is not None else None
        self.mean, self.std = list(mean), list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img):
        batched = img.dim() == 4
        x = img if batched else img.unsqueeze(0)
        if not x.is_floating_point():
            x = x.to(ember.float32) / 255.0
        if self.resize_size is not None:
            h, w = x.shape[-2:]
            short = self.resize_size[0]
            size = (short, max(1, int(short * w / h))) if h <= w else (max(1, int(short * h / w)), short)
            if self.antialias and self.interpolation == "bilinear":
                x = resize_antialiased(x, size)
            else:
                x = F.interpolate(x, size=size, mode=self.interpolation, align_corners=False)
        mean = ember.tensor(self.mean, dtype=x.dtype).view(1, -1, 1, 1)
        std = ember.tensor(self.std, dtype=x.dtype).view(1, -1, 1, 1)
        x = (x - mean) / std
        return x if batched else x.squeeze(0)


class VideoClassification(nn.Module):
    """The video checkpoints' preprocessing on (N,) T x C x H x W frames: each frame resized to resize_size
    (bilinear without antialiasing, as the checkpoints were trained), centre-cropped, scaled to [0, 1] and
    normalized with Kinetics' statistics; returned as (N,) C x T x H x W."""

    def __init__(self, *, crop_size, resize_size, mean=(0.43216, 0.394666, 0.37645), std=(0.22803, 0.22145, 0.216989),
                 interpolation=InterpolationMode.BILINEAR):
        super().__init__()
        self.crop_size = list(crop_size)
        self.resize_size = list(resize_size)
        self.mean, self.std = list(mean), list(std)
        self.interpolation = interpolation

    def forward(self, vid):
        squeeze = vid.dim() < 5
        if squeeze:
            vid = vid.unsqueeze(0)
        n, t, c, h, w = vid.shape
        frames = TF.resize(vid.reshape(-1, c, h, w), self.resize_size, interpolation=self.interpolation,
                           antialias=False)
        frames = TF.center_crop(frames, self.crop_size)
        frames = TF.normalize(TF.convert_image_dtype(frames, ember.float32), mean=self.mean, std=self.std)
        out = frames.reshape(n, t, c, self.crop_size[0], self.crop_size[1]).permute(0, 2, 1, 3, 4)
        return out.squeeze(0) if squeeze else out

    def __repr__(self):
        return (f"{self.__class__.__name__}(\n    crop_size={self.crop_size}\n    resize_size={self.resize_size}\n"
                f"    mean={self.mean}\n    std={self.std}\n    interpolation={self.interpolation}\n)")
