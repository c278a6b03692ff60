// RedisStore: the Store on a Redis server, for rendezvous across machines that share one (issue 28's
// multi-node store). Keys live under a prefix; add is INCRBY, compare_set a Lua script (atomic on the
// server), get/wait poll until the keys exist or the timeout passes. One connection, used under a mutex.
#pragma once

#include <memory>
#include <mutex>

#include "distributed/store.h"

struct redisContext;
struct redisReply;

namespace ember::distributed {

class RedisStore : public Store {
 public:
  RedisStore(std::string host, int port, std::string prefix, Millis timeout);
  ~RedisStore() override;
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;  // the keys under this store's prefix
  using Store::wait;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  bool check(const std::vector<std::string>& keys) override;

  const std::string& host() const { return host_; }
  int port() const { return port_; }
  const std::string& prefix() const { return prefix_; }

 private:
  struct ReplyDeleter {
    void operator()(redisReply* r) const;
  };
  using Reply = std::unique_ptr<redisReply, ReplyDeleter>;
  // Runs one command (argv as binary-safe strings); a lost connection or an error reply raises, naming key.
  Reply command(const std::vector<std::string>& argv, const std::string& key);

  std::string host_;
  int port_;
  std::string prefix_;
  std::mutex mutex_;
  redisContext* context_ = nullptr;
};

}  // namespace ember::distributed
