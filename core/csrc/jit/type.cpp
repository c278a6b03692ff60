// Type parsing, printing and equality.
#include "jit/type.h"

#include "base/error.h"

namespace ember::jit {

namespace {

const char* const kNames[] = {"Tensor", "int",      "float", "bool",   "str",   "NoneType", "List",
                              "Tuple",  "Optional", "Dict",  "Future", "Union", "Any"};

bool has_elems(Type::Kind k) {
  return k == Type::Kind::List || k == Type::Kind::Tuple || k == Type::Kind::Optional || k == Type::Kind::Dict ||
         k == Type::Kind::Future || k == Type::Kind::Union;
}

struct TypeParser {
  const std::string& text;
  size_t pos = 0;

  void skip_space() {
    while (pos < text.size() && text[pos] == ' ') pos++;
  }
  [[noreturn]] void bad(const std::string& why) {
    EMBER_FAIL(Value, "invalid script type \"", text, "\": ", why, " at character ", pos);
  }
  TypePtr parse() {
    skip_space();
    size_t start = pos;
    while (pos < text.size() &&
           (isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_' || text[pos] == '.'))
      pos++;
    std::string name = text.substr(start, pos - start);
    if (name.find('.') != std::string::npos) return Type::class_named(name);
    for (int k = 0; k < 13; k++) {
      if (name != kNames[k]) continue;
      Type::Kind kind = Type::Kind(k);
      if (!has_elems(kind)) return Type::of(kind);
      std::vector<TypePtr> elems;
      skip_space();
      if (pos >= text.size() || text[pos] != '[') bad("expected '[' after " + name);
      pos++;
      skip_space();
      while (pos < text.size() && text[pos] != ']') {
        elems.push_back(parse());
        skip_space();
        if (pos < text.size() && text[pos] == ',') pos++;
        skip_space();
      }
      if (pos >= text.size()) bad("missing ']'");
      pos++;
      if (kind == Type::Kind::Dict && elems.size() != 2) bad("Dict takes a key and a value type");
      if (kind == Type::Kind::Union && elems.size() < 2) bad("Union takes two or more types");
      if (kind != Type::Kind::Tuple && kind != Type::Kind::Dict && kind != Type::Kind::Union && elems.size() != 1)
        bad(name + " takes one type");
      return Type::of(kind, std::move(elems));
    }
    bad("unknown type name \"" + name + "\"");
  }
};

}  // namespace

TypePtr Type::of(Kind k, std::vector<TypePtr> elems) {
  auto t = std::make_shared<Type>();
  t->kind = k;
  t->elems = std::move(elems);
  return t;
}

TypePtr Type::class_named(const std::string& name) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Class;
  t->name = name;
  return t;
}

TypePtr Type::parse(const std::string& text) {
  TypeParser p{text};
  TypePtr t = p.parse();
  p.skip_space();
  if (p.pos != text.size()) p.bad("trailing text");
  return t;
}

std::string Type::str() const {
  if (kind == Kind::Class) return name;
  std::string s = kNames[int(kind)];
  if (has_elems(kind)) {
    s += "[";
    for (size_t i = 0; i < elems.size(); i++) s += (i ? ", " : "") + elems[i]->str();
    s += "]";
  }
  return s;
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind || elems.size() != o.elems.size() || name != o.name) return false;
  for (size_t i = 0; i < elems.size(); i++)
    if (*elems[i] != *o.elems[i]) return false;
  return true;
}

}  // namespace ember::jit
