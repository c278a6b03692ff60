// The one-time registration of the op database's ops into the op table, on the jit's first use.
#include "jit/boxing.h"

#include <mutex>
#include <unordered_map>

namespace ember::jit {

namespace {

std::mutex direct_mu;
std::unordered_map<const OpEntry*, DirectKernel>& direct_kernels() {
  static auto* table = new std::unordered_map<const OpEntry*, DirectKernel>();  // entries are never freed
  return *table;
}

}  // namespace

void set_direct(const OpEntry& e, DirectKernel k) {
  std::lock_guard<std::mutex> lock(direct_mu);
  direct_kernels()[&e] = k;
}

DirectKernel direct_kernel(const OpEntry& e) {
  std::lock_guard<std::mutex> lock(direct_mu);
  auto it = direct_kernels().find(&e);
  return it == direct_kernels().end() ? nullptr : it->second;
}

OpTable& database_ops() {
  static std::once_flag once;
  std::call_once(once, [] { register_database_ops(OpTable::get()); });
  return OpTable::get();
}

}  // namespace ember::jit
