// PrefixStore: every key of an underlying store, seen under "prefix/" (PyTorch's c10d::PrefixStore).
#pragma once

#include <memory>

#include "distributed/store.h"

namespace ember::distributed {

class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  void set(const std::string& key, const Bytes& value) override { store_->set(join(key), value); }
  Bytes get(const std::string& key) override {  // waits by this store's timeout, not the underlying one's
    store_->wait({join(key)}, timeout_);
    return store_->get(join(key));
  }
  int64_t add(const std::string& key, int64_t delta) override { return store_->add(join(key), delta); }
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override {
    return store_->compare_set(join(key), expected, desired);
  }
  bool delete_key(const std::string& key) override { return store_->delete_key(join(key)); }
  int64_t num_keys() override { return store_->num_keys(); }  // as PyTorch: the underlying store's count
  using Store::wait;
  void wait(const std::vector<std::string>& keys, Millis timeout) override { store_->wait(join(keys), timeout); }
  bool check(const std::vector<std::string>& keys) override { return store_->check(join(keys)); }
  const std::shared_ptr<Store>& underlying() const { return store_; }

 private:
  std::string join(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> join(const std::vector<std::string>& keys) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace ember::distributed
