// embervision's image codecs (libjpeg-turbo, libpng) and the helpers they share. Every decoder returns
// a C-contiguous [C, H, W] tensor; every error is an ember::Error (RuntimeError in Python) naming the problem.
#pragma once
#include <ember/extension.h>

#include <cstdint>
#include <string>
#include <vector>

namespace embervision {

using ember::Tensor;

// torchvision's ImageReadMode values (embervision.io.ImageReadMode).
enum ImageReadMode : int64_t { kUnchanged = 0, kGray = 1, kGrayAlpha = 2, kRgb = 3, kRgbAlpha = 4 };

// The checks every decoder makes on its encoded input: a non-empty 1-D uint8 CPU tensor.
void check_encoded(const Tensor& data, const char* op);
// A 3-D uint8 [C, H, W] CPU image with 1 or 3 channels, the input of both encoders.
void check_encodable(const Tensor& image, const char* op, bool allow_alpha);
ImageReadMode read_mode(int64_t mode, const char* op);

// A decoded image as interleaved samples (H rows of W pixels of C samples, 8 or 16 bits each).
struct Pixels {
  int64_t height = 0, width = 0, channels = 0;
  int bits = 8;
  std::vector<uint16_t> wide;   // 16-bit samples when bits == 16
  std::vector<uint8_t> narrow;  // 8-bit samples otherwise
};
// The [C, H, W] tensor (uint8, or int32 for 16-bit samples) of pixels, turned upright for an EXIF
// orientation 1..8 (1: as stored).
Tensor to_chw(const Pixels& p, int orientation);
// Pixels converted to a mode's channel count: gray from RGB with Pillow's weights (so decodes match
// PIL.Image.convert), alpha dropped or added as opaque.
void convert_channels(Pixels& p, ImageReadMode mode);

// The EXIF orientation (1..8) in an APP1 segment's payload ("Exif\0\0" + TIFF), or 1 when absent/invalid.
int exif_orientation(const uint8_t* data, size_t size);
// The same from a bare TIFF header + IFD (a PNG eXIf chunk's payload).
int tiff_orientation(const uint8_t* tiff, size_t size);

Tensor decode_jpeg(const Tensor& data, int64_t mode, bool apply_exif_orientation);
Tensor decode_png(const Tensor& data, int64_t mode, bool allow_16_bits, bool apply_exif_orientation);
Tensor encode_jpeg(const Tensor& image, int64_t quality);
Tensor encode_png(const Tensor& image, int64_t compression_level);

}  // namespace embervision
