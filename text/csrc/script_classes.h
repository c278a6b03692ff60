// embertext's script classes (script_classes.cpp): the tokenizers keep the inputs they were built from,
// which are their saved state.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base64.h"
#include "bert_tokenizer.h"
#include "gpt2_bpe.h"
#include "sentencepiece_model.h"

namespace embertext {

class ScriptGPT2 {
 public:
  ScriptGPT2(std::unordered_map<std::string, int64_t> encoder, std::vector<std::string> merges);
  const GPT2BPEEncoder& impl() const { return impl_; }
  const std::unordered_map<std::string, int64_t>& encoder() const { return encoder_; }
  const std::vector<std::string>& merges() const { return merges_; }

 private:
  std::unordered_map<std::string, int64_t> encoder_;
  std::vector<std::string> merges_;  // "a b"
  GPT2BPEEncoder impl_;
};

class ScriptBERT {
 public:
  ScriptBERT(std::vector<std::string> vocab, bool do_lower_case, std::optional<bool> strip_accents,
             std::vector<std::string> never_split);
  const BERTTokenizer& impl() const { return impl_; }
  const std::vector<std::string>& vocab() const { return vocab_; }
  bool lower() const { return lower_; }
  std::optional<bool> strip_accents() const { return strip_; }
  const std::vector<std::string>& never_split() const { return never_split_; }

 private:
  std::vector<std::string> vocab_;
  bool lower_;
  std::optional<bool> strip_;
  std::vector<std::string> never_split_;
  BERTTokenizer impl_;
};

// A SentencePiece model built from its bytes in base64 (ember.jit's strings are text: UTF-8 in eager code,
// JSON in saved archives), which is also its saved state.
class ScriptSentencePiece : public SentencePieceModel {
 public:
  explicit ScriptSentencePiece(const std::string& model_base64) : SentencePieceModel(base64_decode(model_base64)) {}
};

// Registers text.Vocab, text.GPT2BPEEncoder, text.BERTTokenizer, text.SentencePiece and text.RegexTokenizer
// with ember.jit (once).
void register_script_classes();

}  // namespace embertext
