// Base64 (RFC 4648, with padding): a SentencePiece model's bytes travel as text through ember.jit, whose
// strings are Python strs (UTF-8) in eager code and JSON strings in saved archives.
#pragma once
#include <string>

namespace embertext {

std::string base64_encode(const std::string& bytes);
// Throws ValueError on a character outside the alphabet or a length that is not a multiple of 4.
std::string base64_decode(const std::string& text);

}  // namespace embertext
