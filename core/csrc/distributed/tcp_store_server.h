// The server TCPStore's master runs: one thread polls the listening socket and every client, keeps the
// map, and answers WAIT requests once all their keys exist (clients time out on their side).
#pragma once

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "distributed/tcp_wire.h"

namespace ember::distributed {

class TCPStoreServer {
 public:
  explicit TCPStoreServer(int port);  // port 0: a free one, see port()
  ~TCPStoreServer();
  TCPStoreServer(const TCPStoreServer&) = delete;
  TCPStoreServer& operator=(const TCPStoreServer&) = delete;
  int port() const { return port_; }

 private:
  struct Client {
    Bytes pending;
  };
  struct Waiter {
    int fd;
    std::vector<std::string> keys;
  };
  void run();
  bool serve(int fd, const wire::Message& request);  // false: drop the client
  wire::Message handle(int fd, const wire::Message& request, bool* deferred);
  void wake_waiters();
  bool has_all(const std::vector<std::string>& keys) const;

  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  int port_ = 0;
  std::map<int, Client> clients_;
  std::map<std::string, Bytes> map_;
  std::vector<Waiter> waiters_;
  std::thread thread_;
};

}  // namespace ember::distributed
