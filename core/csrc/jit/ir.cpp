// Graph construction, checking of op nodes against the op table, and the `graph` text.
#include "jit/ir.h"

#include <sstream>
#include <unordered_map>

#include "jit/boxing.h"
#include "jit/plan.h"

namespace ember::jit {

Graph::Graph() { top_ = new_block(nullptr); }

void Graph::touch() const { std::atomic_store(&plan_, std::shared_ptr<const Plan>()); }

std::unique_ptr<Block> Graph::new_block(Node* owner) {
  touch();
  auto b = std::make_unique<Block>();
  b->id = int(blocks_.size());
  b->owner = owner;
  blocks_.push_back(b.get());
  return b;
}

Value* Graph::add_param(Block* b, TypePtr t, const std::string& name) {
  touch();
  values_.push_back(std::make_unique<Value>(Value{int(values_.size()), std::move(t), name, nullptr, b}));
  b->params.push_back(values_.back().get());
  return values_.back().get();
}

Node* Graph::append(Block* b, const std::string& kind, const std::vector<Value*>& inputs,
                    const std::vector<TypePtr>& out_types) {
  touch();
  auto n = std::make_unique<Node>();
  n->id = int(nodes_.size());
  n->kind = kind;
  n->inputs = inputs;
  n->owner = b;
  // every namespace but prim's names an op of the table: the database's (aten) or an extension's (audio::...)
  if (kind.rfind("prim::", 0) != 0 && kind.find("::") != std::string::npos) {
    n->op = database_ops().find(kind);
    EMBER_CHECK(n->op, Value, "unknown op ", kind, ": the op table has no such op",
                kind.rfind("aten::", 0) == 0 ? "" : " (an extension's op: load the library that registers it first)");
    const OpSchema& s = n->op->schema();
    EMBER_CHECK(inputs.size() == s.args.size(), Type, kind, " takes ", s.args.size(), " arguments (",
                s.python_signature(), "), the node has ", inputs.size());
    EMBER_CHECK(out_types.size() == s.returns.size(), Type, kind, " returns ", s.returns.size(),
                " values, the node declares ", out_types.size());
  } else if (kind != "prim::If" && kind != "prim::Loop" && kind != "prim::Constant" && kind != "prim::PythonOp" &&
             kind != "prim::fork" && kind != "prim::wait") {
    n->prim = find_prim(kind);
    EMBER_CHECK(n->prim, Value, "unknown node kind ", kind);
  }
  for (const TypePtr& t : out_types) {
    values_.push_back(std::make_unique<Value>(Value{int(values_.size()), t, "", n.get(), nullptr}));
    n->outputs.push_back(values_.back().get());
  }
  nodes_.push_back(n.get());
  b->nodes.push_back(std::move(n));
  return b->nodes.back().get();
}

Value* Graph::constant(Block* b, RValue v, TypePtr t) {
  Node* n = append(b, "prim::Constant", {}, {std::move(t)});
  n->has_constant = true;
  n->constant = std::move(v);
  return n->outputs[0];
}

Block* Graph::add_block(Node* n) {
  n->blocks.push_back(new_block(n));
  return n->blocks.back().get();
}

Value* Graph::add_output(Node* n, TypePtr t) {
  touch();
  values_.push_back(std::make_unique<Value>(Value{int(values_.size()), std::move(t), "", n, nullptr}));
  n->outputs.push_back(values_.back().get());
  return values_.back().get();
}

Value* Graph::value(int id) const {
  EMBER_CHECK(id >= 0 && id < int(values_.size()), Index, "no value %", id, " in the graph");
  return values_[id].get();
}

Block* Graph::block(int id) const {
  EMBER_CHECK(id >= 0 && id < int(blocks_.size()), Index, "no block ", id, " in the graph");
  return blocks_[id];
}

Node* Graph::node(int id) const {
  EMBER_CHECK(id >= 0 && id < int(nodes_.size()) && nodes_[id], Index, "no node ", id, " in the graph");
  return nodes_[id];
}

void Graph::forget_node(Node* n) {
  touch();
  for (auto& b : n->blocks)
    for (auto& m : b->nodes) forget_node(m.get());
  nodes_[n->id] = nullptr;
}

namespace {

// Passes call this while they rebuild a block: entries they have moved out are null and skipped (they
// precede the definition of `from`, so they cannot use it).
void replace_in(Block* b, Value* from, Value* to) {
  for (auto& n : b->nodes) {
    if (!n) continue;
    for (Value*& v : n->inputs)
      if (v == from) v = to;
    for (auto& sub : n->blocks) replace_in(sub.get(), from, to);
  }
  for (Value*& v : b->returns)
    if (v == from) v = to;
}

}  // namespace

void Graph::replace_uses(Value* from, Value* to) {
  touch();
  replace_in(top_.get(), from, to);
}

namespace {

// A string constant as a quoted literal the IR parser reads back (quotes, backslashes, controls escaped).
std::string quoted(const std::string& text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += c;
    } else if (c == '\n') {
      s += "\\n";
    } else if (c == '\t') {
      s += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char* hex = "0123456789abcdef";
      s += "\\x";
      s += hex[(c >> 4) & 15];
      s += hex[c & 15];
    } else {
      s += c;
    }
  }
  return s + "\"";
}

