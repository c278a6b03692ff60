#include "gpt2_bpe.h"

#include <limits>
#include <mutex>
#include <stdexcept>

#include "parallel_batch.h"
#include "unicode.h"

namespace embertext {
namespace {

uint64_t pair_key(int32_t a, int32_t b) { return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b); }

// Bytes of a token written in GPT-2's printable alphabet; raises on a character outside it.
std::string alphabet_to_bytes(std::string_view token) {
  static const std::unordered_map<char32_t, unsigned char> inverse = [] {
    std::unordered_map<char32_t, unsigned char> m;
    for (int b = 0; b < 256; ++b) m[gpt2_byte_char(static_cast<unsigned char>(b))] = static_cast<unsigned char>(b);
    return m;
  }();
  std::string out;
  for (char32_t c : utf8_decode(token)) {
    auto it = inverse.find(c);
    if (it == inverse.end()) {
      throw std::invalid_argument("GPT-2 BPE: token '" + std::string(token) +
                                  "' has a character outside GPT-2's byte alphabet");
    }
    out.push_back(static_cast<char>(it->second));
  }
  return out;
}

// Lengths (in bytes) of the next UTF-8 character and its code point; text is valid UTF-8.
char32_t peek(std::string_view s, size_t i, size_t* len) {
  unsigned char b = static_cast<unsigned char>(s[i]);
  size_t n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
  char32_t cp = n == 1 ? b : b & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  *len = n;
  return cp;
}

enum class Kind { Letter, Number, Space, Other };
Kind kind(char32_t c) {
  if (is_white_space(c)) return Kind::Space;
  if (is_letter(c)) return Kind::Letter;
  if (is_number(c)) return Kind::Number;
  return Kind::Other;
}

size_t contraction(std::string_view s, size_t i) {  // 's 't 're 've 'm 'll 'd
  if (s[i] != '\'' || i + 1 >= s.size()) return 0;
  char a = s[i + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 < s.size()) {
    char b = s[i + 2];
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  }
  return 0;
}

}  // namespace

char32_t gpt2_byte_char(unsigned char b) {
  // Printable bytes stand for themselves; the others take the code points from 256 on, in byte order.
  auto printable = [](int x) { return (x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174 && x <= 255); };
  if (printable(b)) return b;
  int n = 0;
  for (int x = 0; x < b; ++x) n += !printable(x);
  return 256 + n;
}

std::vector<std::string_view> GPT2BPEEncoder::pretokenize(std::string_view s) {
  utf8_decode(s);  // validates: raises on malformed UTF-8 before the scanner trusts it
  std::vector<std::string_view> out;
  size_t i = 0, n = s.size(), len = 0;
  while (i < n) {
    if (size_t c = contraction(s, i)) {
      out.push_back(s.substr(i, c));
      i += c;
      continue;
    }
    size_t j = i + (s[i] == ' ' && i + 1 < n ? 1 : 0);
    Kind k = kind(peek(s, j, &len));
    if (k != Kind::Space || j == i) {
      if (k != Kind::Space) {  // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`
        size_t e = j + len;
        while (e < n && kind(peek(s, e, &len)) == k) e += len;
        out.push_back(s.substr(i, e - i));
        i = e;
        continue;
      }
    }
    // A run of white space: all of it at the end of the text, else all but its last character (which
    // then leads the next piece), or a single character when the run is one long (`\s+(?!\S)|\s+`).
    size_t e = i, last = i;
    while (e < n && kind(peek(s, e, &len)) == Kind::Space) {
      last = e;
      e += len;
    }
    size_t end = (e == n || last == i) ? e : last;
    out.push_back(s.substr(i, end - i));
    i = end;
  }
  return out;
}

