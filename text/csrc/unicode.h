// UTF-8 decoding/encoding and the character classes embertext's tokenizers need (Unicode general
// categories, full lowercase mapping, canonical decomposition), from tables generated at build time.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace embertext {

// Decodes UTF-8; raises std::invalid_argument naming the byte offset of malformed input.
std::u32string utf8_decode(std::string_view s);
void utf8_append(std::string& out, char32_t cp);
std::string utf8_encode(std::u32string_view s);

bool is_letter(char32_t c);           // L*
bool is_number(char32_t c);           // N*
bool is_punctuation(char32_t c);      // P*
bool is_other(char32_t c);            // C* (control, format, unassigned, private use, surrogate)
bool is_mark_nonspacing(char32_t c);  // Mn
bool is_white_space(char32_t c);      // the White_Space property (regex \s)

// Appends c's full lowercase mapping (one or more characters) / canonical decomposition (NFD of c).
void append_lower(std::u32string& out, char32_t c);
void append_decomposed(std::u32string& out, char32_t c);

}  // namespace embertext
