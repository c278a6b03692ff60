#include "base64.h"

#include <ember/extension.h>

#include <array>
#include <cstdint>

namespace embertext {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::array<int8_t, 256> decode_table() {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return t;
}

}  // namespace

std::string base64_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8) | uint8_t(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kAlphabet[(v >> shift) & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (rest == 2) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::string base64_decode(const std::string& text) {
  static const std::array<int8_t, 256> table = decode_table();
  EMBER_CHECK(text.size() % 4 == 0, Value, "base64: the length ", text.size(), " is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    size_t pad = 0;
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      bool padding = c == '=' && i + 4 == text.size() && k >= 2;
      EMBER_CHECK(padding || (pad == 0 && table[uint8_t(c)] >= 0), Value, "base64: bad character at ", i + k);
      pad += padding;
      v = (v << 6) | (padding ? 0u : uint32_t(table[uint8_t(c)]));
    }
    out.push_back(char((v >> 16) & 255));
    if (pad < 2) out.push_back(char((v >> 8) & 255));
    if (pad < 1) out.push_back(char(v & 255));
  }
  return out;
}

}  // namespace embertext
