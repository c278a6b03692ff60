#include "vocab.h"

#include <stdexcept>

namespace embertext {

Vocab::Vocab(std::vector<std::string> tokens, std::optional<int64_t> default_index)
    : itos_(std::move(tokens)), default_index_(default_index) {
  stoi_.reserve(itos_.size());
  for (size_t i = 0; i < itos_.size(); ++i) {
    keys_.push_back(itos_[i]);
    if (!stoi_.emplace(keys_.back(), static_cast<int64_t>(i)).second) {
      throw std::runtime_error("Duplicate token found in tokens list: " + itos_[i]);
    }
  }
}

int64_t Vocab::index(std::string_view token) const {
  auto it = stoi_.find(token);
  if (it != stoi_.end()) return it->second;
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

void Vocab::append_token(const std::string& token) {
  auto it = stoi_.find(token);
  if (it != stoi_.end()) {
    throw std::runtime_error("Token " + token +
                             " already exists in the Vocab with index: " + std::to_string(it->second));
  }
  keys_.push_back(token);
  stoi_.emplace(keys_.back(), size());
  itos_.push_back(token);
}

void Vocab::insert_token(const std::string& token, int64_t index) {
  if (index < 0 || index > size()) {
    throw std::runtime_error("Specified index " + std::to_string(index) + " is out of bounds for vocab of size " +
                             std::to_string(size()));
  }
  auto it = stoi_.find(token);
  if (it != stoi_.end()) {
    throw std::runtime_error("Token " + token +
                             " already exists in the Vocab with index: " + std::to_string(it->second));
  }
  keys_.push_back(token);
  stoi_.emplace(keys_.back(), index);
  itos_.insert(itos_.begin() + index, token);
  for (size_t i = index + 1; i < itos_.size(); ++i) stoi_.find(itos_[i])->second = static_cast<int64_t>(i);
}

std::unordered_map<std::string, int64_t> Vocab::stoi() const {
  std::unordered_map<std::string, int64_t> out;
  out.reserve(stoi_.size());
  for (const auto& [token, index] : stoi_) out.emplace(token, index);
  return out;
}

}  // namespace embertext
