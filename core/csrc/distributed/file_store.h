// FileStore: a store in a shared file, for processes of one machine or a shared filesystem. The file is
// an append-only log of set/delete records; every operation takes an flock, reads what others appended
// since its last look, then appends its own record.
#pragma once

#include <map>
#include <mutex>

#include "distributed/store.h"

namespace ember::distributed {

class FileStore : public Store {
 public:
  FileStore(std::string path, int64_t world_size);
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  using Store::wait;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  bool check(const std::vector<std::string>& keys) override;
  const std::string& path() const { return path_; }
  int64_t world_size() const { return world_size_; }

 private:
  class Locked;  // the open, flock'ed file for one operation
  void append(Locked& file, bool is_delete, const std::string& key, const Bytes& value);
  void refresh(Locked& file);  // reads records appended since offset_
  std::string path_;
  int64_t world_size_;
  std::mutex mutex_;  // threads of this process share the cache below
  std::map<std::string, Bytes> cache_;
  int64_t offset_ = 0;
};

}  // namespace ember::distributed
