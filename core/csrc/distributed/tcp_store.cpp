// TCPStore's client side: requests over one shared socket, except WAIT, which blocks and so runs over a
// connection of its own (closed after it, so a timed-out WAIT's late answer is never read as another reply).
#include "distributed/tcp_store.h"

#include <unistd.h>

#include <thread>

namespace ember::distributed {

using wire::Message;
using wire::to_bytes;
using wire::to_string;

TCPStore::TCPStore(std::string host, int port, std::optional<int64_t> world_size, bool is_master, Millis timeout,
                   bool wait_for_workers)
    : Store(timeout), host_(std::move(host)), port_(port), world_size_(world_size) {
  if (port < 0 || port > 65535)
    throw std::invalid_argument("TCPStore: port must be in [0, 65535], got " + std::to_string(port));
  if (world_size && *world_size < 1 && *world_size != -1)
    throw std::invalid_argument("TCPStore: world_size must be positive, got " + std::to_string(*world_size));
  if (is_master) {
    server_ = std::make_unique<TCPStoreServer>(port);
    port_ = server_->port();
  } else if (port == 0) {
    throw std::invalid_argument("TCPStore: a client (is_master=False) needs the server's port, got 0");
  }
  connect_host_ = is_master ? "127.0.0.1" : host_;
  fd_ = wire::connect_with_retry(connect_host_, port_, timeout);
  add(kJoinedKey, 1);
  if (is_master && wait_for_workers && world_size_ && *world_size_ > 0) this->wait_for_workers(timeout);
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
}

void TCPStore::reconnect() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  pending_.clear();
  fd_ = wire::connect_with_retry(connect_host_, port_, timeout_);
}

Message TCPStore::exchange(int fd, Bytes& pending, const Message& msg, Millis timeout,
                           const std::vector<std::string>& keys) {
  if (!wire::send_all(fd, wire::encode(msg)))
    throw DistNetworkError("TCPStore: lost the connection to the store's server at " + host_ + ":" +
                           std::to_string(port_));
  Message reply = wire::recv_message(fd, pending, timeout, keys);
  if (reply.empty()) throw DistStoreError("TCPStore: empty reply from the server");
  std::string status = to_string(reply[0]);
  if (status == "err") throw DistStoreError(reply.size() > 1 ? to_string(reply[1]) : "TCPStore: server error");
  reply.erase(reply.begin());
  if (status == "missing") throw DistStoreError(wait_timeout_message(timeout, keys));
  return reply;
}

Message TCPStore::request(const Message& msg, Millis timeout, const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0) reconnect();
  try {
    return exchange(fd_, pending_, msg, timeout, keys);
  } catch (const DistError&) {
    ::close(fd_);  // the next request reconnects: a late reply must not answer it
    fd_ = -1;
    throw;
  }
}

Message TCPStore::request_alone(const Message& msg, Millis timeout, const std::vector<std::string>& keys) {
  int fd = wire::connect_with_retry(connect_host_, port_, timeout_);
  Bytes pending;
  try {
    Message reply = exchange(fd, pending, msg, timeout, keys);
    ::close(fd);
    return reply;
  } catch (...) {
    ::close(fd);  // a timed-out WAIT's late answer goes nowhere
    throw;
  }
}

void TCPStore::set(const std::string& key, const Bytes& value) {
  request({to_bytes("SET"), to_bytes(key), value}, timeout_, {key});
}

Bytes TCPStore::get(const std::string& key) {
  wait({key}, timeout_);
  return request({to_bytes("GET"), to_bytes(key)}, timeout_, {key}).at(0);
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  return parse_counter(key, request({to_bytes("ADD"), to_bytes(key), counter_bytes(delta)}, timeout_, {key}).at(0));
}

Bytes TCPStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  return request({to_bytes("CAS"), to_bytes(key), expected, desired}, timeout_, {key}).at(0);
}

bool TCPStore::delete_key(const std::string& key) {
  return to_string(request({to_bytes("DEL"), to_bytes(key)}, timeout_, {key}).at(0)) == "1";
}

int64_t TCPStore::num_keys() { return parse_counter("", request({to_bytes("NUM")}, timeout_, {}).at(0)); }

static Message with_keys(const char* cmd, const std::vector<std::string>& keys) {
  Message msg{to_bytes(cmd)};
  for (const auto& k : keys) msg.push_back(to_bytes(k));
  return msg;
}

void TCPStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  if (check(keys)) return;  // the common case needs no connection of its own
  request_alone(with_keys("WAIT", keys), timeout, keys);
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  return to_string(request(with_keys("CHECK", keys), timeout_, keys).at(0)) == "1";
}

void TCPStore::wait_for_workers(Millis timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int64_t joined = add(kJoinedKey, 0);
    if (joined >= *world_size_) return;
    if (std::chrono::steady_clock::now() >= deadline)
      throw DistStoreError("Timed out after " + std::to_string(timeout.count()) + "ms waiting for clients. " +
                           std::to_string(joined) + "/" + std::to_string(*world_size_) + " clients joined.");
    std::this_thread::sleep_for(Millis(10));
  }
}

}  // namespace ember::distributed
