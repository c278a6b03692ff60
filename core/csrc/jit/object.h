// Classes of script values: a class scripted from Python (its attributes, typed, in slots; its methods are
// compiled into the graphs that call them) or a C++ class an extension registers (jit/custom_class.h: an
// instance of the C++ type behind a shared pointer, its constructor and methods boxed over RValues).
// Both are defined in one registry by qualified name, which the types (Type::Kind::Class) name.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "jit/type.h"
#include "jit/value.h"

namespace ember::jit {

struct ClassDef;

struct Object {
  std::shared_ptr<const ClassDef> cls;
  std::vector<RValue> slots;      // a scripted class: one per attribute, in ClassDef::attr_names order
  std::shared_ptr<void> payload;  // a C++ class: its instance
};

// A boxed method of a C++ class: args[0] is the object (absent for __init__, which returns the new object).
using BoxedMethod = std::function<RValue(std::vector<RValue>& args)>;

struct MethodDef {
  std::string name;
  std::vector<TypePtr> params;  // after self
  TypePtr ret;
  BoxedMethod fn;
};

struct ClassDef {
  std::string name;  // qualified: __torch__.Point, __torch__.torch.classes.NS.Name
  bool custom = false;
  std::vector<std::string> attr_names;  // a scripted class's attributes
  std::vector<TypePtr> attr_types;
  std::vector<MethodDef> methods;  // a C++ class's; __getstate__ / __setstate__ make it saveable
  const MethodDef* method(const std::string& m) const;
  int attr_index(const std::string& a) const;  // -1 when absent
};

// Defines (or, for a scripted class compiled again, redefines) a class.
void define_class(std::shared_ptr<ClassDef> def);
// The class of that qualified name, or null.
std::shared_ptr<const ClassDef> find_class(const std::string& name);
// The class of that name, raising RuntimeError naming it (and what registers it) when it is not defined.
std::shared_ptr<const ClassDef> get_class(const std::string& name);
std::vector<std::string> class_names();

// A new object of a class: scripted ones with every attribute None until __init__ sets it.
RValue new_object(std::shared_ptr<const ClassDef> cls);

// The qualified name of the C++ class NS.Name (TorchScript's torch.classes.NS.Name).
inline std::string custom_class_name(const std::string& ns, const std::string& name) {
  return "__torch__.torch.classes." + ns + "." + name;
}

}  // namespace ember::jit
