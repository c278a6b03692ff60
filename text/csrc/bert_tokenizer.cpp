#include "bert_tokenizer.h"

#include <stdexcept>

#include "parallel_batch.h"
#include "unicode.h"

namespace embertext {
namespace {

constexpr size_t kMaxCharsPerWord = 100;  // longer words become the unknown token, as BERT's

bool is_bert_control(char32_t c) { return c != '\t' && c != '\n' && c != '\r' && is_other(c); }
bool is_bert_punctuation(char32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) ||
         is_punctuation(c);
}
bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

}  // namespace

BERTTokenizer::BERTTokenizer(std::vector<std::string> vocab, bool do_lower_case, std::optional<bool> strip_accents,
                             std::vector<std::string> never_split, std::string unk_token)
    : vocab_(std::move(vocab)),
      never_split_(never_split.begin(), never_split.end()),
      lower_(do_lower_case),
      strip_accents_(strip_accents.value_or(do_lower_case)),
      unk_token_(std::move(unk_token)) {
  for (size_t i = 0; i < vocab_.size(); ++i) ids_.emplace(vocab_[i], static_cast<int64_t>(i));
  auto it = ids_.find(unk_token_);
  if (it == ids_.end()) throw std::invalid_argument("BERTTokenizer: the vocabulary has no '" + unk_token_ + "' token");
  unk_id_ = it->second;
}

template <class Emit>
void BERTTokenizer::wordpiece(const std::u32string& word, Emit&& emit) const {
  if (word.size() > kMaxCharsPerWord) {
    emit(unk_id_, unk_token_);
    return;
  }
  std::vector<std::pair<int64_t, const std::string*>> pieces;
  std::string candidate;
  for (size_t start = 0; start < word.size();) {
    size_t end = word.size();
    const std::pair<const std::string, int64_t>* found = nullptr;
    for (; end > start; --end) {
      candidate.assign(start > 0 ? "##" : "");
      for (size_t k = start; k < end; ++k) utf8_append(candidate, word[k]);
      auto it = ids_.find(candidate);
      if (it != ids_.end()) {
        found = &*it;
        break;
      }
    }
    if (!found) {
      emit(unk_id_, unk_token_);
      return;
    }
    pieces.emplace_back(found->second, &found->first);
    start = end;
  }
  for (auto& [id, piece] : pieces) emit(id, *piece);
}

template <class Emit>
void BERTTokenizer::run(std::string_view text, Emit&& emit) const {
  std::u32string word, folded;
  auto flush = [&] {
    if (word.empty()) return;
    if (!never_split_.empty()) {
      std::string utf8 = utf8_encode(word);
      if (never_split_.count(utf8)) {
        auto it = ids_.find(utf8);
        emit(it == ids_.end() ? unk_id_ : it->second, it == ids_.end() ? unk_token_ : it->first);
        word.clear();
        return;
      }
    }
    // Normalise the word (accents off, lower case), then split it at punctuation.
    folded.clear();
    for (char32_t c : word) {
      if (strip_accents_) {
        std::u32string parts;
        append_decomposed(parts, c);
        for (char32_t p : parts) {
          if (is_mark_nonspacing(p)) continue;
          if (lower_)
            append_lower(folded, p);
          else
            folded.push_back(p);
        }
      } else if (lower_) {
        append_lower(folded, c);
      } else {
        folded.push_back(c);
      }
    }
    std::u32string piece;
    for (char32_t c : folded) {
      if (is_bert_punctuation(c)) {
        if (!piece.empty()) wordpiece(piece, emit);
        piece.assign(1, c);
        wordpiece(piece, emit);
        piece.clear();
      } else {
        piece.push_back(c);
      }
    }
    if (!piece.empty()) wordpiece(piece, emit);
    word.clear();
  };
  for (char32_t c : utf8_decode(text)) {
    if (c == 0 || c == 0xFFFD || is_bert_control(c)) continue;
    if (is_white_space(c)) {
      flush();
    } else if (is_cjk(c)) {
      flush();
      word.push_back(c);
      flush();
    } else {
      word.push_back(c);
    }
  }
  flush();
}

std::vector<std::string> BERTTokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> out;
  run(text, [&](int64_t, const std::string& piece) { out.push_back(piece); });
  return out;
}

std::vector<int64_t> BERTTokenizer::encode(std::string_view text) const {
  std::vector<int64_t> out;
  run(text, [&](int64_t id, const std::string&) { out.push_back(id); });
  return out;
}

std::vector<std::vector<int64_t>> BERTTokenizer::encode_batch(const std::vector<std::string>& texts,
                                                              int num_threads) const {
  std::vector<std::vector<int64_t>> out(texts.size());
  parallel_batch(texts.size(), num_threads, [&](size_t i) { out[i] = encode(texts[i]); });
  return out;
}

std::vector<std::vector<std::string>> BERTTokenizer::tokenize_batch(const std::vector<std::string>& texts,
                                                                    int num_threads) const {
  std::vector<std::vector<std::string>> out(texts.size());
  parallel_batch(texts.size(), num_threads, [&](size_t i) { out[i] = tokenize(texts[i]); });
  return out;
}

}  // namespace embertext
