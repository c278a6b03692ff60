// TCPStore: a store served over TCP by the master process (rank 0 in a process group). Every process,
// the master included, is a client of the server thread; the constructor connects with retries until
// the timeout and, with wait_for_workers, the master waits until world_size clients have joined.
#pragma once

#include <memory>
#include <mutex>
#include <optional>

#include "distributed/store.h"
#include "distributed/tcp_store_server.h"

namespace ember::distributed {

class TCPStore : public Store {
 public:
  TCPStore(std::string host, int port, std::optional<int64_t> world_size, bool is_master, Millis timeout,
           bool wait_for_workers);
  ~TCPStore() override;
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  bool check(const std::vector<std::string>& keys) override;

  const std::string& host() const { return host_; }
  int port() const { return port_; }
  std::optional<int64_t> world_size() const { return world_size_; }

  static constexpr const char* kJoinedKey = "init/";  // how many clients joined (counted in num_keys, as PyTorch)

 private:
  // One request/response on the shared socket; the reply's parts after the "ok" status.
  wire::Message request(const wire::Message& msg, Millis timeout, const std::vector<std::string>& keys);
  // The same over a socket of its own, for requests that block (WAIT): the shared socket stays free
  // for the other threads using this store meanwhile.
  wire::Message request_alone(const wire::Message& msg, Millis timeout, const std::vector<std::string>& keys);
  wire::Message exchange(int fd, Bytes& pending, const wire::Message& msg, Millis timeout,
                         const std::vector<std::string>& keys);
  void reconnect();
  void wait_for_workers(Millis timeout);

  std::string host_;
  std::string connect_host_;  // the master reaches its own server over loopback
  int port_;
  std::optional<int64_t> world_size_;
  std::unique_ptr<TCPStoreServer> server_;  // only on the master
  std::mutex mutex_;                        // one request at a time on the socket
  int fd_ = -1;
  Bytes pending_;
};

}  // namespace ember::distributed
