// Storages over memory mappings (see mapped_storage.h).
#include "tensor/mapped_storage.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

#include "base/error.h"

namespace ember {
namespace {

// What a mapped storage owns besides its mapping: a descriptor, a name to unlink, and the memory
// it held before share_memory_ when that memory's address had been handed out.
struct Region {
  size_t length = 0;  // bytes mapped (0: nothing mapped, for an empty storage)
  int fd = -1;
  std::string name;          // the shared-memory name, if it keeps one
  bool unlink_name = false;  // this process created the name and removes it
  StorageImpl::Deleter old_deleter = nullptr;
  void* old_ctx = nullptr;
  void* old_data = nullptr;
  size_t old_capacity = 0;
};

void unmap_region(void* ctx, void* data, size_t) {
  auto* r = static_cast<Region*>(ctx);
  if (r->length) munmap(data, r->length);
  if (r->fd >= 0) close(r->fd);
  if (r->unlink_name) shm_unlink(r->name.c_str());
  if (r->old_deleter) r->old_deleter(r->old_ctx, r->old_data, r->old_capacity);
  delete r;
}

std::string errno_text(int err) { return str_cat(std::strerror(err), " (", err, ")"); }

// A fresh shared-memory name no other process uses (O_EXCL below checks it).
std::string fresh_name() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = std::random_device{}();
  return str_cat("/ember_", getpid(), "_", salt % 1000000007, "_", counter.fetch_add(1));
}

void* map_fd(int fd, size_t length, int prot, int flags, const std::string& what) {
  if (length == 0) return nullptr;
  void* p = mmap(nullptr, length, prot, flags, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    EMBER_FAIL(Runtime, "unable to mmap ", length, " bytes from ", what, ": ", errno_text(err));
  }
  return p;
}

int64_t fd_size(int fd, const std::string& what) {
  struct stat sb{};
  if (fstat(fd, &sb) != 0) {
    const int err = errno;
    EMBER_FAIL(Runtime, "unable to stat ", what, ": ", errno_text(err));
  }
  return int64_t(sb.st_size);
}

Storage region_storage(void* data, int64_t nbytes, Region* r) {
  auto s = make_intrusive<StorageImpl>();
  s->data = data;
  s->nbytes = nbytes;
  s->capacity = r->length;
  s->deleter = &unmap_region;
  s->ctx = r;
  s->resizable = false;  // other processes (or the file) address this memory
  return s;
}

// Maps nbytes of the open shared-memory object fd (taking ownership of fd: kept in the region when
// keep_fd, closed otherwise and on failure).
Storage map_shared(int fd, int64_t nbytes, bool keep_fd, std::string name) {
  const std::string what = name.empty() ? str_cat("shared memory descriptor ", fd) : "shared memory <" + name + ">";
  void* data = nullptr;
  try {
    EMBER_CHECK(nbytes >= 0, Runtime, "unable to map ", what, ": negative size ", nbytes);
    const int64_t have = fd_size(fd, what);
    EMBER_CHECK(have >= nbytes, Runtime, what, " holds ", have, " bytes, fewer than the ", nbytes, " asked for");
    data = map_fd(fd, size_t(nbytes), PROT_READ | PROT_WRITE, MAP_SHARED, what);
  } catch (...) {
    close(fd);
    throw;
  }
  auto* r = new Region();
  r->length = size_t(nbytes);
  r->name = std::move(name);
  if (keep_fd) {
    r->fd = fd;
  } else {
    close(fd);
  }
  return region_storage(data, nbytes, r);
}

void free_block(void*, void* data, size_t capacity) { cpu_free({data, capacity}); }

}  // namespace

bool is_mapped(const StorageImpl& st) { return st.deleter == &unmap_region; }

SharedHandle shared_handle(const StorageImpl& st) {
  SharedHandle h;
  if (!is_mapped(st)) return h;
  const auto* r = static_cast<const Region*>(st.ctx);
  h.fd = r->fd;
  h.name = r->name;
  return h;
}

