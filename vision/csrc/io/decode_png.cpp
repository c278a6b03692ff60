// decode_png on libpng: 1/2/4/8/16-bit gray, gray+alpha, RGB, RGBA and palette images, interlaced or
// not. In UNCHANGED mode a palette image gives its indices (one channel, as Pillow's "P" mode and
// torchvision do); every other mode expands the palette to colors first, and a mode with alpha turns
// tRNS transparency (of any color type) into alpha.
// libpng's errors longjmp back here and become a RuntimeError with libpng's message.
// apply_exif_orientation reads the Orientation tag of an eXIf chunk (a bare TIFF header and IFD), before or
// after the image data, and turns the image upright as Pillow's ImageOps.exif_transpose does.
#include <png.h>

#include <csetjmp>
#include <cstring>

#include "io/image_codecs.h"

namespace embervision {

namespace {

struct PngSource {
  const uint8_t* bytes;
  size_t size, at;
  char message[256];
};

void on_error(png_structp png, png_const_charp message) {
  auto* src = static_cast<PngSource*>(png_get_error_ptr(png));
  std::strncpy(src->message, message, sizeof src->message - 1);
  src->message[sizeof src->message - 1] = 0;
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // benign (unknown chunks, gamma notes)

void read_bytes(png_structp png, png_bytep into, png_size_t n) {
  auto* src = static_cast<PngSource*>(png_get_io_ptr(png));
  if (n > src->size - src->at) png_error(png, "the data is truncated (it ends inside the image)");
  std::memcpy(into, src->bytes + src->at, n);
  src->at += n;
}

// The decode proper, apart from any C++ object with a destructor so that longjmp skips none.
// The orientation of an eXIf chunk stored in info, 1 when there is none.
int png_orientation(png_structp png, png_infop info) {
#ifdef PNG_eXIf_SUPPORTED
  png_uint_32 size = 0;
  png_bytep exif = nullptr;
  if (png_get_eXIf_1(png, info, &size, &exif) && exif) return tiff_orientation(exif, size);
#endif
  return 1;
}

bool decode(PngSource* src, ImageReadMode mode, bool allow_16_bits, Pixels* out, std::vector<png_bytep>* rows,
            int* orientation) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, src, on_error, on_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  png_infop end = info ? png_create_info_struct(png) : nullptr;
  if (!end) {
    std::strcpy(src->message, "libpng could not allocate its state");
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, &end);
    return false;
  }
  if (src->size < 8 || png_sig_cmp(src->bytes, 0, 8)) png_error(png, "the data is not a PNG image (bad signature)");
  png_set_read_fn(png, src, read_bytes);
  png_read_info(png, info);
  const int color = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
  if (depth > 8 && !allow_16_bits)
    png_error(png, "at most 8-bit PNG images are supported currently (pass allow_16_bits=True for 16-bit ones)");
  if (color == PNG_COLOR_TYPE_PALETTE) {
    if (mode == kUnchanged)
      png_set_packing(png);  // one index per byte
    else
      png_set_palette_to_rgb(png);  // with tRNS as alpha
  }
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  // A tRNS color key becomes alpha when the mode has alpha (as PIL.Image.convert does; torchvision ignores it).
  if ((mode == kGrayAlpha || mode == kRgbAlpha) && png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (depth == 16) {
    const uint16_t probe = 1;
    if (*reinterpret_cast<const uint8_t*>(&probe) == 1) png_set_swap(png);  // PNG is big-endian
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  out->height = png_get_image_height(png, info);
  out->width = png_get_image_width(png, info);
  out->channels = png_get_channels(png, info);
  out->bits = png_get_bit_depth(png, info) == 16 ? 16 : 8;
  const size_t row_bytes = png_get_rowbytes(png, info);
  if (row_bytes != size_t(out->width * out->channels * out->bits / 8)) png_error(png, "unexpected row size");
  uint8_t* base;
  if (out->bits == 16) {
    out->wide.resize(size_t(out->height * out->width * out->channels));
    base = reinterpret_cast<uint8_t*>(out->wide.data());
  } else {
    out->narrow.resize(size_t(out->height * out->width * out->channels));
    base = out->narrow.data();
  }
  rows->resize(size_t(out->height));
  for (int64_t y = 0; y < out->height; y++) (*rows)[y] = base + row_bytes * size_t(y);
  png_read_image(png, rows->data());
  png_read_end(png, end);
  *orientation = png_orientation(png, info);
  if (*orientation == 1) *orientation = png_orientation(png, end);  // an eXIf chunk after the image data
  png_destroy_read_struct(&png, &info, &end);
  return true;
}

}  // namespace

Tensor decode_png(const Tensor& data, int64_t mode, bool allow_16_bits, bool apply_exif_orientation) {
  check_encoded(data, "decode_png");
  const ImageReadMode m = read_mode(mode, "decode_png");
  const Tensor bytes = ember::contiguous(data);
  PngSource src{reinterpret_cast<const uint8_t*>(bytes.data()), size_t(bytes.numel()), 0, {}};
  Pixels pixels;
  std::vector<png_bytep> rows;  // the caller's, so that a longjmp out of decode skips no destructor
  int orientation = 1;
  const bool ok = decode(&src, m, allow_16_bits, &pixels, &rows, &orientation);
  EMBER_CHECK(ok, Runtime, "decode_png: ", src.message);
  convert_channels(pixels, m);
  return to_chw(pixels, apply_exif_orientation ? orientation : 1);
}

}  // namespace embervision
