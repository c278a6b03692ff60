"""AnchorGenerator: for each feature map, base anchors of the given sizes and aspect ratios (centred on 0)
shifted to every cell of the map, in image coordinates."""

from typing import List, Optional

import ember
from ember import Tensor, nn

from .image_list import ImageList


class AnchorGenerator(nn.Module):
    """sizes[i] and aspect_ratios[i] are the anchors of feature map i (len(sizes[i]) * len(aspect_ratios[i])
    per location). forward(image_list, feature_maps) -> one Tensor[sum(H_i * W_i * A_i), 4] per image."""

    def __init__(self, sizes=((128, 256, 512),), aspect_ratios=((0.5, 1.0, 2.0),)):
        super().__init__()
        if not isinstance(sizes[0], (list, tuple)):
            sizes = tuple((s,) for s in sizes)
        if not isinstance(aspect_ratios[0], (list, tuple)):
            aspect_ratios = (aspect_ratios,) * len(sizes)
        self.sizes = sizes
        self.aspect_ratios = aspect_ratios
        self.cell_anchors = [self.generate_anchors(size, ar) for size, ar in zip(sizes, aspect_ratios)]

    def generate_anchors(self, scales: List[int], aspect_ratios: List[float], dtype: int = ember.float32,
                         device: Optional[str] = None) -> Tensor:
        """Anchors of area scale**2 and height/width ratio aspect_ratio, rounded: [len(ar) * len(scales), 4]."""
        scales = ember.as_tensor(scales, dtype=dtype, device=device)
        aspect_ratios = ember.as_tensor(aspect_ratios, dtype=dtype, device=device)
        h_ratios = ember.sqrt(aspect_ratios)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales[None, :]).view(-1)
        hs = (h_ratios[:, None] * scales[None, :]).view(-1)
        base_anchors = ember.stack([-ws, -hs, ws, hs], dim=1) / 2
        return base_anchors.round()

    def set_cell_anchors(self, dtype: int, device: str) -> None:
        self.cell_anchors = [a.to(dtype=dtype, device=device) for a in self.cell_anchors]

    def num_anchors_per_location(self) -> List[int]:
        return [len(s) * len(a) for s, a in zip(self.sizes, self.aspect_ratios)]

    def grid_anchors(self, grid_sizes: List[List[int]], strides: List[List[int]], dtype: Optional[int] = None,
                     device: Optional[str] = None) -> List[Tensor]:
        """Each level's base anchors (in dtype on device when given) shifted to every cell of its grid."""
        anchors: List[Tensor] = []
        if not (len(grid_sizes) == len(strides) == len(self.cell_anchors)):
            raise ValueError("Anchors should be Tuple[Tuple[int]] because each feature map could potentially have "
                             "different sizes and aspect ratios. There needs to be a match between the number of "
                             "feature maps passed and the number of sizes / aspect ratios specified.")
        for size, stride, base_anchors in zip(grid_sizes, strides, self.cell_anchors):
            grid_height, grid_width = size
            stride_height, stride_width = stride
            if dtype is not None or device is not None:
                base_anchors = base_anchors.to(dtype=dtype, device=device)
            shifts_x = ember.arange(0, grid_width, dtype=ember.int32, device=base_anchors.device) * stride_width
            shifts_y = ember.arange(0, grid_height, dtype=ember.int32, device=base_anchors.device) * stride_height
            shift_y, shift_x = ember.meshgrid([shifts_y, shifts_x], indexing="ij")
            shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
            shifts = ember.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
            anchors.append((shifts.view(-1, 1, 4) + base_anchors.view(1, -1, 4)).reshape(-1, 4))
        return anchors

    def forward(self, image_list: ImageList, feature_maps: List[Tensor]) -> List[Tensor]:
        grid_sizes = [fm.shape[-2:] for fm in feature_maps]
        image_size = image_list.tensors.shape[-2:]
        dtype, device = feature_maps[0].dtype, feature_maps[0].device
        strides = [[image_size[0] // g[0], image_size[1] // g[1]] for g in grid_sizes]
        anchors_over_all_feature_maps = self.grid_anchors(grid_sizes, strides, dtype, device)
        all_anchors = ember.cat(anchors_over_all_feature_maps)
        return [all_anchors.clone() for _ in range(len(image_list.image_sizes))]
