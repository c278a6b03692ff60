// The static types of script values: Tensor, int, float, bool, str, NoneType, List[T], Tuple[T, ...] and
// Optional[T], Dict[K, V] and Future[T] (what ember.jit.fork returns), Union[T, ...], Any, and classes (a scripted
// class or a registered C++ class, jit/object.h, named by its qualified name: `__torch__.Point`), parsed from and
// printed as TorchScript spells them.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace ember::jit {

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Type {
  enum class Kind { Tensor, Int, Float, Bool, Str, None, List, Tuple, Optional, Dict, Future, Union, Any, Class };
  Kind kind;
  std::vector<TypePtr> elems;  // List, Optional and Future: one; Tuple, Union: each member; Dict: key and value
  std::string name;            // Class: the qualified name (a name with a dot that is no other type's)

  std::string str() const;
  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }
  // Parses "Tensor", "List[int]", "Optional[Tuple[Tensor, int]]"...; raises ValueError naming the text.
  static TypePtr parse(const std::string& text);
  static TypePtr of(Kind k, std::vector<TypePtr> elems = {});
  static TypePtr class_named(const std::string& name);
};

}  // namespace ember::jit
