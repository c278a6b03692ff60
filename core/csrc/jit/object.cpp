// The class registry (jit/object.h): guarded by a mutex, as extensions define classes when their Python
// modules import, possibly while scripted code runs on other threads.
#include "jit/object.h"

#include <map>
#include <mutex>

#include "base/error.h"
#include "jit/custom_class.h"

namespace ember::jit {

namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, std::shared_ptr<const ClassDef>>& registry() {
  static std::map<std::string, std::shared_ptr<const ClassDef>> r;
  return r;
}

}  // namespace

const MethodDef* ClassDef::method(const std::string& m) const {
  for (const MethodDef& d : methods)
    if (d.name == m) return &d;
  return nullptr;
}

int ClassDef::attr_index(const std::string& a) const {
  for (size_t i = 0; i < attr_names.size(); i++)
    if (attr_names[i] == a) return int(i);
  return -1;
}

void define_class(std::shared_ptr<ClassDef> def) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(def->name);
  EMBER_CHECK(it == registry().end() || it->second->custom == def->custom, Runtime, "the class ", def->name,
              " is already defined as a ", it->second->custom ? "C++" : "scripted", " class");
  registry()[def->name] = std::move(def);
}

std::shared_ptr<const ClassDef> find_class(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second;
}

std::shared_ptr<const ClassDef> get_class(const std::string& name) {
  auto c = find_class(name);
  static const std::string custom_prefix = "__torch__.torch.classes.";
  if (!c && name.rfind(custom_prefix, 0) == 0)
    EMBER_FAIL(Runtime, "Unknown C++ class ", name.substr(custom_prefix.size()), " (", name,
               "): import the extension that registers it before loading or running code that uses it");
  EMBER_CHECK(c, Runtime, "Unknown class ", name, ": script its Python class (@ember.jit.script) first");
  return c;
}

std::vector<std::string> class_names() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> out;
  for (const auto& kv : registry()) out.push_back(kv.first);
  return out;
}

RValue new_object(std::shared_ptr<const ClassDef> cls) {
  RValue r;
  r.obj = std::make_shared<Object>();
  r.obj->slots.resize(cls->attr_names.size());
  r.obj->cls = std::move(cls);
  return r;
}

}  // namespace ember::jit

namespace ember::jit::detail {

std::string& class_name_of(std::type_index t) {
  static std::map<std::type_index, std::string> names;
  std::lock_guard<std::mutex> lock(registry_mutex());
  return names[t];
}

}  // namespace ember::jit::detail
