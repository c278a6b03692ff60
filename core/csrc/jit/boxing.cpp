// The one-time registration of the op database's ops into the op table, on the jit's first use.
#include "jit/boxing.h"

#include <mutex>

namespace ember::jit {

OpTable& database_ops() {
  static std::once_flag once;
  std::call_once(once, [] { register_database_ops(OpTable::get()); });
  return OpTable::get();
}

}  // namespace ember::jit
