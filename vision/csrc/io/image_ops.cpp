// The image op namespace (ember.ops.image.*): file bytes in and out, the codecs, decode_image (by the
// data's signature), and the batched decoders that spread a list of images over ember's thread pool.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "io/image_codecs.h"

namespace embervision {

namespace {

using FileHandle = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

[[noreturn]] void fail_on_file(const char* op, const std::string& path) {
  EMBER_FAIL(Runtime, op, ": [Errno ", errno, "] ", std::strerror(errno), ": '", path, "'");
}

Tensor read_file(const std::string& path) {
  FileHandle f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) fail_on_file("read_file", path);
  if (std::fseek(f.get(), 0, SEEK_END) != 0) fail_on_file("read_file", path);
  const long size = std::ftell(f.get());
  if (size < 0) fail_on_file("read_file", path);
  std::rewind(f.get());
  Tensor out = ember::empty({int64_t(size)}, ember::ScalarType::UInt8);
  if (size > 0 && std::fread(out.data(), 1, size_t(size), f.get()) != size_t(size)) fail_on_file("read_file", path);
  return out;
}

void write_file(const std::string& path, const Tensor& data) {
  EMBER_CHECK(data.dtype() == ember::ScalarType::UInt8 && data.dim() == 1, Runtime,
              "write_file: expected a one dimensional uint8 tensor of bytes, got ", data.dim(), "-D ",
              ember::dtype_name(data.dtype()));
  const Tensor bytes = ember::contiguous(data);
  FileHandle f(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!f) fail_on_file("write_file", path);
  const size_t n = size_t(bytes.numel());
  if (n && std::fwrite(bytes.data(), 1, n, f.get()) != n) fail_on_file("write_file", path);
  if (std::fflush(f.get()) != 0) fail_on_file("write_file", path);
}

bool starts_with(const Tensor& data, const uint8_t* sig, size_t n) {
  return size_t(data.numel()) >= n && std::memcmp(data.data(), sig, n) == 0;
}

Tensor decode_image(const Tensor& data, int64_t mode, bool apply_exif_orientation) {
  check_encoded(data, "decode_image");
  const Tensor bytes = ember::contiguous(data);
  static const uint8_t jpeg[] = {0xFF, 0xD8, 0xFF}, png[] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (starts_with(bytes, jpeg, sizeof jpeg)) return decode_jpeg(bytes, mode, apply_exif_orientation);
  if (starts_with(bytes, png, sizeof png)) return decode_png(bytes, mode, false, apply_exif_orientation);
  EMBER_FAIL(Runtime, "decode_image: unsupported image file: only JPEG and PNG are currently supported (the data ",
             "starts with neither signature)");
}

// Each image decodes on one of ember's threads; a failure names the image's index in the list.
template <class Decode>
std::vector<Tensor> decode_each(const std::vector<Tensor>& data, const char* op, const Decode& decode) {
  std::vector<Tensor> out(data.size());
  std::vector<std::string> errors(data.size());
  ember::parallel_for(int64_t(data.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++) {
      try {
        out[size_t(i)] = decode(data[size_t(i)]);
      } catch (const std::exception& err) {
        errors[size_t(i)] = err.what();
      }
    }
  });
  for (size_t i = 0; i < data.size(); i++)
    EMBER_CHECK(errors[i].empty(), Runtime, op, ": image ", i, " of the list: ", errors[i]);
  return out;
}

std::vector<Tensor> decode_jpegs(const std::vector<Tensor>& data, int64_t mode, bool exif) {
  return decode_each(data, "decode_jpeg", [&](const Tensor& t) { return decode_jpeg(t, mode, exif); });
}

std::vector<Tensor> decode_images(const std::vector<Tensor>& data, int64_t mode, bool exif) {
  return decode_each(data, "decode_image", [&](const Tensor& t) { return decode_image(t, mode, exif); });
}

}  // namespace

}  // namespace embervision

EMBER_LIBRARY(image, m) {
  using namespace embervision;
  m.def("read_file(str path) -> Tensor", read_file);
  m.def("write_file(str path, Tensor data) -> ()", write_file);
  m.def("decode_jpeg(Tensor data, int mode=0, bool apply_exif_orientation=False) -> Tensor", decode_jpeg);
  m.def("decode_jpegs(Tensor[] data, int mode=0, bool apply_exif_orientation=False) -> Tensor[]", decode_jpegs);
  m.def("decode_png(Tensor data, int mode=0, bool allow_16_bits=False, bool apply_exif_orientation=False) -> Tensor",
        decode_png);
  m.def("decode_image(Tensor data, int mode=0, bool apply_exif_orientation=False) -> Tensor", decode_image);
  m.def("decode_images(Tensor[] data, int mode=0, bool apply_exif_orientation=False) -> Tensor[]", decode_images);
  m.def("encode_jpeg(Tensor image, int quality=75) -> Tensor", encode_jpeg);
  m.def("encode_png(Tensor image, int compression_level=6) -> Tensor", encode_png);
}
