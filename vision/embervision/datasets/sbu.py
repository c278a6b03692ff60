"""SBU Captioned Photo (root/SBUCaptionedPhotoDataset.tar.gz, extracted into root/dataset/ with the photo URL and
caption lists; the photos themselves are fetched one by one from their URLs into root/dataset/), as
torchvision.datasets.SBU."""
import os
from typing import Any, Callable, Optional, Tuple

from .utils import check_integrity, download_url, extract_archive
from .vision import VisionDataset

__all__ = ["SBU"]


class SBU(VisionDataset):
    """(image, caption) for each listed photo that is on disk (photos removed from Flickr are left out)."""

    url = "https://www.cs.rice.edu/~vo9/sbucaptions/SBUCaptionedPhotoDataset.tar.gz"
    filename = "SBUCaptionedPhotoDataset.tar.gz"
    md5_checksum = "9aec147b3488753cf758b4d493422285"

    def __init__(self, root: str, transform: Optional[Callable] = None, target_transform: Optional[Callable] = None,
                 download: bool = True) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        self.photos = []
        self.captions = []
        dataset = os.path.join(self.root, "dataset")
        with open(os.path.join(dataset, "SBU_captioned_photo_dataset_urls.txt")) as urls, \
                open(os.path.join(dataset, "SBU_captioned_photo_dataset_captions.txt")) as captions:
            for url, caption in zip(urls, captions):
                photo = os.path.basename(url.rstrip())
                if os.path.exists(os.path.join(dataset, photo)):
                    self.photos.append(photo)
                    self.captions.append(caption.rstrip())

    def __getitem__(self, index: int) -> Tuple[Any, Any]:
        from PIL import Image
        with open(os.path.join(self.root, "dataset", self.photos[index]), "rb") as f:
            img = Image.open(f).convert("RGB")
        return self._transform_pair(img, self.captions[index])

    def __len__(self) -> int:
        return len(self.photos)

    def _check_integrity(self) -> bool:
        return check_integrity(os.path.join(self.root, self.filename), self.md5_checksum)

    def download(self) -> None:
        """The tarball (checked by MD5), then each listed photo; photos that fail to download are skipped."""
        if self._check_integrity():
            print("Files already downloaded and verified")
            return
        download_url(self.url, self.root, self.filename, self.md5_checksum)
        extract_archive(os.path.join(self.root, self.filename), self.root)
        with open(os.path.join(self.root, "dataset", "SBU_captioned_photo_dataset_urls.txt")) as fh:
            for line in fh:
                try:
                    download_url(line.rstrip(), os.path.join(self.root, "dataset"))
                except OSError:  # the photos are users' Flickr photos, which may have been removed
                    pass
