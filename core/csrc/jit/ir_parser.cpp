// The IR text parser: a recursive descent over Graph::str's output. Structure comes from the keywords
// (a node's sub-blocks follow it as `blockK(...):` ... `-> (...)`; the top block ends at `return`), not
// from indentation. Constants are read by their printed type.
#include "jit/ir_parser.h"

#include <cstdlib>
#include <unordered_map>

namespace ember::jit {

namespace {

class Parser {
 public:
  Parser(const std::string& text, const std::vector<Tensor>& tensors, const PythonOps& python_ops)
      : s_(text), tensors_(tensors), python_ops_(python_ops) {}

  std::shared_ptr<Graph> graph() {
    g_ = std::make_shared<Graph>();
    expect("graph(");
    Block* top = g_->top();
    params(top, ")");
    expect(":");
    statements(top, "return");
    expect("return");
    top->returns = value_list();
    skip_space();
    if (i_ != s_.size()) fail("text after the graph's return");
    return g_;
  }

 private:
  const std::string& s_;
  const std::vector<Tensor>& tensors_;
  const PythonOps& python_ops_;
  size_t i_ = 0;
  std::shared_ptr<Graph> g_;
  std::unordered_map<std::string, Value*> names_;

  [[noreturn]] void fail(const std::string& what) const {
    size_t line = 1;
    for (size_t k = 0; k < i_ && k < s_.size(); k++) line += s_[k] == '\n';
    EMBER_FAIL(Value, "cannot parse the graph text at line ", line, ": ", what);
  }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) i_++;
  }
  bool at(const std::string& word) {
    skip_space();
    return s_.compare(i_, word.size(), word) == 0;
  }
  void expect(const std::string& word) {
    if (!at(word)) fail("expected '" + word + "'");
    i_ += word.size();
  }

