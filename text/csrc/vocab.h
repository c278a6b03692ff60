// The token <-> index table behind embertext.vocab.Vocab (torchtext's Vocab): insertion-ordered tokens,
// a hash lookup, and an optional default index returned for tokens it lacks.
#pragma once
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace embertext {

class Vocab {
 public:
  explicit Vocab(std::vector<std::string> tokens, std::optional<int64_t> default_index = std::nullopt);

  int64_t size() const { return static_cast<int64_t>(itos_.size()); }
  bool contains(std::string_view token) const { return stoi_.count(token) != 0; }
  int64_t index(std::string_view token) const;  // raises when absent and no default index is set
  std::vector<int64_t> indices(const std::vector<std::string>& tokens) const;
  const std::string& token(int64_t index) const;
  std::vector<std::string> tokens(const std::vector<int64_t>& indices) const;

  void set_default_index(std::optional<int64_t> index) { default_index_ = index; }
  std::optional<int64_t> default_index() const { return default_index_; }
  void append_token(const std::string& token);
  void insert_token(const std::string& token, int64_t index);

  const std::vector<std::string>& itos() const { return itos_; }
  std::unordered_map<std::string, int64_t> stoi() const;

 private:
  std::vector<std::string> itos_;
  // Keys are views of `keys_`, an append-only store whose strings never move, so lookups of a Python
  // str's UTF-8 buffer need no copy.
  std::deque<std::string> keys_;
  std::unordered_map<std::string_view, int64_t> stoi_;
  std::optional<int64_t> default_index_;
};

}  // namespace embertext
