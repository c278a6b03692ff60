#include "unicode.h"

#include <algorithm>
#include <stdexcept>

namespace embertext {
namespace {

struct CodeRange {
  char32_t lo, hi;
};
struct CodeMapping {
  char32_t cp;
  unsigned offset, length;
};

#include "unicode_data.inc"

template <size_t N>
bool in_ranges(const CodeRange (&table)[N], char32_t c) {
  const CodeRange* end = table + N;
  const CodeRange* it = std::upper_bound(table, end, c, [](char32_t v, const CodeRange& r) { return v < r.lo; });
  return it != table && c <= (it - 1)->hi;
}

template <size_t N, size_t P>
bool append_mapped(std::u32string& out, const CodeMapping (&table)[N], const char32_t (&pool)[P], char32_t c) {
  const CodeMapping* end = table + N;
  const CodeMapping* it = std::lower_bound(table, end, c, [](const CodeMapping& m, char32_t v) { return m.cp < v; });
  if (it == end || it->cp != c) return false;
  out.append(pool + it->offset, it->length);
  return true;
}

[[noreturn]] void bad_utf8(size_t offset) {
  throw std::invalid_argument("invalid UTF-8 at byte " + std::to_string(offset));
}

}  // namespace

std::u32string utf8_decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      out.push_back(b);
      ++i;
      continue;
    }
    int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : -1;
    if (extra < 0 || b > 0xF4 || i + extra >= s.size()) bad_utf8(i);
    char32_t cp = b & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      unsigned char cont = static_cast<unsigned char>(s[i + k]);
      if ((cont & 0xC0) != 0x80) bad_utf8(i);
      cp = (cp << 6) | (cont & 0x3F);
    }
    static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) bad_utf8(i);
    out.push_back(cp);
    i += extra + 1;
  }
  return out;
}

void utf8_append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string utf8_encode(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) utf8_append(out, c);
  return out;
}

bool is_letter(char32_t c) { return c < 0x80 ? ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') : in_ranges(kLetter, c); }
bool is_number(char32_t c) { return c < 0x80 ? (c >= '0' && c <= '9') : in_ranges(kNumber, c); }
bool is_punctuation(char32_t c) { return in_ranges(kPunctuation, c); }
bool is_other(char32_t c) { return in_ranges(kOther, c); }
bool is_mark_nonspacing(char32_t c) { return c >= 0x300 && in_ranges(kMarkNonspacing, c); }

bool is_white_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

void append_lower(std::u32string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
  } else if (!append_mapped(out, kLower, kLowerPool, c)) {
    out.push_back(c);
  }
}

void append_decomposed(std::u32string& out, char32_t c) {
  constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
  constexpr char32_t kTCount = 28, kNCount = 21 * 28, kSCount = 19 * kNCount;
  if (c < 0xC0) {
    out.push_back(c);
  } else if (c >= kSBase && c < kSBase + kSCount) {  // Hangul syllables decompose arithmetically
    char32_t s = c - kSBase;
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount) out.push_back(kTBase + s % kTCount);
  } else if (!append_mapped(out, kDecompose, kDecomposePool, c)) {
    out.push_back(c);
  }
}

}  // namespace embertext
