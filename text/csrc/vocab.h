// The token <-> index table behind embertext.vocab.Vocab (torchtext's Vocab): insertion-ordered tokens,
// a hash lookup (token_table.h), and an optional default index returned for tokens it lacks.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "token_table.h"

namespace embertext {

class Vocab {
 public:
  explicit Vocab(std::vector<std::string> tokens, std::optional<int64_t> default_index = std::nullopt);

  int64_t size() const { return static_cast<int64_t>(itos_.size()); }
  bool contains(std::string_view token) const { return find(token) >= 0; }
  int64_t find(std::string_view token) const { return table_.find(token, itos_); }  // -1 when absent
  TokenTable::Found lookup(std::string_view token) const { return table_.lookup(token, itos_); }
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

 protected:
  TokenTable& table() { return table_; }
  const TokenTable& table() const { return table_; }

 private:
  void check_absent(const std::string& token) const;

  std::vector<std::string> itos_;
  TokenTable table_;
  std::optional<int64_t> default_index_;
};

}  // namespace embertext
