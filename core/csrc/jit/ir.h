// The script IR: a typed SSA graph of nodes in blocks, as TorchScript's. A node has a kind
// ("aten::add" names an op-table op; "prim::If", "prim::Loop", "prim::Constant"... are the language's),
// input and output values, and sub-blocks (If: then/else; Loop: the body). Blocks take parameters and
// return values. Values are owned by the graph; nodes by their block.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dispatch/op_table.h"
#include "jit/type.h"
#include "jit/value.h"

namespace ember::jit {

struct Node;
struct Block;
class Graph;
struct Plan;

struct Value {
  int id;
  TypePtr type;
  std::string name;      // the source variable's name, or empty
  Node* node = nullptr;  // the producing node; null for a block parameter
  Block* param_of = nullptr;
};

// A language primitive: reads its inputs and returns its outputs.
using PrimFn = std::vector<RValue> (*)(const Node& n, std::vector<RValue>& in);
// A call out of the graph (prim::PythonOp: an @ember.jit.ignore'd Python function), set by the binding.
using CallbackFn = std::function<std::vector<RValue>(const Node& n, std::vector<RValue>& in)>;

struct Node {
  int id;
  std::string kind;
  std::vector<Value*> inputs, outputs;
  std::vector<std::unique_ptr<Block>> blocks;
  Block* owner = nullptr;
  bool has_constant = false;
  RValue constant;                       // prim::Constant's value
  OpEntry* op = nullptr;                 // aten::NAME: the op-table entry
  PrimFn prim = nullptr;                 // every other kind but If, Loop, Constant and PythonOp
  std::shared_ptr<CallbackFn> callback;  // prim::PythonOp
  std::string callee;                    // prim::PythonOp: the called function's name, for printing
};

struct Block {
  int id;
  std::vector<Value*> params, returns;
  std::vector<std::unique_ptr<Node>> nodes;
  Node* owner = nullptr;  // null for the graph's top block
};

class Graph {
 public:
  Graph();
  Block* top() { return top_.get(); }
  Value* add_param(Block* b, TypePtr t, const std::string& name);
  // Appends a node of `kind` to b. aten::NAME is looked up in the op table and checked against it;
  // other kinds must be primitives the interpreter knows. Raises naming the kind otherwise.
  Node* append(Block* b, const std::string& kind, const std::vector<Value*>& inputs,
               const std::vector<TypePtr>& out_types);
  Value* constant(Block* b, RValue v, TypePtr t);
  Block* add_block(Node* n);
  // A further output of n (If and Loop get theirs once their blocks are compiled).
  Value* add_output(Node* n, TypePtr t);
  Value* value(int id) const;
  Block* block(int id) const;
  Node* node(int id) const;
  int num_values() const { return int(values_.size()); }
  // TorchScript's `graph` text; with `tensors`, tensor constants print as <Tensor K>, K their index in it
  // (what jit/ir_parser.h reads back).
  std::string str(std::vector<Tensor>* tensors = nullptr) const;
  // Every use of `from` (as a node input or block return) now reads `to`.
  void replace_uses(Value* from, Value* to);
  // Drops the interpreter's plan of the graph (jit/plan.h); every edit calls it, and so must code that
  // edits blocks directly (the passes).
  void touch() const;
  mutable std::shared_ptr<const Plan> plan_;  // read and written atomically (std::atomic_load/store)

 private:
  std::unique_ptr<Block> top_;
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<Block*> blocks_;
  std::vector<Node*> nodes_;  // entries of removed nodes stay (ids are never reused); passes clear them
  friend struct GraphEditor;

 public:
  std::unique_ptr<Block> new_block(Node* owner);
  void forget_node(Node* n);
};

// The interpreter's primitive for a kind, or null.
PrimFn find_prim(const std::string& kind);
// Nodes whose removal or merging would change what the program does (raises, in-place or random ops).
bool has_side_effects(const Node& n);

}  // namespace ember::jit
