// TCPStoreServer: the poll loop and the commands (SET GET ADD CAS DEL NUM CHECK WAIT).
#include "distributed/tcp_store_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ember::distributed {

using wire::Message;
using wire::to_bytes;
using wire::to_string;

TCPStoreServer::TCPStoreServer(int port) {
  listen_fd_ = wire::listen_on(port, &port_);
  if (::pipe(stop_pipe_) != 0) {
    ::close(listen_fd_);
    throw DistNetworkError("TCPStore: pipe() failed");
  }
  thread_ = std::thread([this] { run(); });
}

TCPStoreServer::~TCPStoreServer() {
  char c = 0;
  (void)!::write(stop_pipe_[1], &c, 1);
  thread_.join();
  for (auto& [fd, client] : clients_) ::close(fd);
  ::close(listen_fd_);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
}

void TCPStoreServer::run() {
  for (;;) {
    std::vector<pollfd> fds{{stop_pipe_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (auto& [fd, client] : clients_) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents) return;
    if (fds[1].revents & POLLIN) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) clients_[fd] = Client{};
    }
    for (size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      int fd = fds[i].fd;
      uint8_t buf[65536];
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      bool keep = n > 0 || (n < 0 && errno == EINTR);
      if (n > 0) {
        Bytes& pending = clients_[fd].pending;
        pending.insert(pending.end(), buf, buf + n);
        while (keep) {
          auto msg = wire::take_message(pending);
          if (!msg) break;
          keep = serve(fd, *msg);
        }
      }
      if (!keep) {
        ::close(fd);
        clients_.erase(fd);
        waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(), [fd](const Waiter& w) { return w.fd == fd; }),
                       waiters_.end());
      }
    }
  }
}

bool TCPStoreServer::serve(int fd, const Message& request) {
  bool deferred = false;
  Message reply = handle(fd, request, &deferred);
  if (deferred) return true;
  bool ok = wire::send_all(fd, wire::encode(reply));
  wake_waiters();
  return ok;
}

bool TCPStoreServer::has_all(const std::vector<std::string>& keys) const {
  for (const auto& k : keys)
    if (!map_.count(k)) return false;
  return true;
}

void TCPStoreServer::wake_waiters() {
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    if (has_all(it->keys)) {
      wire::send_all(it->fd, wire::encode({to_bytes("ok")}));  // a dead waiter is dropped by the poll loop
      it = waiters_.erase(it);
    } else {
      ++it;
    }
  }
}

Message TCPStoreServer::handle(int fd, const Message& req, bool* deferred) {
  auto error = [](const std::string& what) { return Message{to_bytes("err"), to_bytes(what)}; };
  if (req.empty()) return error("empty request");
  std::string cmd = to_string(req[0]);
  auto need = [&](size_t n) { return req.size() == n; };
  try {
    if (cmd == "SET" && need(3)) {
      map_[to_string(req[1])] = req[2];
      return {to_bytes("ok")};
    }
    if (cmd == "GET" && need(2)) {
      auto it = map_.find(to_string(req[1]));
      if (it == map_.end()) return {to_bytes("missing")};
      return {to_bytes("ok"), it->second};
    }
    if (cmd == "ADD" && need(3)) {
      std::string key = to_string(req[1]);
      auto it = map_.find(key);
      int64_t value = (it == map_.end() ? 0 : parse_counter(key, it->second)) + parse_counter(key, req[2]);
      map_[key] = counter_bytes(value);
      return {to_bytes("ok"), counter_bytes(value)};
    }
    if (cmd == "CAS" && need(4)) {
      std::string key = to_string(req[1]);
      auto it = map_.find(key);
      if (!compare_set_applies(it == map_.end() ? nullptr : &it->second, req[2]))
        return {to_bytes("ok"), it == map_.end() ? req[2] : it->second};
      map_[key] = req[3];
      return {to_bytes("ok"), req[3]};
    }
    if (cmd == "DEL" && need(2)) return {to_bytes("ok"), to_bytes(map_.erase(to_string(req[1])) ? "1" : "0")};
    if (cmd == "NUM" && need(1)) return {to_bytes("ok"), counter_bytes(static_cast<int64_t>(map_.size()))};
    std::vector<std::string> keys;
    for (size_t i = 1; i < req.size(); ++i) keys.push_back(to_string(req[i]));
    if (cmd == "CHECK") return {to_bytes("ok"), to_bytes(has_all(keys) ? "1" : "0")};
    if (cmd == "WAIT") {
      if (has_all(keys)) return {to_bytes("ok")};
      waiters_.push_back({fd, std::move(keys)});
      *deferred = true;
      return {};
    }
  } catch (const DistError& e) {
    return error(e.what());
  }
  return error("unknown request '" + cmd + "'");
}

}  // namespace ember::distributed
