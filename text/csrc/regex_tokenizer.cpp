#include "regex_tokenizer.h"

#include <ember/extension.h>
#include <re2/re2.h>

#include <utility>

namespace embertext {

namespace {

size_t utf8_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;  // a stray continuation byte: step over it alone
}

}  // namespace

RegexTokenizer::RegexTokenizer(std::vector<std::string> patterns, std::vector<std::string> replacements)
    : patterns_(std::move(patterns)), replacements_(std::move(replacements)) {
  EMBER_CHECK(patterns_.size() == replacements_.size(), Value, "RegexTokenizer: ", patterns_.size(), " patterns but ",
              replacements_.size(), " replacements");
  RE2::Options options;
  options.set_log_errors(false);
  for (size_t i = 0; i < patterns_.size(); ++i) {
    Rule rule;
    rule.re = std::make_unique<RE2>(patterns_[i], options);
    EMBER_CHECK(rule.re->ok(), Value, "RegexTokenizer: the pattern '", patterns_[i],
                "' is not supported: ", rule.re->error());
    const std::string& t = replacements_[i];
    std::string literal;
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k] != '\\') {
        literal.push_back(t[k]);
        continue;
      }
      EMBER_CHECK(k + 1 < t.size(), Value, "RegexTokenizer: the template '", t, "' ends in a backslash");
      if (t[k + 1] == '\\') {
        literal.push_back('\\');
        ++k;
        continue;
      }
      size_t close = t.find('>', k);
      EMBER_CHECK(t.compare(k + 1, 2, "g<") == 0 && close != std::string::npos && close > k + 3, Value,
                  "RegexTokenizer: the template '", t, "' has a backslash that is neither \\\\ nor \\g<N>");
      int group = 0;
      for (size_t d = k + 3; d < close; ++d) {
        EMBER_CHECK(t[d] >= '0' && t[d] <= '9' && group < 100000, Value, "RegexTokenizer: bad group in '", t, "'");
        group = group * 10 + (t[d] - '0');
      }
      EMBER_CHECK(group <= rule.re->NumberOfCapturingGroups(), Value, "RegexTokenizer: invalid group reference ", group,
                  " in '", t, "'");
      if (!literal.empty()) rule.pieces.push_back({-1, std::move(literal)});
      literal.clear();
      rule.pieces.push_back({group, {}});
      k = close;
    }
    if (!literal.empty()) rule.pieces.push_back({-1, std::move(literal)});
    rules_.push_back(std::move(rule));
  }
}

RegexTokenizer::~RegexTokenizer() = default;

std::string RegexTokenizer::apply(const Rule& rule, const std::string& text) const {
  const int groups = rule.re->NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> match(groups);
  std::string out;
  size_t copied = 0, pos = 0;
  while (pos <= text.size() && rule.re->Match(text, pos, text.size(), RE2::UNANCHORED, match.data(), groups)) {
    size_t start = match[0].data() - text.data(), end = start + match[0].size();
    out.append(text, copied, start - copied);
    for (const Piece& p : rule.pieces) {
      if (p.group < 0)
        out += p.text;
      else if (match[p.group].data() != nullptr)  // an unmatched group is empty, as in Python
        out.append(match[p.group].data(), match[p.group].size());
    }
    copied = end;
    if (end > start) {
      pos = end;  // an empty match may follow right here (Python 3.7+)
    } else {
      if (end >= text.size()) break;
      pos = end + utf8_length(static_cast<unsigned char>(text[end]));  // no second match at an empty one's place
    }
  }
  out.append(text, copied, std::string::npos);
  return out;
}

std::string RegexTokenizer::replace_all(const std::string& text) const {
  std::string s = text;
  for (const Rule& rule : rules_) s = apply(rule, s);
  return s;
}

std::vector<std::string> RegexTokenizer::tokenize(const std::string& text) const {
  std::string s = replace_all(text);
  std::vector<std::string> tokens;
  size_t start = 0;
  while (start <= s.size()) {
    size_t space = s.find(' ', start);
    if (space == std::string::npos) space = s.size();
    if (space > start) tokens.emplace_back(s, start, space - start);
    start = space + 1;
  }
  return tokens;
}

}  // namespace embertext
