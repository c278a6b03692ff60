"""FakeData: random images and labels, each a function of its index (seeded by index + random_offset,
leaving the global generator's state as it was), as torchvision.datasets.FakeData."""
from typing import Any, Callable, Optional, Tuple

import ember

from .vision import VisionDataset

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    def __init__(self, size: int = 1000, image_size: Tuple[int, int, int] = (3, 224, 224), num_classes: int = 10,
                 transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 random_offset: int = 0) -> None:
        super().__init__(None, transform=transform, target_transform=target_transform)  # type: ignore[arg-type]
        self.size = size
        self.num_classes = num_classes
        self.image_size = image_size
        self.random_offset = random_offset

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        rng_state = ember.get_rng_state()
        ember.manual_seed(index + self.random_offset)
        img = ember.randn(*self.image_size)
        target = ember.randint(0, self.num_classes, size=(1,), dtype=ember.long)[0]
        ember.set_rng_state(rng_state)
        img = _to_pil(img)
        img, target = self._transform_pair(img, target)
        return img, target.item()

    def __len__(self) -> int:
        return self.size


def _to_pil(img):
    """A float [C, H, W] image as a PIL image the way ToPILImage does: times 255, cast to uint8."""
    from PIL import Image
    array = img.mul(255).to(ember.uint8).permute(1, 2, 0).numpy()
    return Image.fromarray(array[:, :, 0] if array.shape[2] == 1 else array)  # L, RGB or RGBA