  // %name: a value's printed name, without the %; '$' starts the compiler's own names (a loop's $returned flag,
  // a comprehension's $comp list), which the printer writes as they are
  std::string value_name() {
    expect("%");
    size_t start = i_;
    while (i_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.' || s_[i_] == '$'))
      i_++;
    if (i_ == start) fail("expected a value name after %");
    return s_.substr(start, i_ - start);
  }
  Value* use() {
    std::string n = value_name();
    auto it = names_.find(n);
    if (it == names_.end()) fail("%" + n + " is used before it is defined");
    return it->second;
  }
  void define(Value* v, const std::string& n) {
    if (!names_.emplace(n, v).second) fail("%" + n + " is defined twice");
    v->name = n;
  }

  // A type: the text up to a ',' ')' '=' or line end outside brackets.
  TypePtr type() {
    skip_space();
    size_t start = i_;
    int depth = 0;
    for (; i_ < s_.size(); i_++) {
      char c = s_[i_];
      if (c == '[') depth++;
      if (c == ']') depth--;
      if (depth == 0 && (c == ',' || c == ')' || c == '=' || c == '\n')) break;
    }
    std::string text = s_.substr(start, i_ - start);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return Type::parse(text);
  }

  // (%a : T, %b : U) up to `close`, as parameters of b
  void params(Block* b, const std::string& close) {
    if (at(close)) {
      expect(close);
      return;
    }
    for (;;) {
      std::string n = value_name();
      expect(":");
      define(g_->add_param(b, type(), ""), n);
      if (at(",")) {
        expect(",");
        continue;
      }
      expect(close);
      return;
    }
  }

  std::vector<Value*> value_list() {
    expect("(");
    std::vector<Value*> out;
    if (at(")")) {
      expect(")");
      return out;
    }
    for (;;) {
      out.push_back(use());
      if (at(",")) {
        expect(",");
        continue;
      }
      expect(")");
      return out;
    }
  }

  void statements(Block* b, const std::string& end) {
    while (!at(end)) {
      if (i_ >= s_.size()) fail("unexpected end of the text (expected '" + end + "')");
      node(b);
    }
  }

  void node(Block* b) {
    std::vector<std::pair<std::string, TypePtr>> outs;
    if (at("%")) {
      for (;;) {
        std::string n = value_name();
        expect(":");
        outs.emplace_back(n, type());
        if (!at(",")) break;
        expect(",");
      }
      expect("=");
    }
    skip_space();
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != '(' && s_[i_] != '[' && !std::isspace(static_cast<unsigned char>(s_[i_]))) i_++;
    std::string kind = s_.substr(start, i_ - start);
    if (kind.empty()) fail("expected a node kind");
    std::string attr_name, attr_text;
    if (at("[")) {
      expect("[");
      size_t eq = s_.find('=', i_);
      if (eq == std::string::npos) fail("expected name=value in a node's attribute");
      attr_name = s_.substr(i_, eq - i_);
      i_ = eq + 1;
      attr_text = bracketed();
      expect("]");
    }
    std::shared_ptr<CallbackFn> python_op;
    std::string callee;
    if (kind == "prim::PythonOp") {
      size_t k = 0;
      callee = attr_name == "name" ? string_literal(attr_text, k) : "";
      auto it = python_ops_.find(callee);
      if (it == python_ops_.end())
        fail("the graph calls the Python function " + attr_text + " (ember.jit.ignore): it cannot run without Python");
      python_op = it->second;
    }
    std::vector<Value*> ins = value_list();
    std::vector<TypePtr> types;
    for (auto& o : outs) types.push_back(o.second);
    Node* n = g_->append(b, kind, ins, types);
    if (python_op) {
      n->callee = callee;
      n->callback = python_op;
    }
    if (kind == "prim::Constant") {
      if (attr_name != "value" || types.size() != 1) fail("a prim::Constant has one output and a value");
      n->has_constant = true;
      size_t k = 0;
      n->constant = constant(attr_text, k, *types[0]);
    }
    for (size_t k = 0; k < outs.size(); k++) define(n->outputs[k], outs[k].first);
    while (at("block")) {
      expect("block");
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) i_++;
      expect("(");
      Block* sub = g_->add_block(n);
      params(sub, ")");
      expect(":");
      statements(sub, "->");
      expect("->");
      sub->returns = value_list();
    }
  }

  // The raw text of an attribute value: up to the `]` that closes it (strings and nesting skipped).
  std::string bracketed() {
    size_t start = i_;
    int depth = 0;
    bool in_str = false;
    for (; i_ < s_.size(); i_++) {
      char c = s_[i_];
      if (in_str) {
        if (c == '\\')
          i_++;
        else if (c == '"')
          in_str = false;
        continue;
      }
      if (c == '"') in_str = true;
      if (c == '[' || c == '(') depth++;
      if (c == ')') depth--;
      if (c == ']') {
        if (depth == 0) break;
        depth--;
      }
    }
    return s_.substr(start, i_ - start);
  }

  // A constant of type t from text at k (advanced past it).
  RValue constant(const std::string& text, size_t& k, const Type& t) {
    auto skip = [&] {
      while (k < text.size() && text[k] == ' ') k++;
    };
    skip();
    auto token = [&] {
      size_t start = k;
      while (k < text.size() && text[k] != ',' && text[k] != ']' && text[k] != ')') k++;
      std::string tok = text.substr(start, k - start);
      while (!tok.empty() && tok.back() == ' ') tok.pop_back();
      return tok;
    };
    if (t.kind == Type::Kind::Optional || t.kind == Type::Kind::None) {
      if (text.compare(k, 4, "None") == 0) {
        k += 4;
        return RValue();
      }
      if (t.kind == Type::Kind::None) fail("a NoneType constant must be None");
      return constant(text, k, *t.elems[0]);
    }
    if (t.kind == Type::Kind::List || t.kind == Type::Kind::Tuple || t.kind == Type::Kind::Dict) {
      // a dict constant is printed as its [key0, value0, key1, value1, ...] layout (prims_dict.cpp)
      bool tuple = t.kind == Type::Kind::Tuple, dict = t.kind == Type::Kind::Dict;
      if (k >= text.size() || text[k] != (tuple ? '(' : '[')) fail("expected a " + t.str() + " constant");
      k++;
      std::vector<RValue> items;
      skip();
      while (k < text.size() && text[k] != (tuple ? ')' : ']')) {
        const Type& et = *t.elems[tuple ? items.size() : dict ? items.size() % 2 : 0];
        items.push_back(constant(text, k, et));
        skip();
        if (k < text.size() && text[k] == ',') k++;
        skip();
      }
      if (k >= text.size()) fail("unterminated " + t.str() + " constant");
      k++;
      return RValue::sequence(std::move(items), tuple);
    }
    if (t.kind == Type::Kind::Str) return RValue(IValue(string_literal(text, k)));
    if (t.kind == Type::Kind::Tensor) {
      if (text.compare(k, 4, "None") == 0) {  // an undefined tensor (the outputs of a branch that raises)
        k += 4;
        return RValue();
      }
      if (text.compare(k, 8, "<Tensor ") != 0) fail("a tensor constant must be <Tensor K> in saved graph text");
      k += 8;
      size_t end = text.find('>', k);
      if (end == std::string::npos) fail("unterminated <Tensor K>");
      long idx = std::strtol(text.substr(k, end - k).c_str(), nullptr, 10);
      if (idx < 0 || size_t(idx) >= tensors_.size()) fail("tensor constant " + std::to_string(idx) + " is not saved");
      k = end + 1;
      return RValue(IValue(tensors_[idx]));
    }
    std::string tok = token();
    char* end = nullptr;
    if (t.kind == Type::Kind::Int) {
      long long v = std::strtoll(tok.c_str(), &end, 10);
      if (tok.empty() || *end) fail("bad int constant '" + tok + "'");
      return RValue(IValue(int64_t(v)));
    }
    if (t.kind == Type::Kind::Float) {
      double v = std::strtod(tok.c_str(), &end);
      if (tok.empty() || *end) fail("bad float constant '" + tok + "'");
      return RValue(IValue(v));
    }
    if (t.kind == Type::Kind::Bool) {
      if (tok != "0" && tok != "1") fail("bad bool constant '" + tok + "'");
      return RValue(IValue(tok == "1"));
    }
    fail("no constant of type " + t.str());
  }

  std::string string_literal(const std::string& text, size_t& k) {
    if (k >= text.size() || text[k] != '"') fail("expected a string constant");
    std::string out;
    for (k++; k < text.size() && text[k] != '"'; k++) {
      char c = text[k];
      if (c != '\\') {
        out += c;
        continue;
      }
      char e = k + 1 < text.size() ? text[++k] : '\0';
      if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (e == 'x' && k + 2 < text.size()) {
        out += char(std::strtol(text.substr(k + 1, 2).c_str(), nullptr, 16));
        k += 2;
      } else {
        out += e;
      }
    }
    if (k >= text.size()) fail("unterminated string constant");
    k++;
    return out;
  }
};

}  // namespace

std::shared_ptr<Graph> parse_graph(const std::string& text, const std::vector<Tensor>& tensors,
                                   const PythonOps& python_ops) {
  return Parser(text, tensors, python_ops).graph();
}

}  // namespace ember::jit