// Tensor constants print as <Tensor>, or as <Tensor K> (K: their index in *tensors) when saving.
std::string constant_text(const RValue& r, std::vector<Tensor>* tensors) {
  if (r.is_seq()) {
    std::string s = r.tuple ? "(" : "[";
    for (size_t i = 0; i < r.seq->size(); i++) s += (i ? ", " : "") + constant_text((*r.seq)[i], tensors);
    return s + (r.tuple ? ")" : "]");
  }
  std::ostringstream os;
  switch (r.v.tag()) {
    case IValue::Tag::Int:
      os << r.v.to_int();
      break;
    case IValue::Tag::Double: {
      os.precision(17);
      os << r.v.to_double();
      std::string s = os.str();
      if (s.find_first_of(".eni") == std::string::npos) s += ".";
      return s;
    }
    case IValue::Tag::Bool:
      return r.v.to_bool() ? "1" : "0";
    case IValue::Tag::Str:
      return quoted(r.v.to_str());
    case IValue::Tag::None:
      return "None";
    case IValue::Tag::Tensor:
      if (!tensors) return "<Tensor>";
      tensors->push_back(r.v.to_tensor());
      return "<Tensor " + std::to_string(tensors->size() - 1) + ">";
    default:
      return r.v.tag_name();
  }
  return os.str();
}

struct Printer {
  std::vector<Tensor>* tensors = nullptr;
  std::ostringstream os;
  std::unordered_map<const Value*, std::string> names;
  std::unordered_map<std::string, int> taken;

  const std::string& name(const Value* v) {
    auto it = names.find(v);
    if (it != names.end()) return it->second;
    std::string base = v->name.empty() ? std::to_string(v->id) : v->name;
    int& k = taken[base];
    std::string n = "%" + (k++ == 0 ? base : base + "." + std::to_string(k - 1));
    return names.emplace(v, n).first->second;
  }
  std::string list(const std::vector<Value*>& vs) {
    std::string s;
    for (size_t i = 0; i < vs.size(); i++) s += (i ? ", " : "") + name(vs[i]);
    return s;
  }
  void block(const Block* b, int indent) {
    std::string pad(indent, ' ');
    for (const auto& n : b->nodes) {
      os << pad;
      for (size_t i = 0; i < n->outputs.size(); i++)
        os << (i ? ", " : "") << name(n->outputs[i]) << " : " << n->outputs[i]->type->str();
      os << (n->outputs.empty() ? "" : " = ") << n->kind;
      if (!n->callee.empty()) os << "[name=" << quoted(n->callee) << "]";
      if (n->has_constant) os << "[value=" << constant_text(n->constant, tensors) << "]";
      os << "(" << list(n->inputs) << ")\n";
      for (size_t k = 0; k < n->blocks.size(); k++) {
        const Block* sub = n->blocks[k].get();
        os << pad << "  block" << k << "(";
        for (size_t i = 0; i < sub->params.size(); i++)
          os << (i ? ", " : "") << name(sub->params[i]) << " : " << sub->params[i]->type->str();
        os << "):\n";
        block(sub, indent + 4);
        os << pad << "    -> (" << list(sub->returns) << ")\n";
      }
    }
  }
};

}  // namespace

std::string Graph::str(std::vector<Tensor>* tensors) const {
  Printer p;
  p.tensors = tensors;
  p.os << "graph(";
  for (size_t i = 0; i < top_->params.size(); i++)
    p.os << (i ? ",\n      " : "") << p.name(top_->params[i]) << " : " << top_->params[i]->type->str();
  p.os << "):\n";
  p.block(top_.get(), 2);
  p.os << "  return (" << p.list(top_->returns) << ")\n";
  return p.os.str();
}

}  // namespace ember::jit
