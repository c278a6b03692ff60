// String primitives: str() of values, str.format and f-strings (one prim::format taking the format
// string), the str methods (split/join/strip/startswith/endswith/lower/upper/replace/find), slicing,
// indexing, +, *, `in`, ordering, and print. Python's results and messages throughout.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "jit/prims_extra.h"
#include "jit/script_error.h"

namespace ember::jit {

namespace {

using Ins = std::vector<RValue>;
using Outs = std::vector<RValue>;

const char* const kSpace = " \t\n\r\x0b\x0c";

RValue str_value(std::string s) { return RValue(IValue(std::move(s))); }
const std::string& str_of(const RValue& r) { return r.v.to_str(); }

// repr(float): the shortest text that reads back as d, fixed for exponents -4..15 and scientific beyond.
std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[40];
  for (int p = 1; p <= 17; p++) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string t = buf, sign;
  if (t[0] == '-') {
    sign = "-";
    t = t.substr(1);
  }
  size_t e = t.find('e');
  int exp = std::atoi(t.c_str() + e + 1);
  std::string digits = t.substr(0, 1) + (e > 2 ? t.substr(2, e - 2) : "");
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return sign + "0." + std::string(-exp - 1, '0') + digits;
    if (int(digits.size()) <= exp + 1) return sign + digits + std::string(exp + 1 - digits.size(), '0') + ".0";
    return sign + digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
  }
  std::snprintf(buf, sizeof buf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
  return sign + digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "") + buf;
}

std::string quoted(const std::string& s) {
  char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == q || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + q;
}

// The format-spec mini-language's common subset: [[fill]align][sign][0][width][.precision][type] with
// types d, f, F, e, E, g, G, %, s, x, X, o.
std::string format_with_spec(const RValue& r, const std::string& spec) {
  if (spec.empty()) return value_str(r);
  size_t i = 0;
  char fill = ' ', align = 0, sign = '-';
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (spec.size() >= 2 && is_align(spec[1])) {
    fill = spec[0];
    align = spec[1];
    i = 2;
  } else if (is_align(spec[0])) {
    align = spec[0];
    i = 1;
  }
  if (i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ')) sign = spec[i++];
  if (i < spec.size() && spec[i] == '0' && !align) {
    fill = '0';
    align = '=';
    i++;
  }
  int width = 0, prec = -1;
  while (i < spec.size() && isdigit(static_cast<unsigned char>(spec[i]))) width = width * 10 + (spec[i++] - '0');
  if (i < spec.size() && spec[i] == '.') {
    prec = 0;
    i++;
    while (i < spec.size() && isdigit(static_cast<unsigned char>(spec[i]))) prec = prec * 10 + (spec[i++] - '0');
  }
  char type = i < spec.size() ? spec[i++] : 0;
  EMBER_CHECK(i == spec.size(), Value, "Invalid format specifier '", spec, "'");
  const IValue& v = r.v;
  bool is_str = v.tag() == IValue::Tag::Str, is_num = !is_str && !r.is_seq() && !v.is_none() && !v.is_tensor();
  std::string body;
  char buf[512];
  if (is_str) {
    EMBER_CHECK(type == 0 || type == 's', Value, "Unknown format code '", type, "' for object of type 'str'");
    body = v.to_str();
    if (prec >= 0 && size_t(prec) < body.size()) body = body.substr(0, prec);
  } else if (!is_num) {
    EMBER_CHECK(type == 0 && prec < 0, Value, "Invalid format specifier '", spec, "'");
    body = value_str(r);
  } else if (type == 'd' || type == 'x' || type == 'X' || type == 'o') {
    EMBER_CHECK(v.tag() != IValue::Tag::Double, Value, "Unknown format code '", type, "' for object of type 'float'");
    int64_t x = v.to_int();
    const char* f = type == 'd' ? "%lld" : type == 'x' ? "%llx" : type == 'X' ? "%llX" : "%llo";
    std::snprintf(buf, sizeof buf, f, static_cast<long long>(std::llabs(x)));
    body = std::string(x < 0 ? "-" : "") + buf;
  } else if (type == 0 && prec < 0) {
    body = value_str(r);
  } else {
    double x = v.to_double();
    char t = type == 0 ? 'g' : type;
    int p = prec < 0 ? 6 : prec;
    if (t == '%') {
      std::snprintf(buf, sizeof buf, "%.*f%%", p, x * 100);
    } else {
      EMBER_CHECK(std::string("fFeEgG").find(t) != std::string::npos, Value, "Unknown format code '", t,
                  "' for object of type 'float'");
      char f[8] = {'%', '.', '*', t, 0};
      std::snprintf(buf, sizeof buf, f, p, x);
    }
    body = buf;
  }
  if (is_num && body[0] != '-' && sign != '-') body = std::string(1, sign) + body;
  if (int(body.size()) >= width) return body;
  size_t pad = width - body.size();
  if (!align) align = is_str ? '<' : '>';
  if (align == '<') return body + std::string(pad, fill);
  if (align == '^') return std::string(pad / 2, fill) + body + std::string(pad - pad / 2, fill);
  if (align == '=' && !body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' '))
    return body.substr(0, 1) + std::string(pad, fill) + body.substr(1);
  return std::string(pad, fill) + body;
}