void move_to_shared_memory(StorageImpl& st, bool named) {
  if (is_mapped(st)) return;
  EMBER_CHECK(st.device.is_cpu(), Runtime, "share_memory_: only available on CPU, not on ", st.device.str());
  const std::string name = fresh_name();
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    const int err = errno;
    EMBER_FAIL(Runtime, "unable to create shared memory object <", name, ">: ", errno_text(err));
  }
  void* data = nullptr;
  try {
    if (ftruncate(fd, off_t(st.nbytes)) != 0) {
      const int err = errno;
      EMBER_FAIL(Runtime, "unable to give shared memory object <", name, "> ", st.nbytes, " bytes: ", errno_text(err));
    }
    data = map_fd(fd, size_t(st.nbytes), PROT_READ | PROT_WRITE, MAP_SHARED, "shared memory <" + name + ">");
  } catch (...) {
    close(fd);
    shm_unlink(name.c_str());
    throw;
  }
  auto* r = new Region();
  r->length = size_t(st.nbytes);
  if (named) {
    close(fd);
    r->name = name;
    r->unlink_name = true;
  } else {
    shm_unlink(name.c_str());  // only the descriptor reaches it now: it goes when the last one closes
    r->fd = fd;
  }
  if (st.nbytes) std::memcpy(data, st.data, size_t(st.nbytes));
  if (st.resizable) {
    if (st.deleter) st.deleter(st.ctx, st.data, st.capacity);
  } else {  // someone holds the old address (NumPy, DLPack, data_ptr): keep it valid while st lives
    r->old_deleter = st.deleter;
    r->old_ctx = st.ctx;
    r->old_data = st.data;
    r->old_capacity = st.capacity;
  }
  st.data = data;
  st.capacity = r->length;
  st.deleter = &unmap_region;
  st.ctx = r;
  st.resizable = false;
}

Storage map_shared_fd(int fd, int64_t nbytes) { return map_shared(fd, nbytes, true, ""); }

Storage map_shared_name(const std::string& name, int64_t nbytes) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) {
    const int err = errno;
    EMBER_FAIL(Runtime, "unable to open shared memory object <", name, "> in read-write mode: ", errno_text(err));
  }
  return map_shared(fd, nbytes, false, name);
}

Storage map_file(const std::string& path, bool shared, int64_t nbytes) {
  const std::string what = "file <" + path + ">";
  EMBER_CHECK(nbytes >= 0, Runtime, "unable to mmap ", nbytes, " bytes from ", what, ": the size must not be negative");
  const int fd = open(path.c_str(), shared ? O_RDWR | O_CREAT : O_RDONLY, 0644);
  if (fd < 0) {
    const int err = errno;
    EMBER_FAIL(Runtime, "unable to open ", what, " in ", shared ? "read-write" : "read-only",
               " mode: ", errno_text(err));
  }
  void* data = nullptr;
  try {
    const int64_t have = fd_size(fd, what);
    if (have < nbytes) {
      EMBER_CHECK(shared, Runtime, what, " size <", have, "> is smaller than the required mapping size <", nbytes, ">");
      if (ftruncate(fd, off_t(nbytes)) != 0) {
        const int err = errno;
        EMBER_FAIL(Runtime, "unable to grow ", what, " to ", nbytes, " bytes: ", errno_text(err));
      }
    }
    data = map_fd(fd, size_t(nbytes), PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE, what);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);  // the mapping keeps the file's pages
  auto* r = new Region();
  r->length = size_t(nbytes);
  return region_storage(data, nbytes, r);
}

void resize_storage(StorageImpl& st, int64_t nbytes) {
  EMBER_CHECK(nbytes >= 0, Runtime, "resize_: the storage size must not be negative, got ", nbytes);
  if (nbytes <= st.nbytes || !st.device.is_cpu()) {
    EMBER_CHECK(nbytes <= st.nbytes || st.resizable, Runtime, "Trying to resize storage that is not resizable");
    st.nbytes = nbytes;  // shrinking keeps the memory: views past the new end stay addressable
    return;
  }
  EMBER_CHECK(st.resizable, Runtime, "Trying to resize storage that is not resizable");
  if (size_t(nbytes) > st.capacity || !st.data) {
    Block b = cpu_alloc(size_t(nbytes));
    if (st.nbytes) std::memcpy(b.ptr, st.data, size_t(st.nbytes));
    if (st.deleter) st.deleter(st.ctx, st.data, st.capacity);
    // A resizable storage is the caching allocator's (foreign memory is never resizable).
    st.data = b.ptr;
    st.capacity = b.capacity;
    st.deleter = &free_block;
    st.ctx = nullptr;
  }
  st.nbytes = nbytes;
}

}  // namespace ember
