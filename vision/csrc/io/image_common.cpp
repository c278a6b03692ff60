// What the codecs share: input checks, channel conversion between read modes, EXIF orientation, and the
// interleaved-to-[C, H, W] copy.
#include <cstring>

#include "io/image_codecs.h"

namespace embervision {

void check_encoded(const Tensor& data, const char* op) {
  EMBER_CHECK(data.dtype() == ember::ScalarType::UInt8, Runtime, op, ": expected a uint8 tensor of encoded bytes, got ",
              ember::dtype_name(data.dtype()));
  EMBER_CHECK(data.dim() == 1, Runtime, op, ": expected a one dimensional tensor of encoded bytes, got ", data.dim(),
              " dimensions");
  EMBER_CHECK(data.numel() > 0, Runtime, op, ": expected a non empty tensor of encoded bytes");
  EMBER_CHECK(data.device().type == ember::DeviceType::CPU, Runtime, op, ": the encoded bytes must be on the CPU");
}

void check_encodable(const Tensor& image, const char* op, bool allow_alpha) {
  EMBER_CHECK(image.dtype() == ember::ScalarType::UInt8, Runtime, op, ": input tensor dtype should be uint8, got ",
              ember::dtype_name(image.dtype()));
  EMBER_CHECK(image.dim() == 3, Runtime, op, ": input data should be a 3-dimensional tensor [C, H, W], got ",
              image.dim(), " dimensions");
  const int64_t c = image.sizes()[0];
  EMBER_CHECK(c == 1 || c == 3 || (allow_alpha && (c == 2 || c == 4)), Runtime, op,
              ": the number of channels should be ", allow_alpha ? "1, 2, 3 or 4" : "1 or 3", ", got: ", c);
  EMBER_CHECK(image.sizes()[1] > 0 && image.sizes()[2] > 0, Runtime, op, ": the image is empty (", image.sizes()[1],
              "x", image.sizes()[2], ")");
  EMBER_CHECK(image.device().type == ember::DeviceType::CPU, Runtime, op, ": the image must be on the CPU");
}

ImageReadMode read_mode(int64_t mode, const char* op) {
  EMBER_CHECK(mode >= kUnchanged && mode <= kRgbAlpha, Runtime, op, ": unknown ImageReadMode value ", mode,
              " (0 UNCHANGED, 1 GRAY, 2 GRAY_ALPHA, 3 RGB, 4 RGB_ALPHA)");
  return ImageReadMode(mode);
}

namespace {

template <class T>
std::vector<T> convert(const std::vector<T>& in, int64_t pixels, int64_t from, int64_t to, T opaque) {
  std::vector<T> out(size_t(pixels * to));
  const bool from_color = from >= 3, to_color = to >= 3;
  const bool from_alpha = from == 2 || from == 4, to_alpha = to == 2 || to == 4;
  for (int64_t i = 0; i < pixels; i++) {
    const T* s = in.data() + i * from;
    T* d = out.data() + i * to;
    if (to_color) {
      for (int k = 0; k < 3; k++) d[k] = from_color ? s[k] : s[0];
    } else if (from_color) {  // Pillow's RGB -> L: (19595 R + 38470 G + 7471 B + 0x8000) >> 16
      d[0] = T((uint64_t(s[0]) * 19595 + uint64_t(s[1]) * 38470 + uint64_t(s[2]) * 7471 + 0x8000) >> 16);
    } else {
      d[0] = s[0];
    }
    if (to_alpha) d[to - 1] = from_alpha ? s[from - 1] : opaque;
  }
  return out;
}

// Where output pixel (y, x) of an image turned upright for orientation o comes from in the stored
// h x w image (for orientations 5..8 the output is w x h).
inline void source_of(int o, int64_t y, int64_t x, int64_t h, int64_t w, int64_t& sy, int64_t& sx) {
  switch (o) {
    case 2:
      sy = y, sx = w - 1 - x;
      break;  // mirrored
    case 3:
      sy = h - 1 - y, sx = w - 1 - x;
      break;  // rotated 180
    case 4:
      sy = h - 1 - y, sx = x;
      break;  // flipped
    case 5:
      sy = x, sx = y;
      break;  // transposed
    case 6:
      sy = h - 1 - x, sx = y;
      break;  // shown after a 90 degree clockwise turn
    case 7:
      sy = h - 1 - x, sx = w - 1 - y;
      break;  // transversed
    case 8:
      sy = x, sx = w - 1 - y;
      break;  // shown after a 90 degree counter-clockwise turn
    default:
      sy = y, sx = x;
  }
}

template <class T, class Out>
void fill_chw(const std::vector<T>& src, const Pixels& p, int orientation, Out* out) {
  const int64_t h = p.height, w = p.width, c = p.channels;
  const bool swap = orientation >= 5 && orientation <= 8;
  const int64_t oh = swap ? w : h, ow = swap ? h : w;
  if (orientation < 2 || orientation > 8) {  // as stored: one plane at a time, read in order
    for (int64_t k = 0; k < c; k++) {
      Out* plane = out + k * h * w;
      const T* s = src.data() + k;
      for (int64_t i = 0; i < h * w; i++) plane[i] = Out(s[i * c]);
    }
    return;
  }
  for (int64_t y = 0; y < oh; y++)
    for (int64_t x = 0; x < ow; x++) {
      int64_t sy, sx;
      source_of(orientation, y, x, h, w, sy, sx);
      const T* s = src.data() + (sy * w + sx) * c;
      for (int64_t k = 0; k < c; k++) out[(k * oh + y) * ow + x] = Out(s[k]);
    }
}

}  // namespace

void convert_channels(Pixels& p, ImageReadMode mode) {
  static const int64_t wanted[] = {0, 1, 2, 3, 4};
  const int64_t to = wanted[mode];
  if (to == 0 || to == p.channels) return;
  const int64_t n = p.height * p.width;
  if (p.bits == 16)
    p.wide = convert<uint16_t>(p.wide, n, p.channels, to, 65535);
  else
    p.narrow = convert<uint8_t>(p.narrow, n, p.channels, to, 255);
  p.channels = to;
}

Tensor to_chw(const Pixels& p, int orientation) {
  const bool swap = orientation >= 5 && orientation <= 8;
  const int64_t oh = swap ? p.width : p.height, ow = swap ? p.height : p.width;
  if (p.bits == 16) {  // PyTorch of torchvision's era has no uint16: 16-bit samples come out as int32
    Tensor out = ember::empty({p.channels, oh, ow}, ember::ScalarType::Int32);
    fill_chw(p.wide, p, orientation, reinterpret_cast<int32_t*>(out.data()));
    return out;
  }
  Tensor out = ember::empty({p.channels, oh, ow}, ember::ScalarType::UInt8);
  fill_chw(p.narrow, p, orientation, reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

int exif_orientation(const uint8_t* data, size_t size) {
  if (size < 14 || std::memcmp(data, "Exif\0\0", 6) != 0) return 1;
  return tiff_orientation(data + 6, size - 6);
}

int tiff_orientation(const uint8_t* tiff, size_t n) {
  if (n < 8) return 1;
  const bool little = tiff[0] == 'I' && tiff[1] == 'I';
  if (!little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
  auto u16 = [&](size_t at) {
    return little ? uint32_t(tiff[at] | tiff[at + 1] << 8) : uint32_t(tiff[at] << 8 | tiff[at + 1]);
  };
  auto u32 = [&](size_t at) { return little ? u16(at) | u16(at + 2) << 16 : u16(at) << 16 | u16(at + 2); };
  if (u16(2) != 42) return 1;
  const size_t ifd = u32(4);
  if (ifd + 2 > n) return 1;
  const size_t entries = u16(ifd);
  for (size_t i = 0; i < entries; i++) {
    const size_t at = ifd + 2 + 12 * i;
    if (at + 12 > n) return 1;
    if (u16(at) == 0x0112) {  // Orientation, a SHORT stored in the value field
      const uint32_t o = u16(at + 8);
      return o >= 1 && o <= 8 ? int(o) : 1;
    }
  }
  return 1;
}

}  // namespace embervision