GPT2BPEEncoder::GPT2BPEEncoder(const std::unordered_map<std::string, int64_t>& encoder,
                               const std::vector<std::pair<std::string, std::string>>& merges) {
  auto intern = [this](const std::string& bytes) {
    auto [it, fresh] = symbol_ids_.emplace(bytes, static_cast<int32_t>(symbols_.size()));
    if (fresh) symbols_.push_back(bytes);
    return it->second;
  };
  for (int b = 0; b < 256; ++b) intern(std::string(1, static_cast<char>(b)));
  int32_t rank = 0;
  for (const auto& [a, b] : merges) {
    int32_t ia = intern(alphabet_to_bytes(a)), ib = intern(alphabet_to_bytes(b));
    int32_t merged = intern(symbols_[ia] + symbols_[ib]);
    merges_.emplace(pair_key(ia, ib), std::make_pair(rank++, merged));
  }
  symbol_token_.assign(symbols_.size(), -1);
  for (const auto& [token, id] : encoder) {
    int32_t sym = intern(alphabet_to_bytes(token));
    if (static_cast<size_t>(sym) >= symbol_token_.size()) symbol_token_.resize(sym + 1, -1);
    symbol_token_[sym] = id;
    token_symbol_[id] = sym;
  }
}

const std::vector<int32_t>& GPT2BPEEncoder::bpe(std::string_view piece) const {
  std::string key(piece);
  {
    std::shared_lock lock(cache_mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  std::vector<int32_t> word;
  word.reserve(piece.size());
  for (unsigned char b : piece) word.push_back(b);
  while (word.size() > 1) {
    int32_t best = std::numeric_limits<int32_t>::max(), merged = -1;
    uint64_t best_key = 0;
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      auto it = merges_.find(pair_key(word[i], word[i + 1]));
      if (it != merges_.end() && it->second.first < best) {
        best = it->second.first;
        merged = it->second.second;
        best_key = it->first;
      }
    }
    if (merged < 0) break;
    size_t w = 0;  // merge every occurrence of the best pair, left to right
    for (size_t i = 0; i < word.size(); ++w) {
      if (i + 1 < word.size() && pair_key(word[i], word[i + 1]) == best_key) {
        word[w] = merged;
        i += 2;
      } else {
        word[w] = word[i++];
      }
    }
    word.resize(w);
  }
  std::unique_lock lock(cache_mutex_);
  return cache_.emplace(std::move(key), std::move(word)).first->second;
}

int64_t GPT2BPEEncoder::token_id(int32_t symbol) const {
  int64_t id = static_cast<size_t>(symbol) < symbol_token_.size() ? symbol_token_[symbol] : -1;
  if (id < 0) {
    std::string shown;
    for (unsigned char b : symbols_[symbol]) utf8_append(shown, gpt2_byte_char(b));
    throw std::out_of_range("GPT-2 BPE: token '" + shown + "' is not in the encoder");
  }
  return id;
}

std::vector<int64_t> GPT2BPEEncoder::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  for (std::string_view piece : pretokenize(text)) {
    for (int32_t sym : bpe(piece)) ids.push_back(token_id(sym));
  }
  return ids;
}

std::vector<std::string> GPT2BPEEncoder::tokenize(std::string_view text) const {
  std::vector<std::string> tokens;
  for (std::string_view piece : pretokenize(text)) {
    for (int32_t sym : bpe(piece)) {
      token_id(sym);  // raises for a symbol the encoder lacks, as encode does
      std::string shown;
      for (unsigned char b : symbols_[sym]) utf8_append(shown, gpt2_byte_char(b));
      tokens.push_back(std::move(shown));
    }
  }
  return tokens;
}

std::string GPT2BPEEncoder::decode(const std::vector<int64_t>& ids) const {
  std::string out;
  for (int64_t id : ids) {
    auto it = token_symbol_.find(id);
    if (it == token_symbol_.end())
      throw std::out_of_range("GPT-2 BPE: id " + std::to_string(id) + " is not in the encoder");
    out += symbols_[it->second];
  }
  return out;
}

std::vector<std::vector<int64_t>> GPT2BPEEncoder::encode_batch(const std::vector<std::string>& texts,
                                                               int num_threads) const {
  std::vector<std::vector<int64_t>> out(texts.size());
  parallel_batch(texts.size(), num_threads, [&](size_t i) { out[i] = encode(texts[i]); });
  return out;
}

}  // namespace embertext
