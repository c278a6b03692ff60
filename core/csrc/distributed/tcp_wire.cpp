// Framing and socket plumbing for TCPStore's client and server.
#include "distributed/tcp_wire.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace ember::distributed::wire {

namespace {
void put_u32(Bytes& out, uint32_t v) {
  auto p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + 4);
}
uint32_t get_u32(const Bytes& b, size_t pos) {
  uint32_t v;
  std::memcpy(&v, b.data() + pos, 4);
  return v;
}
}  // namespace

Bytes encode(const Message& msg) {
  Bytes out;
  put_u32(out, static_cast<uint32_t>(msg.size()));
  for (const auto& part : msg) {
    put_u32(out, static_cast<uint32_t>(part.size()));
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

std::optional<Message> take_message(Bytes& buf) {
  if (buf.size() < 4) return std::nullopt;
  uint32_t count = get_u32(buf, 0);
  size_t pos = 4;
  Message msg;
  msg.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    if (buf.size() < pos + 4) return std::nullopt;
    uint32_t len = get_u32(buf, pos);
    if (buf.size() < pos + 4 + len) return std::nullopt;
    msg.emplace_back(buf.begin() + pos + 4, buf.begin() + pos + 4 + len);
    pos += 4 + len;
  }
  buf.erase(buf.begin(), buf.begin() + pos);
  return msg;
}

Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string to_string(const Bytes& b) { return std::string(b.begin(), b.end()); }

bool send_all(int fd, const Bytes& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

Message recv_message(int fd, Bytes& pending, Millis timeout, const std::vector<std::string>& keys_for_error) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto msg = take_message(pending)) return *msg;
    auto left = std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw DistStoreError(wait_timeout_message(timeout, keys_for_error));
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;  // the deadline check above raises
    uint8_t buf[65536];
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw DistNetworkError("TCPStore: the connection to the store's server was closed (the server is gone)");
    pending.insert(pending.end(), buf, buf + n);
  }
}

int connect_with_retry(const std::string& host, int port, Millis timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last_error = "no attempt";
  for (;;) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
    if (rc != 0) {
      last_error = ::gai_strerror(rc);
    } else {
      for (addrinfo* a = res; a; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          ::freeaddrinfo(res);
          return fd;
        }
        last_error = std::strerror(errno);
        ::close(fd);
      }
      ::freeaddrinfo(res);
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw DistNetworkError("The client socket has timed out after " + std::to_string(timeout.count()) +
                             "ms while trying to connect to (" + host + ", " + std::to_string(port) +
                             "): " + last_error);
    std::this_thread::sleep_for(Millis(50));  // the server may not be listening yet
  }
}

int listen_on(int port, int* bound_port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw DistNetworkError(std::string("TCPStore: socket() failed: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 128) != 0) {
    int err = errno;
    ::close(fd);
    throw DistNetworkError("The server socket has failed to listen on port " + std::to_string(port) + ": " +
                           std::strerror(err));
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *bound_port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace ember::distributed::wire
