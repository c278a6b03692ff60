// A SentencePiece model on Google's C++ library (Debian's libsentencepiece-dev), held as the model's
// serialized bytes (its saved state) and a loaded processor. Encoding and decoding are const and
// thread-safe, as the library's are.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace embertext {

class SentencePieceModel {
 public:
  // Throws ValueError when `serialized` is not a model.
  explicit SentencePieceModel(std::string serialized);
  ~SentencePieceModel();

  std::vector<int64_t> encode_as_ids(const std::string& text) const;
  std::vector<std::string> encode_as_pieces(const std::string& text) const;
  std::string decode_ids(const std::vector<int64_t>& ids) const;
  std::string decode_pieces(const std::vector<std::string>& pieces) const;
  int64_t piece_size() const;
  int64_t unk_id() const;
  int64_t piece_to_id(const std::string& piece) const;
  std::string id_to_piece(int64_t id) const;
  const std::string& serialized() const { return serialized_; }

 private:
  std::string serialized_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
};

}  // namespace embertext
