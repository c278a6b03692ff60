#include "vocab.h"

#include <stdexcept>

namespace embertext {

Vocab::Vocab(std::vector<std::string> tokens, std::optional<int64_t> default_index)
    : itos_(std::move(tokens)), default_index_(default_index) {
  table_.assign(itos_);
  // The table keeps the first of equal tokens; a later one finds it in place of itself.
  for (size_t i = 0; i < itos_.size(); ++i) {
    if (find(itos_[i]) != static_cast<int64_t>(i)) {
      throw std::runtime_error("Duplicate token found in tokens list: " + itos_[i]);
    }
  }
}

int64_t Vocab::index(std::string_view token) const {
  int64_t found = find(token);
  if (found >= 0) return found;
  if (default_index_) return *default_index_;
  throw std::runtime_error("Token " + std::string(token) + " not found and default index is not set");
}

std::vector<int64_t> Vocab::indices(const std::vector<std::string>& tokens) const {
  std::vector<int64_t> out;
  out.reserve(tokens.size());
  for (const auto& t : tokens) out.push_back(index(t));
  return out;
}

const std::string& Vocab::token(int64_t index) const {
  if (index < 0 || index >= size()) {
    throw std::runtime_error("Specified index " + std::to_string(index) + " is out of bounds for vocab of size " +
                             std::to_string(size()));
  }
  return itos_[index];
}

std::vector<std::string> Vocab::tokens(const std::vector<int64_t>& indices) const {
  std::vector<std::string> out;
  out.reserve(indices.size());
  for (int64_t i : indices) out.push_back(token(i));
  return out;
}

void Vocab::check_absent(const std::string& token) const {
  int64_t found = find(token);
  if (found >= 0) {
    throw std::runtime_error("Token " + token + " already exists in the Vocab with index: " + std::to_string(found));
  }
}

void Vocab::append_token(const std::string& token) {
  check_absent(token);
  itos_.push_back(token);
  table_.add(token, size() - 1, itos_);
}

void Vocab::insert_token(const std::string& token, int64_t index) {
  if (index < 0 || index > size()) {
    throw std::runtime_error("Specified index " + std::to_string(index) + " is out of bounds for vocab of size " +
                             std::to_string(size()));
  }
  check_absent(token);
  itos_.insert(itos_.begin() + index, token);
  table_.assign(itos_);  // every later token's index moved up by one
}

std::unordered_map<std::string, int64_t> Vocab::stoi() const {
  std::unordered_map<std::string, int64_t> out;
  out.reserve(itos_.size());
  for (size_t i = 0; i < itos_.size(); ++i) out.emplace(itos_[i], static_cast<int64_t>(i));
  return out;
}

}  // namespace embertext
