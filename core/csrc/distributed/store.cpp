// Helpers shared by every store: the timeout message, compare_set's rule and add()'s counters.
#include "distributed/store.h"

#include <cerrno>
#include <cstdlib>

namespace ember::distributed {

std::string wait_timeout_message(Millis timeout, const std::vector<std::string>& keys) {
  std::string msg = "Wait timeout after " + std::to_string(timeout.count()) + "ms, keys: ";
  for (size_t i = 0; i < keys.size(); ++i) msg += (i ? ", " : "") + keys[i];
  return msg;
}

bool compare_set_applies(const Bytes* current, const Bytes& expected) {
  return current ? *current == expected : expected.empty();
}

int64_t parse_counter(const std::string& key, const Bytes& value) {
  std::string text(value.begin(), value.end());
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || end != text.c_str() + text.size())
    throw DistStoreError("add(): the value under key '" + key + "' is not an integer: '" + text + "'");
  return v;
}

Bytes counter_bytes(int64_t value) {
  std::string s = std::to_string(value);
  return Bytes(s.begin(), s.end());
}

}  // namespace ember::distributed
