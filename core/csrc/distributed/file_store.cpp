// FileStore's log: records are [kind u8][key length u32][key][value length u32][value], kind 0 = set,
// 1 = delete. Readers poll (10 ms) for keys they wait on: there is no cross-process notification.
#include "distributed/file_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace ember::distributed {

class FileStore::Locked {
 public:
  explicit Locked(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw DistStoreError("FileStore: cannot open '" + path + "': " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd_);
      throw DistStoreError("FileStore: cannot lock '" + path + "': " + std::strerror(err));
    }
  }
  ~Locked() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

namespace {

void write_all(int fd, const void* data, size_t n) {
  auto p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw DistStoreError(std::string("FileStore: write failed: ") + std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
}

Bytes read_from(int fd, int64_t offset) {
  Bytes out;
  char buf[65536];
  for (;;) {
    ssize_t r = ::pread(fd, buf, sizeof buf, offset + static_cast<int64_t>(out.size()));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw DistStoreError(std::string("FileStore: read failed: ") + std::strerror(errno));
    if (r == 0) return out;
    out.insert(out.end(), buf, buf + r);
  }
}

uint32_t read_u32(const Bytes& b, size_t pos) {
  uint32_t v;
  std::memcpy(&v, b.data() + pos, 4);
  return v;
}

}  // namespace

FileStore::FileStore(std::string path, int64_t world_size) : path_(std::move(path)), world_size_(world_size) {
  Locked file(path_);  // creates the file, and fails here (not at first use) when it cannot
}

void FileStore::refresh(Locked& file) {
  Bytes tail = read_from(file.fd(), offset_);
  size_t pos = 0;
  // A record is complete once its writer released the lock; a torn tail can only come from a killed writer.
  while (pos + 5 <= tail.size()) {
    uint8_t kind = tail[pos];
    uint32_t klen = read_u32(tail, pos + 1);
    if (pos + 5 + klen + 4 > tail.size()) break;
    std::string key(tail.begin() + pos + 5, tail.begin() + pos + 5 + klen);
    uint32_t vlen = read_u32(tail, pos + 5 + klen);
    size_t vpos = pos + 9 + klen;
    if (vpos + vlen > tail.size()) break;
    if (kind == 1)
      cache_.erase(key);
    else
      cache_[key] = Bytes(tail.begin() + vpos, tail.begin() + vpos + vlen);
    pos = vpos + vlen;
  }
  offset_ += static_cast<int64_t>(pos);
}

void FileStore::append(Locked& file, bool is_delete, const std::string& key, const Bytes& value) {
  Bytes rec;
  rec.push_back(is_delete ? 1 : 0);
  auto put_u32 = [&](uint32_t v) {
    auto p = reinterpret_cast<const uint8_t*>(&v);
    rec.insert(rec.end(), p, p + 4);
  };
  put_u32(static_cast<uint32_t>(key.size()));
  rec.insert(rec.end(), key.begin(), key.end());
  put_u32(static_cast<uint32_t>(value.size()));
  rec.insert(rec.end(), value.begin(), value.end());
  if (::lseek(file.fd(), 0, SEEK_END) < 0) throw DistStoreError("FileStore: seek failed");
  write_all(file.fd(), rec.data(), rec.size());
  refresh(file);
}

void FileStore::set(const std::string& key, const Bytes& value) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(path_);
  refresh(file);
  append(file, false, key, value);
}

Bytes FileStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::lock_guard<std::mutex> guard(mutex_);
  auto it = cache_.find(key);
  if (it == cache_.end()) throw DistStoreError(wait_timeout_message(timeout_, {key}));  // deleted meanwhile
  return it->second;
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(path_);
  refresh(file);
  auto it = cache_.find(key);
  int64_t value = (it == cache_.end() ? 0 : parse_counter(key, it->second)) + delta;
  append(file, false, key, counter_bytes(value));
  return value;
}

Bytes FileStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(path_);
  refresh(file);
  auto it = cache_.find(key);
  if (!compare_set_applies(it == cache_.end() ? nullptr : &it->second, expected))
    return it == cache_.end() ? expected : it->second;
  append(file, false, key, desired);
  return desired;
}

bool FileStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(path_);
  refresh(file);
  if (!cache_.count(key)) return false;
  append(file, true, key, {});
  return true;
}

int64_t FileStore::num_keys() {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(path_);
  refresh(file);
  return static_cast<int64_t>(cache_.size());
}

bool FileStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> guard(mutex_);
  Locked file(path_);
  refresh(file);
  for (const auto& k : keys)
    if (!cache_.count(k)) return false;
  return true;
}

void FileStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) throw DistStoreError(wait_timeout_message(timeout, keys));
    std::this_thread::sleep_for(Millis(10));
  }
}

}  // namespace ember::distributed
