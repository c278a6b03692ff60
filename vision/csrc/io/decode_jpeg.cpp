// decode_jpeg on libjpeg-turbo. libjpeg reports fatal errors through error_exit, which by default
// calls exit(): ours longjmps back here instead, and the message becomes a RuntimeError. A truncated
// file (libjpeg's "Premature end of JPEG file" warning, after which it pads with gray) is an error too.
// CMYK and YCCK images (libjpeg gives CMYK for both) become RGB as Pillow makes them: it takes the samples
// as Adobe's inverted CMYK (what Photoshop writes, with its APP14 marker) and its convert("RGB") computes
// R = K' - K' * (255 - C') / 255 with C', K' the stored samples and its rounded division by 255.
// jpeglib.h uses size_t and FILE without including their headers.
// clang-format off
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <csetjmp>

#include "io/image_codecs.h"

namespace embervision {

namespace {

struct ErrorManager {
  jpeg_error_mgr pub;  // first, so libjpeg's pointer to it is a pointer to this
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  cinfo->err->format_message(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

void on_message(j_common_ptr cinfo, int level) {
  // level -1 is a warning about corrupt data; a premature end means the image is incomplete.
  if (level == -1 && cinfo->err->msg_code == JWRN_JPEG_EOF) on_error(cinfo);
}

// Pillow's MULDIV255: a * b / 255, rounded.
inline int muldiv255(int a, int b) {
  const int t = a * b + 128;
  return ((t >> 8) + t) >> 8;
}

// Inverted (Adobe) CMYK samples to RGB in place, as Pillow's CMYK;I decode and convert("RGB") do.
void cmyk_to_rgb(Pixels* p) {
  const size_t n = size_t(p->height * p->width);
  uint8_t* px = p->narrow.data();
  for (size_t i = 0; i < n; i++) {
    const uint8_t* s = px + 4 * i;
    const int k = s[3];  // Pillow's 255 - K of its un-inverted K
    const uint8_t r = uint8_t(k - muldiv255(255 - s[0], k)), g = uint8_t(k - muldiv255(255 - s[1], k)),
                  b = uint8_t(k - muldiv255(255 - s[2], k));
    px[3 * i] = r, px[3 * i + 1] = g, px[3 * i + 2] = b;  // 3 * i <= 4 * i: never overwrites an unread sample
  }
  p->narrow.resize(3 * n);
  p->channels = 3;
}

// The decode proper, apart from any C++ object with a destructor so that longjmp skips none. Returns
// false with err->message set on failure.
bool decode(const uint8_t* bytes, size_t size, ImageReadMode mode, bool exif, Pixels* out, int* orientation,
            ErrorManager* err) {
  jpeg_decompress_struct cinfo;
  cinfo.err = jpeg_std_error(&err->pub);
  err->pub.error_exit = on_error;
  err->pub.emit_message = on_message;
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, bytes, static_cast<unsigned long>(size));
  if (exif) jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
  jpeg_read_header(&cinfo, TRUE);
  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  if (cmyk)
    cinfo.out_color_space = JCS_CMYK;  // to RGB (and then gray) below, as Pillow converts
  else if (mode == kGray)
    cinfo.out_color_space = JCS_GRAYSCALE;
  else if (mode == kRgb)
    cinfo.out_color_space = JCS_RGB;
  *orientation = 1;
  for (jpeg_saved_marker_ptr m = cinfo.marker_list; m; m = m->next)
    if (m->marker == JPEG_APP0 + 1) *orientation = exif_orientation(m->data, m->data_length);
  jpeg_start_decompress(&cinfo);
  out->height = cinfo.output_height;
  out->width = cinfo.output_width;
  out->channels = cinfo.output_components;
  out->narrow.resize(size_t(out->height * out->width * out->channels));
  const size_t stride = size_t(out->width * out->channels);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out->narrow.data() + stride * cinfo.output_scanline;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (cmyk) cmyk_to_rgb(out);
  return true;
}

}  // namespace

Tensor decode_jpeg(const Tensor& data, int64_t mode, bool apply_exif_orientation) {
  check_encoded(data, "decode_jpeg");
  const ImageReadMode m = read_mode(mode, "decode_jpeg");
  EMBER_CHECK(m == kUnchanged || m == kGray || m == kRgb, Runtime,
              "decode_jpeg: the provided mode is not supported for JPEG files (use UNCHANGED, GRAY or RGB)");
  const Tensor bytes = ember::contiguous(data);
  Pixels pixels;
  ErrorManager err;
  int orientation = 1;
  const bool ok = decode(reinterpret_cast<const uint8_t*>(bytes.data()), size_t(bytes.numel()), m,
                         apply_exif_orientation, &pixels, &orientation, &err);
  EMBER_CHECK(ok, Runtime, "decode_jpeg: ", err.message);
  if (m == kGray) convert_channels(pixels, m);  // a CMYK image came out as RGB
  return to_chw(pixels, apply_exif_orientation ? orientation : 1);
}

}  // namespace embervision
