// Typed-kernel signature checks and the registration errors kept for ember.ops.load_library.
#include "dispatch/library.h"

#include <mutex>

namespace ember {

namespace detail {

void check_signature(const OpSchema& schema, const std::vector<const char*>& param_types) {
  EMBER_CHECK(param_types.size() == schema.args.size(), Value, "kernel for ", schema.qualified(), " takes ",
              param_types.size(), " parameters but its schema \"", schema.text, "\" has ", schema.args.size(),
              " arguments");
  for (size_t i = 0; i < param_types.size(); i++) {
    std::string want = schema.args[i].type;
    if (!want.empty() && want.back() == '?') want.pop_back();
    EMBER_CHECK(want == param_types[i], Value, "kernel for ", schema.qualified(), ": parameter ", i, " (",
                schema.args[i].name, ") is ", param_types[i], " in C++ but ", schema.args[i].type, " in the schema");
  }
}

}  // namespace detail

namespace {
std::mutex errors_mu;
std::vector<std::string>& errors() {
  static auto* e = new std::vector<std::string>();
  return *e;
}
}  // namespace

void record_registration_error(const std::string& message) {
  std::lock_guard<std::mutex> lock(errors_mu);
  errors().push_back(message);
}

std::vector<std::string> take_registration_errors() {
  std::lock_guard<std::mutex> lock(errors_mu);
  std::vector<std::string> out;
  out.swap(errors());
  return out;
}

LibraryRegistrar::LibraryRegistrar(const char* ns, void (*init)(Library&)) {
  try {
    Library lib(ns);
    init(lib);
  } catch (const std::exception& e) {
    record_registration_error(std::string("registering ops of namespace ") + ns + ": " + e.what());
  }
}

}  // namespace ember
