#include "sentencepiece_model.h"

#include <ember/extension.h>
#include <sentencepiece_processor.h>

#include <utility>

namespace embertext {

SentencePieceModel::SentencePieceModel(std::string serialized)
    : serialized_(std::move(serialized)), sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
  auto status = sp_->LoadFromSerializedProto(serialized_);
  EMBER_CHECK(status.ok(), Value, "SentencePiece: not a SentencePiece model (", status.ToString(), ")");
}

SentencePieceModel::~SentencePieceModel() = default;

std::vector<int64_t> SentencePieceModel::encode_as_ids(const std::string& text) const {
  std::vector<int> ids;
  auto status = sp_->Encode(text, &ids);
  EMBER_CHECK(status.ok(), Runtime, "SentencePiece: encoding failed: ", status.ToString());
  return std::vector<int64_t>(ids.begin(), ids.end());
}

std::vector<std::string> SentencePieceModel::encode_as_pieces(const std::string& text) const {
  std::vector<std::string> pieces;
  auto status = sp_->Encode(text, &pieces);
  EMBER_CHECK(status.ok(), Runtime, "SentencePiece: encoding failed: ", status.ToString());
  return pieces;
}

std::string SentencePieceModel::decode_ids(const std::vector<int64_t>& ids) const {
  std::vector<int> narrow;
  narrow.reserve(ids.size());
  for (int64_t id : ids) {
    EMBER_CHECK(id >= 0 && id < piece_size(), Index, "SentencePiece: piece id ", id, " is out of range [0, ",
                piece_size(), ")");
    narrow.push_back(int(id));
  }
  std::string text;
  auto status = sp_->Decode(narrow, &text);
  EMBER_CHECK(status.ok(), Runtime, "SentencePiece: decoding failed: ", status.ToString());
  return text;
}

std::string SentencePieceModel::decode_pieces(const std::vector<std::string>& pieces) const {
  std::string text;
  auto status = sp_->Decode(pieces, &text);
  EMBER_CHECK(status.ok(), Runtime, "SentencePiece: decoding failed: ", status.ToString());
  return text;
}

int64_t SentencePieceModel::piece_size() const { return sp_->GetPieceSize(); }

int64_t SentencePieceModel::unk_id() const { return sp_->unk_id(); }

int64_t SentencePieceModel::piece_to_id(const std::string& piece) const { return sp_->PieceToId(piece); }

std::string SentencePieceModel::id_to_piece(int64_t id) const {
  EMBER_CHECK(id >= 0 && id < piece_size(), Index, "SentencePiece: piece id ", id, " is out of range [0, ",
              piece_size(), ")");
  return sp_->IdToPiece(int(id));
}

}  // namespace embertext