// str.format: {} and {N} fields (with !r/!s and a spec), {{ and }} as braces.
std::string format(const std::string& fmt, const Ins& in, size_t first) {
  std::string out;
  size_t auto_index = 0, nargs = in.size() - first;
  for (size_t i = 0; i < fmt.size(); i++) {
    char c = fmt[i];
    if (c == '}') {
      EMBER_CHECK(i + 1 < fmt.size() && fmt[i + 1] == '}', Value, "Single '}' encountered in format string");
      out += '}';
      i++;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out += '{';
      i++;
      continue;
    }
    size_t close = fmt.find('}', i);
    EMBER_CHECK(close != std::string::npos, Value, "Single '{' encountered in format string");
    std::string field = fmt.substr(i + 1, close - i - 1), spec, conv;
    size_t colon = field.find(':');
    if (colon != std::string::npos) {
      spec = field.substr(colon + 1);
      field = field.substr(0, colon);
    }
    size_t bang = field.find('!');
    if (bang != std::string::npos) {
      conv = field.substr(bang + 1);
      field = field.substr(0, bang);
    }
    size_t k = auto_index++;
    if (!field.empty()) {
      char* end = nullptr;
      k = std::strtoul(field.c_str(), &end, 10);
      EMBER_CHECK(*end == 0, Value, "format fields must be {} or {N} in scripted code, got {", field, "}");
    }
    EMBER_CHECK(k < nargs, Index, "Replacement index ", k, " out of range for positional args tuple");
    const RValue& arg = in[first + k];
    EMBER_CHECK(conv.empty() || conv == "r" || conv == "s", Value, "Unknown conversion specifier ", conv);
    out += conv == "r" ? format_with_spec(str_value(value_str(arg, true)), spec) : format_with_spec(arg, spec);
    i = close;
  }
  return out;
}

std::string strip(const std::string& s, const RValue& chars, bool left, bool right) {
  std::string set = chars.v.is_none() ? std::string(kSpace) : chars.v.to_str();
  size_t a = 0, b = s.size();
  if (left)
    while (a < b && set.find(s[a]) != std::string::npos) a++;
  if (right)
    while (b > a && set.find(s[b - 1]) != std::string::npos) b--;
  return s.substr(a, b - a);
}

std::vector<RValue> split(const std::string& s, const RValue& sep, int64_t maxsplit) {
  std::vector<RValue> out;
  if (sep.v.is_none()) {  // runs of whitespace, no empty strings
    size_t i = 0;
    while (true) {
      while (i < s.size() && std::string(kSpace).find(s[i]) != std::string::npos) i++;
      if (i >= s.size()) break;
      if (maxsplit >= 0 && int64_t(out.size()) == maxsplit) {
        out.push_back(str_value(strip(s.substr(i), RValue(), false, true)));
        break;
      }
      size_t j = i;
      while (j < s.size() && std::string(kSpace).find(s[j]) == std::string::npos) j++;
      out.push_back(str_value(s.substr(i, j - i)));
      i = j;
    }
    return out;
  }
  const std::string& d = sep.v.to_str();
  EMBER_CHECK(!d.empty(), Value, "empty separator");
  size_t i = 0;
  while (maxsplit < 0 || int64_t(out.size()) < maxsplit) {
    size_t j = s.find(d, i);
    if (j == std::string::npos) break;
    out.push_back(str_value(s.substr(i, j - i)));
    i = j + d.size();
  }
  out.push_back(str_value(s.substr(i)));
  return out;
}

std::string replace(const std::string& s, const std::string& from, const std::string& to, int64_t count) {
  std::string out;
  size_t i = 0;
  for (int64_t n = 0; count < 0 || n < count; n++) {
    size_t j = from.empty() ? (i <= s.size() ? i : std::string::npos) : s.find(from, i);
    if (j == std::string::npos) break;
    out += s.substr(i, j - i) + to;
    if (from.empty()) {
      if (j < s.size()) out += s[j];
      i = j + 1;
    } else {
      i = j + from.size();
    }
  }
  return i <= s.size() ? out + s.substr(i) : out;
}

