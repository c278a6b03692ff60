// The op table: every op registered at run time (extension ops, and later the domain packages'),
// found by "namespace::name", with one boxed kernel per dispatch key and an optional backward formula.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dispatch/dispatch_key.h"
#include "dispatch/ivalue.h"
#include "dispatch/op_schema.h"

namespace ember {

// A boxed kernel: reads the op's arguments from the stack (in schema order) and leaves its results.
using BoxedKernel = std::function<void(Stack&)>;

// What a backward formula sees; it returns one gradient per schema argument that is a tensor
// (an undefined tensor for "no gradient").
struct BackwardArgs {
  const Stack& inputs;
  const std::vector<Tensor>& outputs;
  const std::vector<Tensor>& grad_outputs;
};
using BackwardFn = std::function<std::vector<Tensor>(const BackwardArgs&)>;

class OpEntry {
 public:
  explicit OpEntry(OpSchema schema) : schema_(std::move(schema)) {}
  const OpSchema& schema() const { return schema_; }
  void set_kernel(DispatchKey k, BoxedKernel f);
  bool has_kernel(DispatchKey k) const { return bool(kernels_[int(k)]); }
  void set_backward(BackwardFn f);
  const BackwardFn& backward() const { return backward_; }

  // Checks the stack against the schema, picks the key from the tensor arguments, runs the kernel.
  void call(Stack& stack) const;
  DispatchKey key_for(const Stack& stack) const;
  int64_t trace_call(const Stack& stack) const;

 private:
  OpSchema schema_;
  std::array<BoxedKernel, size_t(DispatchKey::NumKeys)> kernels_;
  BackwardFn backward_;
};

class OpTable {
 public:
  static OpTable& get();
  // Declares an op; raises when the name is taken with a different schema.
  OpEntry& define(const std::string& ns, const std::string& schema);
  // The entry for "ns::name", or nullptr.
  OpEntry* find(const std::string& qualified);
  OpEntry& at(const std::string& qualified);  // raises when absent
  std::vector<std::string> names(const std::string& ns) const;
  bool has_namespace(const std::string& ns) const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<OpEntry>> ops_;
};

}  // namespace ember
