// Prints each node as an assignment of its outputs; sub-blocks' parameters and returns become
// assignments to the names of the values they stand for.
#include "jit/code_printer.h"

#include <sstream>
#include <unordered_map>

namespace ember::jit {

namespace {

const std::unordered_map<std::string, std::string>& binary_ops() {
  static const std::unordered_map<std::string, std::string> ops = {
      {"prim::add", "+"}, {"prim::sub", "-"},  {"prim::mul", "*"}, {"prim::truediv", "/"}, {"prim::floordiv", "//"},
      {"prim::mod", "%"}, {"prim::pow", "**"}, {"prim::lt", "<"},  {"prim::le", "<="},     {"prim::gt", ">"},
      {"prim::ge", ">="}, {"prim::eq", "=="},  {"prim::ne", "!="}};
  return ops;
}

std::string literal(const RValue& r) {
  if (r.is_seq()) {
    std::string s = r.tuple ? "(" : "[";
    for (size_t i = 0; i < r.seq->size(); i++) s += (i ? ", " : "") + literal((*r.seq)[i]);
    return s + (r.tuple && r.seq->size() == 1 ? ",)" : r.tuple ? ")" : "]");
  }
  std::ostringstream os;
  switch (r.v.tag()) {
    case IValue::Tag::None:
      return "None";
    case IValue::Tag::Bool:
      return r.v.to_bool() ? "True" : "False";
    case IValue::Tag::Int:
      os << r.v.to_int();
      return os.str();
    case IValue::Tag::Double: {
      os.precision(17);
      os << r.v.to_double();
      std::string s = os.str();
      return s.find_first_of(".eni") == std::string::npos ? s + ".0" : s;
    }
    case IValue::Tag::Str:
      return "\"" + r.v.to_str() + "\"";
    default:
      return "<constant>";
  }
}

struct CodePrinter {
  std::ostringstream os;
  std::unordered_map<const Value*, std::string> names;
  std::unordered_map<std::string, int> taken;

  std::string name(const Value* v) {
    if (v->node && v->node->has_constant) return literal(v->node->constant);
    auto it = names.find(v);
    if (it != names.end()) return it->second;
    std::string base = v->name.empty() ? "_" + std::to_string(v->id) : v->name;
    for (char& c : base)
      if (c == '.') c = '_';  // "self.weight": an identifier
    int k = taken[base]++;
    return names.emplace(v, k == 0 ? base : base + std::to_string(k - 1)).first->second;
  }
  std::string args(const std::vector<Value*>& vs, size_t from = 0) {
    std::string s;
    for (size_t i = from; i < vs.size(); i++) s += (i > from ? ", " : "") + name(vs[i]);
    return s;
  }
  std::string targets(const std::vector<Value*>& vs) { return args(vs); }
  static bool is_const_true(const Value* v) {
    return v->node && v->node->has_constant && !v->node->constant.is_seq() &&
           v->node->constant.v.tag() == IValue::Tag::Bool && v->node->constant.v.to_bool();
  }
  // Assigns each of `from` to the matching `to` (block returns into the If's or Loop's names).
  void moves(const std::vector<Value*>& to, const std::vector<Value*>& from, size_t from_start, int ind) {
    for (size_t i = 0; i < to.size(); i++) {
      std::string t = name(to[i]), f = name(from[from_start + i]);
      if (t != f) line(ind) << t << " = " << f << "\n";
    }
  }
  std::ostream& line(int ind) { return os << std::string(ind, ' '); }

