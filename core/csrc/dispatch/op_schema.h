// OpSchema: a parsed op signature "name(Tensor x, float alpha=1.0) -> Tensor", the contract that an
// op-table entry's kernels, its Python binding and its backward formula all follow.
#pragma once
#include <string>
#include <vector>

namespace ember {

struct SchemaArg {
  std::string type;  // as written: "Tensor", "Tensor?", "int[]", "float", ...
  std::string name;
  bool has_default = false;
  bool kwonly = false;
  bool is_tensor() const { return type == "Tensor" || type == "Tensor?"; }
};

struct OpSchema {
  std::string ns, name;  // "myext", "scale"
  std::string text;      // the signature as registered, without the namespace
  std::vector<SchemaArg> args;
  std::vector<std::string> returns;  // types: "Tensor", "Tensor[]", "int", "float", "bool", "Generator"
  std::string qualified() const { return ns + "::" + name; }
  // The Python argument signature: "scale(Tensor x, float alpha=1.0)".
  std::string python_signature() const;
};

// Parses "name(args) -> ret" or "-> (ret, ret)"; raises ValueError naming the problem.
OpSchema parse_schema(const std::string& ns, const std::string& text);

}  // namespace ember
