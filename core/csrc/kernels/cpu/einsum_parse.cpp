// Parses an einsum equation ("ij,jk->ik", "...ij,...jk", "ii", "bij,bjk") against its operands:
// labels per dim, '...' expanded to the dims it covers, and the implicit output (the ellipsis
// dims, then the labels seen exactly once, in alphabetical order). Messages follow PyTorch's.
#include <algorithm>

#include "kernels/einsum.h"

namespace ember {

namespace {

int letter_label(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }
bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// One term of the equation: its letters, and where its ellipsis sits (-1 when it has none).
struct Term {
  std::vector<int> labels;
  int ellipsis_at = -1;
};

// Parses eq[b, e) (one operand's or the output's subscripts); `who` names it in messages.
Term parse_term(const std::string& eq, size_t b, size_t e, const std::string& who) {
  Term t;
  for (size_t i = b; i < e; i++) {
    const char c = eq[i];
    if (c == '.') {
      EMBER_CHECK(t.ellipsis_at < 0, Runtime, "einsum(): found '.' for ", who,
                  " for which an ellipsis was already found");
      EMBER_CHECK(i + 2 < e && eq[i + 1] == '.' && eq[i + 2] == '.', Runtime, "einsum(): found '.' for ", who,
                  " that is not part of any ellipsis");
      t.ellipsis_at = int(t.labels.size());
      i += 2;
    } else {
      EMBER_CHECK(is_letter(c), Runtime, "einsum(): invalid subscript given at index ", i,
                  " in the equation string, subscripts must be in [a-zA-Z]");
      t.labels.push_back(letter_label(c));
    }
  }
  return t;
}

}  // namespace

std::string einsum_label_name(int label) {
  if (label >= kEinsumLetters) return "...";
  return std::string(1, label < 26 ? char('A' + label) : char('a' + label - 26));
}

EinsumSpec parse_einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  EMBER_CHECK(!operands.empty(), Runtime, "einsum(): must provide at least one operand");
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq.push_back(c);
  }
  const size_t arrow = eq.find("->");
  const size_t lhs_end = arrow == std::string::npos ? eq.size() : arrow;
  std::vector<Term> terms;
  size_t start = 0;
  for (size_t i = 0; i <= lhs_end; i++) {
    if (i == lhs_end || eq[i] == ',') {
      EMBER_CHECK(terms.size() < operands.size(), Runtime,
                  "einsum(): fewer operands were provided than specified in the equation");
      terms.push_back(parse_term(eq, start, i, "operand " + std::to_string(terms.size())));
      start = i + 1;
    }
  }
  EMBER_CHECK(terms.size() == operands.size(), Runtime,
              "einsum(): more operands were provided than specified in the equation");
  // The number of dims the ellipsis covers: the most any operand gives it.
  int64_t ell = 0;
  for (size_t i = 0; i < terms.size(); i++) {
    const int64_t nd = operands[i].dim(), nl = terms[i].labels.size();
    if (terms[i].ellipsis_at >= 0) {
      EMBER_CHECK(nl <= nd, Runtime, "einsum(): the number of subscripts in the equation (", nl,
                  ") is more than the number of dimensions (", nd, ") for operand ", i);
      ell = std::max(ell, nd - nl);
    } else {
      EMBER_CHECK(nl == nd, Runtime, "einsum(): the number of subscripts in the equation (", nl,
                  ") does not match the number of dimensions (", nd, ") for operand ", i, " and no ellipsis was given");
    }
  }
  EinsumSpec spec;
  spec.num_labels = kEinsumLetters + int(ell);
  std::vector<int> count(spec.num_labels, 0);
  for (size_t i = 0; i < terms.size(); i++) {
    const Term& t = terms[i];
    std::vector<int> labels;
    for (int j = 0; j < int(t.labels.size()); j++) {
      if (j == t.ellipsis_at) {
        const int64_t covers = operands[i].dim() - int64_t(t.labels.size());
        for (int64_t d = 0; d < covers; d++) labels.push_back(int(kEinsumLetters + ell - covers + d));
      }
      labels.push_back(t.labels[j]);
    }
    if (t.ellipsis_at == int(t.labels.size())) {
      const int64_t covers = operands[i].dim() - int64_t(t.labels.size());
      for (int64_t d = 0; d < covers; d++) labels.push_back(int(kEinsumLetters + ell - covers + d));
    }
    for (int l : labels) count[l]++;
    spec.inputs.push_back(std::move(labels));
  }
  if (arrow == std::string::npos) {
    for (int64_t d = 0; d < ell; d++) spec.output.push_back(int(kEinsumLetters + d));
    for (int l = 0; l < kEinsumLetters; l++) {
      if (count[l] == 1) spec.output.push_back(l);
    }
    return spec;
  }
  const Term out = parse_term(eq, arrow + 2, eq.size(), "the output");
  std::vector<bool> seen(spec.num_labels, false);
  for (int j = 0; j <= int(out.labels.size()); j++) {
    if (j == out.ellipsis_at) {
      for (int64_t d = 0; d < ell; d++) spec.output.push_back(int(kEinsumLetters + d));
    }
    if (j == int(out.labels.size())) break;
    const int l = out.labels[j];
    EMBER_CHECK(count[l] > 0, Runtime, "einsum(): output subscript ", einsum_label_name(l),
                " does not appear in the equation for any input operand");
    EMBER_CHECK(!seen[l], Runtime, "einsum(): output subscript ", einsum_label_name(l),
                " appears more than once in the output");
    seen[l] = true;
    spec.output.push_back(l);
  }
  return spec;
}

}  // namespace ember
