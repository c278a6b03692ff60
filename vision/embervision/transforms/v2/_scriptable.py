"""What the v2 transforms script as (torch.jit.script's __prepare_scriptable__): the v1 transform with the
same parameters, which does to one image tensor what the v2 one does to a sample that is one plain tensor.
Transforms with no v1 counterpart (ToDtype without scaling, ToImage, the box ops, MixUp/CutMix) do not
script, as in torchvision."""
from .. import _transforms_basic as B
from .. import _transforms_random as R
from . import _geometry as G
from . import _misc as M


def _v1_of(t):
    if isinstance(t, G.RandomHorizontalFlip):
        return R.RandomHorizontalFlip(t.p)
    if isinstance(t, G.RandomVerticalFlip):
        return R.RandomVerticalFlip(t.p)
    if isinstance(t, G.Resize):
        return B.Resize(t.size, t.interpolation, t.max_size, t.antialias)
    if isinstance(t, G.CenterCrop):
        return B.CenterCrop(t.size)
    if isinstance(t, G.Pad):
        return B.Pad(t.padding, t.fill, t.padding_mode)
    if isinstance(t, G.RandomCrop):
        return R.RandomCrop(t.size, t.padding, t.pad_if_needed, t.fill, t.padding_mode)
    if isinstance(t, G.RandomResizedCrop):
        return R.RandomResizedCrop(t.size, t.scale, t.ratio, t.interpolation, t.antialias)
    if isinstance(t, (G.RandomAffine, G.RandomRotation, M.ColorJitter)):
        if getattr(t, "center", None) is not None:
            raise NotImplementedError("RandomAffine with a center does not script")
        return t._v1
    if isinstance(t, M.Normalize):
        return B.Normalize(t.mean, t.std, t.inplace)
    if isinstance(t, M.ToDtype) and t.scale:
        return B.ConvertImageDtype(t.dtype)
    if isinstance(t, M.RandomApply):
        return B.RandomApply(list(t.transforms), t.p)
    if isinstance(t, M.Compose):
        return B.Compose(list(t.transforms))
    if isinstance(t, M.RandomChoice):
        return B.RandomChoice(list(t.transforms), t.p)
    if isinstance(t, M.RandomOrder):
        return B.RandomOrder(list(t.transforms))
    raise NotImplementedError(f"transforms.v2.{type(t).__name__} has no scriptable v1 counterpart")


def install():
    for cls in (G.RandomHorizontalFlip, G.RandomVerticalFlip, G.Resize, G.CenterCrop, G.Pad, G.RandomCrop,
                G.RandomResizedCrop, G.RandomAffine, G.RandomRotation, M.ColorJitter, M.Normalize, M.ToDtype,
                M.Compose, M.RandomApply, M.RandomChoice, M.RandomOrder):
        cls.__prepare_scriptable__ = _v1_of
