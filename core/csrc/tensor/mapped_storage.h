// Storages over memory mappings: POSIX shared memory (Tensor.share_memory_, ember.multiprocessing) and
// files (UntypedStorage.from_file); their deleter unmaps. Also resizing a storage in place.
#pragma once
#include <cstdint>
#include <string>

#include "tensor/storage.h"

namespace ember {

// Moves st's bytes into a new POSIX shared-memory mapping in place, so every view of st sees the
// mapping. named=false keeps an open descriptor to an unlinked object ('file_descriptor' sharing);
// named=true keeps a /dev/shm name instead, unlinked when st dies ('file_system' sharing). The old
// memory is freed now, or kept until st dies when its address was handed out (st not resizable).
// No-op when st is already a mapping.
void move_to_shared_memory(StorageImpl& st, bool named);

// Whether st is a shared-memory or file mapping (PyTorch's is_shared is true for both).
bool is_mapped(const StorageImpl& st);

// How another process can map st: its descriptor (-1 if none) and its shared-memory name ("" if none).
struct SharedHandle {
  int fd = -1;
  std::string name;
};
SharedHandle shared_handle(const StorageImpl& st);

// A storage of nbytes over the shared-memory object open as fd; the storage owns fd from now on.
Storage map_shared_fd(int fd, int64_t nbytes);
// A storage of nbytes over the shared-memory object called name (which it does not unlink).
Storage map_shared_name(const std::string& name, int64_t nbytes);
// A storage of nbytes over the file at path: shared writes go to the file (which grows to nbytes),
// otherwise the mapping is private (copy-on-write) and the file must hold nbytes.
Storage map_file(const std::string& path, bool shared, int64_t nbytes);

// Gives st nbytes in place: shrinking keeps the memory (views past the end stay readable), growing
// copies into new memory and raises for a storage that is not resizable.
void resize_storage(StorageImpl& st, int64_t nbytes);

}  // namespace ember
