// The interpreter's compiled form of a graph (built once per graph, on its first run): each block as a
// flat list of instructions over registers (one per graph value), with what can be settled ahead of a
// run settled then: op arguments that are constants pre-boxed (a number a TensorLike takes as its
// wrapped 0-dim tensor, made once rather than per call), list conversions chosen by schema type, and
// each register read that is the value's last use marked to move rather than copy.
#pragma once
#include <memory>
#include <vector>

#include "jit/boxing.h"
#include "jit/ir.h"

namespace ember::jit {

// How an op argument is taken from its register: as is, or a list converted to the op table's list.
enum class ArgConv : int8_t { Plain, TensorList, IntList };

struct PlanArg {
  int reg = -1;       // -1: the pre-boxed constant
  bool move = false;  // the register's last read: its value moves onto the stack
  ArgConv conv = ArgConv::Plain;
  IValue constant;
  int number = -1;  // a wrapped number: its index in each thread's copies of them (the interpreter's Frame)
};

struct PlanRead {
  int reg;
  bool move;
};

struct PlanBlock;

constexpr size_t kMaxDirectArgs = 24;

struct Instr {
  enum class Kind : int8_t { Op, Constant, Prim, Callback, If, Loop, Fork, Wait } kind;
  const Node* node;
  std::vector<PlanArg> args;      // Op
  DirectKernel direct = nullptr;  // Op: its unboxed entry, when it has one and no argument needs converting
  std::vector<PlanRead> ins;      // every other kind (Fork: its inputs, then the outer values its body reads)
  std::vector<int> free_regs;     // Fork: the registers of those outer values
  std::vector<int> outs;
  std::vector<std::unique_ptr<PlanBlock>> blocks;  // If: then, else; Loop, Fork: the body
};

struct PlanBlock {
  std::vector<int> params;
  std::vector<Instr> code;
  std::vector<PlanRead> returns;
};

struct Plan {
  PlanBlock top;
  int num_registers = 0;
  int num_numbers = 0;  // the wrapped-number constants (PlanArg::number)
};

// The plan of g, built on the first call after g last changed (Graph::touch drops it); thread-safe.
std::shared_ptr<const Plan> plan_of(const Graph& g);

}  // namespace ember::jit
