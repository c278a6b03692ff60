// HashStore's operations: every write notifies the waiters, who recheck their keys.
#include "distributed/hash_store.h"

namespace ember::distributed {

void HashStore::set(const std::string& key, const Bytes& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  map_[key] = value;
  changed_.notify_all();
}

Bytes HashStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::lock_guard<std::mutex> lock(mutex_);
  return map_.at(key);
}

int64_t HashStore::add(const std::string& key, int64_t delta) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  int64_t value = (it == map_.end() ? 0 : parse_counter(key, it->second)) + delta;
  map_[key] = counter_bytes(value);
  changed_.notify_all();
  return value;
}

Bytes HashStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  if (!compare_set_applies(it == map_.end() ? nullptr : &it->second, expected))
    return it == map_.end() ? expected : it->second;
  map_[key] = desired;
  changed_.notify_all();
  return desired;
}

bool HashStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return map_.erase(key) > 0;
}

int64_t HashStore::num_keys() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(map_.size());
}

bool HashStore::has_all(const std::vector<std::string>& keys) const {
  for (const auto& k : keys)
    if (!map_.count(k)) return false;
  return true;
}

void HashStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!changed_.wait_for(lock, timeout, [&] { return has_all(keys); }))
    throw DistStoreError(wait_timeout_message(timeout, keys));
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mutex_);
  return has_all(keys);
}

}  // namespace ember::distributed