std::string map_case(std::string s, int (*f)(int)) {
  for (char& c : s) c = char(f(static_cast<unsigned char>(c)));
  return s;
}

template <class Cmp>
Outs str_compare(Ins& in, Cmp c) {
  return {RValue(IValue(c(str_of(in[0]).compare(str_of(in[1])), 0)))};
}

}  // namespace

bool values_equal(const RValue& a, const RValue& b) {
  if (a.obj || b.obj) return a.obj == b.obj;  // objects compare by identity (a class's __eq__ is compiled)
  if (a.is_seq() || b.is_seq()) {
    if (!a.is_seq() || !b.is_seq() || a.seq->size() != b.seq->size()) return false;
    for (size_t i = 0; i < a.seq->size(); i++)
      if (!values_equal((*a.seq)[i], (*b.seq)[i])) return false;
    return true;
  }
  IValue::Tag ta = a.v.tag(), tb = b.v.tag();
  if (ta == IValue::Tag::None || tb == IValue::Tag::None) return ta == tb;
  if (ta == IValue::Tag::Str || tb == IValue::Tag::Str) return ta == tb && a.v.to_str() == b.v.to_str();
  if (ta == IValue::Tag::Tensor || tb == IValue::Tag::Tensor)
    return ta == tb && a.v.to_tensor().is_same(b.v.to_tensor());
  if (ta == IValue::Tag::Double || tb == IValue::Tag::Double) return a.v.to_double() == b.v.to_double();
  return a.v.to_int() == b.v.to_int();
}

std::string value_str(const RValue& r, bool quote_strings, const Type* t) {
  if (t && t->kind == Type::Kind::Optional) t = !r.is_none() ? t->elems[0].get() : nullptr;
  if (r.is_seq()) {
    const auto& items = *r.seq;
    if (t && t->kind == Type::Kind::Dict) {
      std::string s = "{";
      for (size_t i = 0; i < items.size(); i += 2)
        s += (i ? ", " : "") + value_str(items[i], true, t->elems[0].get()) + ": " +
             value_str(items[i + 1], true, t->elems[1].get());
      return s + "}";
    }
    std::string s = r.tuple ? "(" : "[";
    for (size_t i = 0; i < items.size(); i++) {
      const Type* et = !t ? nullptr : t->kind == Type::Kind::Tuple ? t->elems[i].get() : t->elems[0].get();
      s += (i ? ", " : "") + value_str(items[i], true, et);
    }
    return s + (r.tuple && items.size() == 1 ? ",)" : r.tuple ? ")" : "]");
  }
  switch (r.v.tag()) {
    case IValue::Tag::None:
      return "None";
    case IValue::Tag::Bool:
      return r.v.to_bool() ? "True" : "False";
    case IValue::Tag::Int:
      return std::to_string(r.v.to_int());
    case IValue::Tag::Double:
      return float_repr(r.v.to_double());
    case IValue::Tag::Str:
      return quote_strings ? quoted(r.v.to_str()) : r.v.to_str();
    default:
      EMBER_FAIL(Type, "a value of kind ", r.v.tag_name(), " has no str() in scripted code");
  }
}

bool mutates_container(const std::string& kind) {
  static const char* const kinds[] = {
      "prim::ListExtend",  "prim::ListInsert", "prim::ListPop",        "prim::ListRemove",
      "prim::ListReverse", "prim::ListSort",   "prim::ListClear",      "prim::ListSetItem",
      "prim::DictSetItem", "prim::DictPop",    "prim::DictPopDefault", "prim::DictUpdate",
      "prim::DictClear",   "prim::print",      "prim::SetAttr",        "prim::CallCustom"};
  for (const char* k : kinds)
    if (kind == k) return true;
  return false;
}