  std::string expr(const Node& n) {
    auto b = binary_ops().find(n.kind);
    if (b != binary_ops().end()) return name(n.inputs[0]) + " " + b->second + " " + name(n.inputs[1]);
    if (n.kind == "prim::not") return "not " + name(n.inputs[0]);
    if (n.kind == "prim::neg") return "-" + name(n.inputs[0]);
    if (n.kind == "prim::isNone") return name(n.inputs[0]) + " is None";
    if (n.kind == "prim::unchecked_cast") return name(n.inputs[0]);
    if (n.kind == "prim::ListConstruct") return "[" + args(n.inputs) + "]";
    if (n.kind == "prim::TupleConstruct") return "(" + args(n.inputs) + (n.inputs.size() == 1 ? ",)" : ")");
    if (n.kind == "prim::TupleUnpack" || n.kind == "prim::ListUnpack") return name(n.inputs[0]);
    if (n.kind == "prim::ListIndex" || n.kind == "prim::TupleIndex")
      return name(n.inputs[0]) + "[" + name(n.inputs[1]) + "]";
    if (n.kind == "prim::ListAppend") return name(n.inputs[0]) + ".append(" + name(n.inputs[1]) + ")";
    if (n.kind == "prim::range_len") return "len(range(" + args(n.inputs) + "))";
    if (n.kind == "prim::size" || n.kind == "prim::dim" || n.kind == "prim::numel")
      return name(n.inputs[0]) + "." + n.kind.substr(6) + "(" + args(n.inputs, 1) + ")";
    if (n.kind == "prim::sizes") return name(n.inputs[0]) + ".size()";
    if (n.kind == "prim::Int" || n.kind == "prim::Float" || n.kind == "prim::Bool") {
      std::string f = n.kind.substr(6);
      f[0] = char(tolower(f[0]));
      return f + "(" + name(n.inputs[0]) + ")";
    }
    if (n.kind == "prim::record_function_enter") return "ember._C._record_function_enter(" + name(n.inputs[0]) + ")";
    if (n.kind == "prim::record_function_exit") return "ember._C._record_function_exit(" + name(n.inputs[0]) + ")";
    if (n.kind == "prim::RaiseException")
      return "raise " + n.inputs[1]->node->constant.v.to_str() + "(" + name(n.inputs[0]) + ")";
    if (!n.callee.empty()) return n.callee + "(" + args(n.inputs) + ")";
    if (n.op) {  // keyword-only arguments by name, so the line runs as written
      const auto& sargs = n.op->schema().args;
      std::string s;
      for (size_t i = 0; i < n.inputs.size(); i++)
        s += (i ? ", " : "") + (sargs[i].kwonly ? sargs[i].name + "=" : "") + name(n.inputs[i]);
      return "ember.ops." + n.op->schema().ns + "." + n.op->schema().name + "(" + s + ")";
    }
    return n.kind.substr(n.kind.find("::") + 2) + "(" + args(n.inputs) + ")";
  }

  void block(const Block& b, int ind) {
    for (const auto& n : b.nodes) {
      if (n->has_constant) continue;
      if (n->kind == "prim::If") {
        line(ind) << "if " << name(n->inputs[0]) << ":\n";
        branch(*n->blocks[0], n->outputs, ind + 2);
        line(ind) << "else:\n";
        branch(*n->blocks[1], n->outputs, ind + 2);
      } else if (n->kind == "prim::Loop") {
        loop(*n, ind);
      } else {
        line(ind);
        if (!n->outputs.empty() && n->kind != "prim::RaiseException") os << targets(n->outputs) << " = ";
        os << expr(*n) << "\n";
      }
    }
  }

  void branch(const Block& b, const std::vector<Value*>& outs, int ind) {
    size_t before = os.tellp();
    block(b, ind);
    moves(outs, b.returns, 0, ind);
    if (size_t(os.tellp()) == before) line(ind) << "pass\n";
  }

  void loop(const Node& n, int ind) {
    const Block& body = *n.blocks[0];
    moves(std::vector<Value*>(body.params.begin() + 1, body.params.end()), n.inputs, 2, ind);
    bool for_loop = is_const_true(n.inputs[1]) && is_const_true(body.returns[0]);
    if (for_loop) {
      line(ind) << "for " << name(body.params[0]) << " in range(" << name(n.inputs[0]) << "):\n";
    } else {
      std::string c = "_cond" + std::to_string(n.id);
      line(ind) << c << " = " << name(n.inputs[1]) << "\n";
      line(ind) << name(body.params[0]) << " = 0\n";
      line(ind) << "while " << c << " and " << name(body.params[0]) << " < " << name(n.inputs[0]) << ":\n";
    }
    size_t before = os.tellp();
    block(body, ind + 2);
    moves(std::vector<Value*>(body.params.begin() + 1, body.params.end()), body.returns, 1, ind + 2);
    if (!for_loop) {
      line(ind + 2) << "_cond" << n.id << " = " << name(body.returns[0]) << "\n";
      line(ind + 2) << name(body.params[0]) << " += 1\n";
    }
    if (size_t(os.tellp()) == before) line(ind + 2) << "pass\n";
    moves(n.outputs, std::vector<Value*>(body.params.begin() + 1, body.params.end()), 0, ind);
  }
};

}  // namespace

std::string graph_code(const Graph& g, const std::string& fn_name) {
  CodePrinter p;
  Block* top = const_cast<Graph&>(g).top();
  p.os << "def " << fn_name << "(";
  for (size_t i = 0; i < top->params.size(); i++)
    p.os << (i ? ",\n    " : "") << p.name(top->params[i]) << ": " << top->params[i]->type->str();
  p.os << ") -> " << (top->returns.empty() ? "None" : top->returns[0]->type->str()) << ":\n";
  p.block(*top, 2);
  p.line(2) << "return " << p.args(top->returns) << "\n";
  return p.os.str();
}

}  // namespace ember::jit
