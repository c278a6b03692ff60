// TCPStore's wire format and socket helpers. A message is a list of byte strings:
// [count u32][len u32][bytes]... (host byte order: both ends are this library).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "distributed/store.h"

namespace ember::distributed::wire {

using Message = std::vector<Bytes>;

Bytes encode(const Message& msg);
// Takes one complete message off the front of buf; nullopt while it is still partial.
std::optional<Message> take_message(Bytes& buf);

Bytes to_bytes(const std::string& s);
std::string to_string(const Bytes& b);

// Blocking send of everything; false when the peer is gone.
bool send_all(int fd, const Bytes& data);
// Reads one message within timeout (ms); throws DistStoreError on timeout, DistNetworkError on a closed peer.
Message recv_message(int fd, Bytes& pending, Millis timeout, const std::vector<std::string>& keys_for_error);

// A connected socket to host:port, retrying until timeout; DistNetworkError when it never connects.
int connect_with_retry(const std::string& host, int port, Millis timeout);
// A listening IPv4 socket on every interface; port 0 picks a free one. Returns the fd and the bound port.
int listen_on(int port, int* bound_port);

}  // namespace ember::distributed::wire