const PrimTable& str_prims() {
  static const PrimTable table = {
      {"prim::str",
       [](const Node& n, Ins& in) -> Outs { return {str_value(value_str(in[0], false, n.inputs[0]->type.get()))}; }},
      {"prim::repr",
       [](const Node& n, Ins& in) -> Outs { return {str_value(value_str(in[0], true, n.inputs[0]->type.get()))}; }},
      // (format string, args...): str.format's fields filled with the args
      {"prim::format", [](const Node&, Ins& in) -> Outs { return {str_value(format(str_of(in[0]), in, 1))}; }},
      {"prim::print",
       [](const Node& n, Ins& in) -> Outs {
         std::string line;
         for (size_t i = 0; i < in.size(); i++)
           line += (i ? " " : "") + value_str(in[i], false, n.inputs[i]->type.get());
         std::cout << line << std::endl;
         return {};
       }},
      {"prim::StrLen", [](const Node&, Ins& in) -> Outs { return {RValue(IValue(int64_t(str_of(in[0]).size())))}; }},
      {"prim::StrAdd", [](const Node&, Ins& in) -> Outs { return {str_value(str_of(in[0]) + str_of(in[1]))}; }},
      {"prim::StrMul",
       [](const Node&, Ins& in) -> Outs {
         std::string out;
         for (int64_t k = 0; k < in[1].v.to_int(); k++) out += str_of(in[0]);
         return {str_value(out)};
       }},
      {"prim::StrIndex",
       [](const Node&, Ins& in) -> Outs {
         const std::string& s = str_of(in[0]);
         int64_t n = int64_t(s.size()), i = in[1].v.to_int();
         EMBER_CHECK(i >= -n && i < n, Index, "string index out of range");
         return {str_value(std::string(1, s[i < 0 ? i + n : i]))};
       }},
      {"prim::StrSlice",  // (s, start?, stop?, step?): the characters a list slice would take
       [](const Node& n, Ins& in) -> Outs {
         const std::string& s = str_of(in[0]);
         std::vector<RValue> chars;
         for (char c : s) chars.emplace_back(IValue(int64_t(c)));
         Ins args = {RValue::sequence(std::move(chars), false), in[1], in[2], in[3]};
         RValue picked = list_prims().at("prim::ListSlice")(n, args)[0];
         std::string out;
         for (const RValue& c : picked.items()) out += char(c.v.to_int());
         return {str_value(out)};
       }},
      {"prim::StrContains",
       [](const Node&, Ins& in) -> Outs {
         return {RValue(IValue(str_of(in[1]).find(str_of(in[0])) != std::string::npos))};
       }},
      {"prim::str_lt",
       [](const Node&, Ins& in) -> Outs { return str_compare(in, [](int a, int b) { return a < b; }); }},
      {"prim::str_le",
       [](const Node&, Ins& in) -> Outs { return str_compare(in, [](int a, int b) { return a <= b; }); }},
      {"prim::str_gt",
       [](const Node&, Ins& in) -> Outs { return str_compare(in, [](int a, int b) { return a > b; }); }},
      {"prim::str_ge",
       [](const Node&, Ins& in) -> Outs { return str_compare(in, [](int a, int b) { return a >= b; }); }},
      {"prim::str_split",  // (s, sep?, maxsplit)
       [](const Node&, Ins& in) -> Outs {
         return {RValue::sequence(split(str_of(in[0]), in[1], in[2].v.to_int()), false)};
       }},
      {"prim::str_join",  // (sep, list of str)
       [](const Node&, Ins& in) -> Outs {
         std::string out;
         const auto& items = in[1].items();
         for (size_t i = 0; i < items.size(); i++) out += (i ? str_of(in[0]) : "") + str_of(items[i]);
         return {str_value(out)};
       }},
      {"prim::str_strip",
       [](const Node&, Ins& in) -> Outs { return {str_value(strip(str_of(in[0]), in[1], true, true))}; }},
      {"prim::str_lstrip",
       [](const Node&, Ins& in) -> Outs { return {str_value(strip(str_of(in[0]), in[1], true, false))}; }},
      {"prim::str_rstrip",
       [](const Node&, Ins& in) -> Outs { return {str_value(strip(str_of(in[0]), in[1], false, true))}; }},
      {"prim::str_startswith",
       [](const Node&, Ins& in) -> Outs { return {RValue(IValue(str_of(in[0]).rfind(str_of(in[1]), 0) == 0))}; }},
      {"prim::str_endswith",
       [](const Node&, Ins& in) -> Outs {
         const std::string &s = str_of(in[0]), &x = str_of(in[1]);
         return {RValue(IValue(s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0))};
       }},
      {"prim::str_lower", [](const Node&, Ins& in) -> Outs { return {str_value(map_case(str_of(in[0]), ::tolower))}; }},
      {"prim::str_upper", [](const Node&, Ins& in) -> Outs { return {str_value(map_case(str_of(in[0]), ::toupper))}; }},
      {"prim::str_replace",  // (s, old, new, count)
       [](const Node&, Ins& in) -> Outs {
         return {str_value(replace(str_of(in[0]), str_of(in[1]), str_of(in[2]), in[3].v.to_int()))};
       }},
      {"prim::str_find",
       [](const Node&, Ins& in) -> Outs {
         size_t i = str_of(in[0]).find(str_of(in[1]));
         return {RValue(IValue(i == std::string::npos ? int64_t(-1) : int64_t(i)))};
       }},
  };
  return table;
}

}  // namespace ember::jit
