// RegexTokenizer on RE2 (Debian's libre2-dev): each (pattern, replacement) is applied to the whole text in
// order, as Python's re.sub (Python 3.7's rule for empty matches: one may follow a non-empty match), then
// the text is split at spaces. The patterns arrive in RE2's syntax and the replacements as templates where
// \g<N> is group N and \\ a backslash: embertext.transforms translates Python's syntax into these.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace re2 {
class RE2;
}

namespace embertext {

class RegexTokenizer {
 public:
  // Throws ValueError on a pattern RE2 refuses, a malformed template or a group the pattern lacks.
  RegexTokenizer(std::vector<std::string> patterns, std::vector<std::string> replacements);
  ~RegexTokenizer();

  std::string replace_all(const std::string& text) const;
  std::vector<std::string> tokenize(const std::string& text) const;
  const std::vector<std::string>& patterns() const { return patterns_; }
  const std::vector<std::string>& replacements() const { return replacements_; }

 private:
  // A template as literal pieces and group numbers: group < 0 is literal text.
  struct Piece {
    int group;
    std::string text;
  };
  struct Rule {
    std::unique_ptr<re2::RE2> re;
    std::vector<Piece> pieces;
  };
  std::string apply(const Rule& rule, const std::string& text) const;

  std::vector<std::string> patterns_, replacements_;
  std::vector<Rule> rules_;
};

}  // namespace embertext
