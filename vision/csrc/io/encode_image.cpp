// encode_jpeg (libjpeg-turbo, into memory) and encode_png (libpng, through a write callback): a uint8
// [C, H, W] image to a 1-D uint8 tensor of the file's bytes. Library errors longjmp back as in the decoders.
// jpeglib.h uses size_t and FILE without including their headers.
// clang-format off
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
// clang-format on
#include <png.h>

#include <csetjmp>
#include <cstdlib>
#include <cstring>

#include "io/image_codecs.h"

namespace embervision {

namespace {

// The image's samples interleaved (H rows of W pixels of C samples), as both libraries take them.
std::vector<uint8_t> interleaved(const Tensor& image) {
  const Tensor chw = ember::contiguous(image);
  const int64_t c = chw.sizes()[0], hw = chw.sizes()[1] * chw.sizes()[2];
  const uint8_t* src = reinterpret_cast<const uint8_t*>(chw.data());
  std::vector<uint8_t> out(size_t(c * hw));
  for (int64_t i = 0; i < hw; i++)
    for (int64_t k = 0; k < c; k++) out[size_t(i * c + k)] = src[k * hw + i];
  return out;
}

Tensor bytes_tensor(const uint8_t* data, size_t n) {
  Tensor out = ember::empty({int64_t(n)}, ember::ScalarType::UInt8);
  if (n) std::memcpy(out.data(), data, n);
  return out;
}

struct JpegErrors {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrors*>(cinfo->err);
  cinfo->err->format_message(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Apart from C++ objects with destructors (longjmp skips them); *out/*size are malloc'ed by libjpeg.
bool jpeg_compress(const uint8_t* pixels, int64_t h, int64_t w, int64_t c, int quality, unsigned char** out,
                   unsigned long* size, JpegErrors* err) {
  jpeg_compress_struct cinfo;
  cinfo.err = jpeg_std_error(&err->pub);
  err->pub.error_exit = jpeg_on_error;
  if (setjmp(err->jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, out, size);
  cinfo.image_width = JDIMENSION(w);
  cinfo.image_height = JDIMENSION(h);
  cinfo.input_components = int(c);
  cinfo.in_color_space = c == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  const size_t stride = size_t(w * c);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(pixels) + stride * cinfo.next_scanline;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

struct PngSink {
  std::vector<uint8_t>* bytes;
  char message[256];
};

void png_on_error(png_structp png, png_const_charp message) {
  auto* sink = static_cast<PngSink*>(png_get_error_ptr(png));
  std::strncpy(sink->message, message, sizeof sink->message - 1);
  sink->message[sizeof sink->message - 1] = 0;
  png_longjmp(png, 1);
}

void png_write_bytes(png_structp png, png_bytep data, png_size_t n) {
  auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  sink->bytes->insert(sink->bytes->end(), data, data + n);
}

void png_flush(png_structp) {}

bool png_compress(const uint8_t* pixels, int64_t h, int64_t w, int64_t c, int level, PngSink* sink) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, sink, png_on_error, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    std::strcpy(sink->message, "libpng could not allocate its state");
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  static const int color_types[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                    PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_write_fn(png, sink, png_write_bytes, png_flush);
  png_set_IHDR(png, info, png_uint_32(w), png_uint_32(h), 8, color_types[c], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, level);
  png_write_info(png, info);
  const size_t stride = size_t(w * c);
  for (int64_t y = 0; y < h; y++) png_write_row(png, pixels + stride * size_t(y));
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

Tensor encode_jpeg(const Tensor& image, int64_t quality) {
  check_encodable(image, "encode_jpeg", false);
  EMBER_CHECK(quality >= 1 && quality <= 100, Value,
              "encode_jpeg: image quality should be a positive number between 1 and 100, got ", quality);
  const std::vector<uint8_t> pixels = interleaved(image);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  JpegErrors err;
  const bool ok = jpeg_compress(pixels.data(), image.sizes()[1], image.sizes()[2], image.sizes()[0], int(quality), &out,
                                &size, &err);
  Tensor result = ok ? bytes_tensor(out, size) : Tensor();
  std::free(out);
  EMBER_CHECK(ok, Runtime, "encode_jpeg: ", err.message);
  return result;
}

Tensor encode_png(const Tensor& image, int64_t compression_level) {
  check_encodable(image, "encode_png", true);
  EMBER_CHECK(compression_level >= 0 && compression_level <= 9, Value,
              "encode_png: compression level should be between 0 and 9, got ", compression_level);
  const std::vector<uint8_t> pixels = interleaved(image);
  std::vector<uint8_t> bytes;
  PngSink sink{&bytes, {}};
  const bool ok =
      png_compress(pixels.data(), image.sizes()[1], image.sizes()[2], image.sizes()[0], int(compression_level), &sink);
  EMBER_CHECK(ok, Runtime, "encode_png: ", sink.message);
  return bytes_tensor(bytes.data(), bytes.size());
}

}  // namespace embervision
