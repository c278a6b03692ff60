// HashStore: an in-process map behind a mutex; get/wait sleep on a condition variable until a key lands.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>

#include "distributed/store.h"

namespace ember::distributed {

class HashStore : public Store {
 public:
  HashStore() = default;
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  bool check(const std::vector<std::string>& keys) override;

 private:
  bool has_all(const std::vector<std::string>& keys) const;  // caller holds mutex_
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Bytes> map_;
};

}  // namespace ember::distributed
