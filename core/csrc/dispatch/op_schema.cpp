// Parsing of op-table schemas (the same syntax as core/ops/*.yaml).
#include "dispatch/op_schema.h"

#include <cctype>

#include "base/error.h"

namespace ember {

namespace {

// TensorLike (a tensor or a number), int[]?, ScalarType and Device? are the op database's types (its
// ops are registered as aten::NAME for ember.jit): boxed as a tensor or number, an int list or None, the
// dtype's int code, and the device's string.
const char* const kArgTypes[] = {"Tensor",     "Tensor?",     "Tensor[]", "TensorLike", "TensorLike?", "int",
                                 "int?",       "int[]",       "int[]?",   "float",      "float?",      "bool",
                                 "bool?",      "str",         "str?",     "Scalar",     "Scalar?",     "Generator?",
                                 "ScalarType", "ScalarType?", "Device?"};
const char* const kReturnTypes[] = {"Tensor", "Tensor[]", "int", "float", "bool", "Generator", "Scalar"};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

template <size_t N>
bool one_of(const std::string& s, const char* const (&list)[N]) {
  for (const char* x : list)
    if (s == x) return true;
  return false;
}

std::vector<std::string> split_top(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    depth += (c == '[' || c == '(') - (c == ']' || c == ')');
    if (c == ',' && depth == 0) {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) parts.push_back(trim(cur));
  return parts;
}

}  // namespace

std::string OpSchema::python_signature() const { return trim(text.substr(0, text.rfind("->"))); }

OpSchema parse_schema(const std::string& ns, const std::string& text) {
  OpSchema s;
  s.ns = ns;
  s.text = trim(text);
  auto bad = [&](const std::string& why) { EMBER_FAIL(Value, "invalid op schema \"", text, "\": ", why); };
  EMBER_CHECK(is_identifier(ns), Value, "invalid op namespace \"", ns, "\": expected an identifier");
  size_t open = s.text.find('('), arrow = s.text.rfind("->");
  if (open == std::string::npos || arrow == std::string::npos || arrow < open) bad("expected name(args) -> returns");
  size_t close = s.text.rfind(')', arrow);
  if (close == std::string::npos || close < open) bad("missing ')'");
  s.name = trim(s.text.substr(0, open));
  if (!is_identifier(s.name)) bad("the op name must be an identifier");
  bool kwonly = false;
  for (const std::string& p : split_top(s.text.substr(open + 1, close - open - 1))) {
    if (p == "*") {
      kwonly = true;
      continue;
    }
    std::string decl = p;
    SchemaArg a;
    size_t eq = p.find('=');
    if (eq != std::string::npos) {
      decl = trim(p.substr(0, eq));
      a.has_default = true;
      if (trim(p.substr(eq + 1)).empty()) bad("empty default for " + decl);
    }
    size_t sp = decl.rfind(' ');
    if (sp == std::string::npos) bad("argument \"" + p + "\" needs a type and a name");
    a.type = trim(decl.substr(0, sp));
    a.name = trim(decl.substr(sp + 1));
    a.kwonly = kwonly;
    if (!one_of(a.type, kArgTypes)) bad("unknown argument type \"" + a.type + "\"");
    if (!is_identifier(a.name)) bad("bad argument name \"" + a.name + "\"");
    s.args.push_back(a);
  }
  std::string ret = trim(s.text.substr(arrow + 2));
  if (!ret.empty() && ret.front() == '(' && ret.back() == ')') ret = ret.substr(1, ret.size() - 2);
  for (std::string r : split_top(ret)) {
    size_t sp = r.find(' ');  // a return may be named: "Tensor values"
    if (sp != std::string::npos) r = r.substr(0, sp);
    if (!one_of(r, kReturnTypes)) bad("unknown return type \"" + r + "\"");
    s.returns.push_back(r);
  }
  return s;
}

}  // namespace ember
