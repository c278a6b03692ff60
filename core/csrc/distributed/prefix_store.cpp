// PrefixStore's construction and key lists.
#include "distributed/prefix_store.h"

namespace ember::distributed {

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultTimeout), prefix_(std::move(prefix)), store_(std::move(store)) {
  if (!store_) throw std::invalid_argument("PrefixStore: the underlying store must not be None");
}

std::vector<std::string> PrefixStore::join(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& k : keys) out.push_back(join(k));
  return out;
}

}  // namespace ember::distributed
