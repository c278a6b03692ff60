// The key-value store processes rendezvous through (PyTorch's c10d::Store): the abstract interface,
// its errors, and the default-timeout handling every store shares.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ember::distributed {

using Bytes = std::vector<uint8_t>;
using Millis = std::chrono::milliseconds;

// Python's DistError / DistStoreError / DistNetworkError (all RuntimeError), raised by the bindings.
struct DistError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct DistStoreError : DistError {
  using DistError::DistError;
};
struct DistNetworkError : DistError {
  using DistError::DistError;
};

class Store {
 public:
  static constexpr Millis kDefaultTimeout{300000};  // PyTorch's 5 minutes

  explicit Store(Millis timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual void set(const std::string& key, const Bytes& value) = 0;
  // Blocks until the key exists; DistStoreError naming it after the store's timeout.
  virtual Bytes get(const std::string& key) = 0;
  // Adds to the integer (stored as decimal text) under key, creating it at 0; returns the new value.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // Sets desired when the current value equals expected (or the key is missing and expected is empty);
  // returns the value the key holds afterwards (expected itself when the key is missing and was not set).
  virtual Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) = 0;
  virtual bool delete_key(const std::string& key) = 0;
  virtual int64_t num_keys() = 0;
  virtual void wait(const std::vector<std::string>& keys, Millis timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }
  virtual bool check(const std::vector<std::string>& keys) = 0;  // all present, without waiting

  Millis timeout() const { return timeout_; }
  void set_timeout(Millis timeout) { timeout_ = timeout; }

 protected:
  Millis timeout_;
};

// "Wait timeout after 300ms, keys: a, b" — the message every store's timeout raises.
std::string wait_timeout_message(Millis timeout, const std::vector<std::string>& keys);
// The shared compare_set rule over a current value (nullptr: key missing); true when desired must be stored.
bool compare_set_applies(const Bytes* current, const Bytes& expected);
// Decimal text <-> integer, for add(); a value that is not an integer raises DistStoreError naming the key.
int64_t parse_counter(const std::string& key, const Bytes& value);
Bytes counter_bytes(int64_t value);

}  // namespace ember::distributed
