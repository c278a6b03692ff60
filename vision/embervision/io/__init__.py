"""embervision.io: image codecs (C++ ops on libjpeg-turbo/libpng) and video on PyAV, as torchvision.io."""
from .image import (ImageReadMode, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png, read_file,
                    read_image, write_file, write_jpeg, write_png)
from .video import read_video, read_video_timestamps, write_video
from .video_reader import VideoReader

__all__ = ["ImageReadMode", "decode_image", "decode_jpeg", "decode_png", "encode_jpeg", "encode_png", "read_file",
           "read_image", "write_file", "write_jpeg", "write_png", "read_video", "read_video_timestamps", "write_video",
           "VideoReader"]
