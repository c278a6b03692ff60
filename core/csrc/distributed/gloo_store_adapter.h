// Gloo's rendezvous reads and writes the address of each rank through this view of our Store.
#pragma once

#include <gloo/rendezvous/store.h>

#include <memory>

#include "distributed/store.h"

namespace ember::distributed {

class GlooStoreAdapter : public gloo::rendezvous::Store {
 public:
  explicit GlooStoreAdapter(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, Bytes(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    Bytes value = store_->get(key);
    return std::vector<char>(value.begin(), value.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

}  // namespace ember::distributed
