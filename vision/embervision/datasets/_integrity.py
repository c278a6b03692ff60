"""File digests of the downloads: MD5 or SHA-256, told apart by length (torchvision.datasets.utils's checks)."""
import hashlib
import os
from typing import Any, Optional


def _digest(fpath: str, algorithm: str, chunk_size: int = 1024 * 1024) -> str:
    h = hashlib.new(algorithm)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            h.update(chunk)
    return h.hexdigest()


def calculate_md5(fpath: str, chunk_size: int = 1024 * 1024) -> str:
    return _digest(fpath, "md5", chunk_size)


def calculate_sha256(fpath: str, chunk_size: int = 1024 * 1024) -> str:
    return _digest(fpath, "sha256", chunk_size)


def check_md5(fpath: str, md5: str, **kwargs: Any) -> bool:
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath: str, md5: Optional[str] = None) -> bool:
    """True when fpath is a file and (if a digest is given) its MD5 (32 hex digits) or SHA-256 (64) matches."""
    if not os.path.isfile(fpath):
        return False
    if md5 is None:
        return True
    if len(md5) == 64:
        return md5.lower() == calculate_sha256(fpath)
    if len(md5) == 32:
        return md5.lower() == calculate_md5(fpath)
    raise ValueError(f"check_integrity: expected an MD5 (32 hex digits) or SHA-256 (64) digest, got '{md5}'")
