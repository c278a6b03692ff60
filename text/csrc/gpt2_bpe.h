// GPT-2's byte-level BPE (torchtext's GPT2BPETokenizer, Hugging Face's ByteLevel BPE, tiktoken's gpt2):
// GPT-2's pre-tokenization pattern, bytes mapped to printable characters, merges applied by rank.
#pragma once
#include <cstdint>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace embertext {

class GPT2BPEEncoder {
 public:
  // encoder: token (in GPT-2's byte-to-character alphabet) -> id; merges: "a b" pairs, best first.
  GPT2BPEEncoder(const std::unordered_map<std::string, int64_t>& encoder,
                 const std::vector<std::pair<std::string, std::string>>& merges);

  std::vector<int64_t> encode(std::string_view text) const;
  std::vector<std::string> tokenize(std::string_view text) const;  // the tokens' strings
  std::string decode(const std::vector<int64_t>& ids) const;
  std::vector<std::vector<int64_t>> encode_batch(const std::vector<std::string>& texts, int num_threads) const;

  // GPT-2's pre-tokenization of UTF-8 text into pieces (exposed for tests and the regex tokenizer).
  static std::vector<std::string_view> pretokenize(std::string_view text);

 private:
  const std::vector<int32_t>& bpe(std::string_view piece) const;  // symbol ids of one piece, cached
  int64_t token_id(int32_t symbol) const;

  std::vector<std::string> symbols_;                                  // symbol id -> its bytes
  std::unordered_map<std::string, int32_t> symbol_ids_;               // bytes -> symbol id
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges_;  // (a,b) -> (rank, merged symbol)
  std::vector<int64_t> symbol_token_;                                 // symbol id -> encoder id (-1: not in encoder)
  std::unordered_map<int64_t, int32_t> token_symbol_;                 // encoder id -> symbol id
  mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;
  mutable std::shared_mutex cache_mutex_;
};

// GPT-2's byte <-> printable character table (bytes_to_unicode).
char32_t gpt2_byte_char(unsigned char b);

}  // namespace embertext
