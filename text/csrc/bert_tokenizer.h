// BERT's tokenizer: basic tokenization (text cleaning, CJK characters split apart, accent stripping,
// lowercasing, splitting at white space and punctuation), then WordPiece's greedy longest-match-first
// split into vocabulary pieces ("##" marking continuations), as torchtext's BERTTokenizer and Hugging
// Face's BertWordPieceTokenizer do.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace embertext {

class BERTTokenizer {
 public:
  BERTTokenizer(std::vector<std::string> vocab, bool do_lower_case, std::optional<bool> strip_accents,
                std::vector<std::string> never_split, std::string unk_token = "[UNK]");

  std::vector<std::string> tokenize(std::string_view text) const;
  std::vector<int64_t> encode(std::string_view text) const;
  std::vector<std::vector<int64_t>> encode_batch(const std::vector<std::string>& texts, int num_threads) const;
  std::vector<std::vector<std::string>> tokenize_batch(const std::vector<std::string>& texts, int num_threads) const;

 private:
  template <class Emit>
  void run(std::string_view text, Emit&& emit) const;  // emit(piece id, piece string view)
  template <class Emit>
  void wordpiece(const std::u32string& word, Emit&& emit) const;

  std::vector<std::string> vocab_;
  std::unordered_map<std::string, int64_t> ids_;
  std::unordered_set<std::string> never_split_;
  bool lower_;
  bool strip_accents_;
  int64_t unk_id_;
  std::string unk_token_;
};

}  // namespace embertext
