"""The v2 Transform: takes any nesting of tuples/lists/dicts holding images, masks, boxes and other
values, draws its random parameters once from the sample, and moves each typed leaf with the kernel
for its type (other values pass through)."""
import ember
from ember import nn
from PIL import Image as PILImage

from ... import tv_tensors
from ._functional import get_size


def flatten(sample):
    """(leaves, rebuild): rebuild(new_leaves) restores the nesting of tuples, lists and dicts."""
    if isinstance(sample, (tuple, list)):
        parts = [flatten(s) for s in sample]
        leaves = [leaf for p in parts for leaf in p[0]]

        def rebuild(new):
            out, pos = [], 0
            for (p_leaves, p_rebuild) in parts:
                out.append(p_rebuild(new[pos:pos + len(p_leaves)]))
                pos += len(p_leaves)
            return type(sample)(out)
        return leaves, rebuild
    if isinstance(sample, dict):
        keys = list(sample)
        leaves, rebuild_values = flatten([sample[k] for k in keys])
        return leaves, lambda new: dict(zip(keys, rebuild_values(new)))
    return [sample], lambda new: new[0]


def is_image(leaf):
    return isinstance(leaf, (tv_tensors.Image, PILImage.Image))


def image_like_leaves(leaves):
    """The leaves a v2 transform moves: typed ones, PIL images, and, only when the sample has no Image or
    PIL image, its first plain tensor (taken as the image, as torchvision does)."""
    chosen = [isinstance(v, (tv_tensors.TVTensor, PILImage.Image)) for v in leaves]
    if not any(is_image(v) for v in leaves):
        for i, v in enumerate(leaves):
            if isinstance(v, ember.Tensor) and not isinstance(v, tv_tensors.TVTensor):
                chosen[i] = True
                break
    return chosen


def query_size(leaves, chosen):
    sizes = {get_size(v) for v, c in zip(leaves, chosen) if c}
    if not sizes:
        raise TypeError("No image, video, mask or bounding box was found in the sample")
    if len(sizes) > 1:
        raise ValueError(f"Found multiple HxW dimensions in the sample: {sorted(sizes)}")
    return sizes.pop()


class Transform(nn.Module):
    """Subclasses define `make_params(leaves, size)` (random draws, once per call) and
    `transform(leaf, params)` (one typed leaf)."""

    def make_params(self, leaves, size):
        return {}

    def transform(self, leaf, params):
        raise NotImplementedError(f"{type(self).__name__} must define transform()")

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves, rebuild = flatten(sample)
        chosen = image_like_leaves(leaves)
        params = self.make_params(leaves, query_size(leaves, chosen)) if any(chosen) else {}
        if params is None:  # the transform decided to skip this sample (a failed coin flip)
            return sample
        out = [self.transform(v, params) if c else v for v, c in zip(leaves, chosen)]
        return rebuild(out)
