// RedisStore over hiredis's synchronous API.
#include "distributed/redis_store.h"

#include <hiredis/hiredis.h>

#include <thread>

namespace ember::distributed {

namespace {

// compare_set on the server: KEYS[1] the key, ARGV[1] expected, ARGV[2] desired (Store::compare_set's rule).
const char* kCompareSetScript =
    "local v = redis.call('GET', KEYS[1]) "
    "if (v == false and ARGV[1] == '') or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return ARGV[2] end "
    "if v == false then return ARGV[1] end "
    "return v";

std::string glob_escaped(const std::string& s) {  // SCAN's MATCH treats * ? [ ] \ as a pattern
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

Bytes as_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string as_string(const Bytes& b) { return std::string(b.begin(), b.end()); }

}  // namespace

void RedisStore::ReplyDeleter::operator()(redisReply* r) const { freeReplyObject(r); }

RedisStore::RedisStore(std::string host, int port, std::string prefix, Millis timeout)
    : Store(timeout), host_(std::move(host)), port_(port), prefix_(std::move(prefix)) {
  if (port < 0 || port > 65535)
    throw std::invalid_argument("RedisStore: port must be in [0, 65535], got " + std::to_string(port));
  auto ms = timeout.count() > 0 ? timeout.count() : 1;
  struct timeval tv{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
  context_ = redisConnectWithTimeout(host_.c_str(), port_, tv);
  if (context_ == nullptr || context_->err) {
    std::string why = context_ ? context_->errstr : "out of memory";
    if (context_) redisFree(context_);
    context_ = nullptr;
    throw DistNetworkError("RedisStore: could not connect to the Redis server at " + host_ + ":" +
                           std::to_string(port_) + ": " + why);
  }
}

RedisStore::~RedisStore() {
  if (context_) redisFree(context_);
}

RedisStore::Reply RedisStore::command(const std::vector<std::string>& argv, const std::string& key) {
  std::vector<const char*> args;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    args.push_back(a.data());
    lens.push_back(a.size());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto* raw =
      static_cast<redisReply*>(redisCommandArgv(context_, static_cast<int>(args.size()), args.data(), lens.data()));
  if (raw == nullptr)
    throw DistNetworkError("RedisStore: the connection to " + host_ + ":" + std::to_string(port_) + " failed during " +
                           argv[0] + " of key " + key + ": " + context_->errstr);
  Reply reply(raw);
  if (reply->type == REDIS_REPLY_ERROR)
    throw DistStoreError("RedisStore: " + argv[0] + " of key " + key +
                         " failed: " + std::string(reply->str, reply->len));
  return reply;
}

void RedisStore::set(const std::string& key, const Bytes& value) {
  command({"SET", prefix_ + key, as_string(value)}, key);
}

Bytes RedisStore::get(const std::string& key) {
  wait({key}, timeout_);
  Reply r = command({"GET", prefix_ + key}, key);
  if (r->type != REDIS_REPLY_STRING) throw DistStoreError("RedisStore: key " + key + " vanished while read");
  return Bytes(r->str, r->str + r->len);
}

int64_t RedisStore::add(const std::string& key, int64_t delta) {
  return command({"INCRBY", prefix_ + key, std::to_string(delta)}, key)->integer;
}

Bytes RedisStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Reply r = command({"EVAL", kCompareSetScript, "1", prefix_ + key, as_string(expected), as_string(desired)}, key);
  return Bytes(r->str, r->str + r->len);
}

bool RedisStore::delete_key(const std::string& key) { return command({"DEL", prefix_ + key}, key)->integer > 0; }

int64_t RedisStore::num_keys() {
  int64_t count = 0;
  std::string cursor = "0";
  do {
    Reply r = command({"SCAN", cursor, "MATCH", glob_escaped(prefix_) + "*", "COUNT", "1000"}, prefix_ + "*");
    cursor = std::string(r->element[0]->str, r->element[0]->len);
    count += static_cast<int64_t>(r->element[1]->elements);
  } while (cursor != "0");
  return count;
}

bool RedisStore::check(const std::vector<std::string>& keys) {
  for (const auto& k : keys)
    if (command({"EXISTS", prefix_ + k}, k)->integer == 0) return false;
  return true;
}

void RedisStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  Millis pause(1);
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) throw DistStoreError(wait_timeout_message(timeout, keys));
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, Millis(50));  // prompt for keys about to land, gentle on a long wait
  }
}

}  // namespace ember::distributed
