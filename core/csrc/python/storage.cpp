// Private storage access for ember.serialization and ember.storage: a storage's identity and byte size,
// copying bytes between a storage and a Python buffer (chunked by the caller, so no export of the
// storage's memory outlives the call), tensors of any dtype and layout over an existing tensor's
// storage, and the shared-memory and file mappings of tensor/mapped_storage.h.
#include "python/storage.h"

#include <cstring>

#include "generated/ops/as_strided.h"
#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/parsed_fn.h"
#include "python/py_errors.h"
#include "tensor/factory.h"
#include "tensor/mapped_storage.h"

namespace ember::py {
namespace {

// Holds a Python buffer for the length of a call.
struct BufferGuard {
  Py_buffer view{};
  bool held = false;
  BufferGuard(PyObject* obj, int flags) {
    if (PyObject_GetBuffer(obj, &view, flags) < 0) throw PythonError();
    held = true;
  }
  ~BufferGuard() {
    if (held) PyBuffer_Release(&view);
  }
};

// The byte range [offset, offset + n) of t's storage, checked; raises for a storage without memory.
char* storage_range(const Tensor& t, int64_t offset, int64_t n, const char* what) {
  const StorageImpl& st = *t.storage();
  EMBER_CHECK(st.device.is_cpu(), Runtime, what, ": a ", st.device.str(), " storage has no bytes to copy");
  EMBER_CHECK(offset >= 0 && n >= 0 && offset <= st.nbytes && n <= st.nbytes - offset, Index, what, ": bytes [", offset,
              ", ", offset, " + ", n, ") are outside the storage of ", st.nbytes, " bytes");
  return static_cast<char*>(st.data) + offset;
}

// A flat uint8 tensor over all of a storage's bytes (no autograd): how Python holds a storage.
Tensor bytes_tensor(const Storage& st) {
  auto impl = make_intrusive<TensorImpl>();
  impl->storage = st;
  impl->sizes = {st->nbytes};
  impl->strides = {1};
  impl->dtype = ScalarType::UInt8;
  impl->refresh();
  return Tensor(std::move(impl));
}

// Tensor.set_(source, storage_offset, size, stride): self views source's storage with that layout,
// growing the storage when the layout reaches past its end (as PyTorch does).
void set_storage(const Tensor& self, const Tensor& source, int64_t offset, const DimVec& size,
                 const std::optional<DimVec>& stride_arg) {
  const DimVec stride = stride_arg ? *stride_arg : contiguous_strides(size);
  EMBER_CHECK(stride.size() == size.size(), Runtime, "unequal size length (", size.size(), ") and stride length (",
              stride.size(), ")");
  EMBER_CHECK(offset >= 0, Runtime, "Tensor: invalid storage offset ", offset);
  for (int64_t d : size)
    EMBER_CHECK(d >= 0, Runtime, "Trying to create tensor with negative dimension ", d, ": ", size);
  for (int64_t s : stride)
    EMBER_CHECK(s >= 0, Runtime, "set_: negative strides are not supported, got size=", size, " and stride=", stride);
  int64_t last = offset, span = 0;  // the last element's index, when there is one
  bool empty = false;
  for (size_t i = 0; i < size.size(); i++) {
    empty = empty || size[i] == 0;
    EMBER_CHECK(
        empty || (!__builtin_mul_overflow(size[i] - 1, stride[i], &span) && !__builtin_add_overflow(last, span, &last)),
        Runtime, "Storage size calculation overflowed with sizes=", size, " and strides=", stride);
  }
  int64_t need = 0;
  if (!empty)
    EMBER_CHECK(!__builtin_add_overflow(last, 1, &need) && !__builtin_mul_overflow(need, self.itemsize(), &need),
                Runtime, "Storage size calculation overflowed with sizes=", size, " and strides=", stride);
  const Storage st = source.storage();
  if (need > st->nbytes) resize_storage(*st, need);
  TensorImpl* impl = self.impl();
  impl->storage = st;
  impl->offset = offset;
  impl->sizes = size;
  impl->strides = stride;
  impl->refresh();
  self.bump_version();
}

// Identity of the storage (valid while some tensor keeps it alive): views of one storage agree.
EMBER_FN(_storage_key, "_storage_key(Tensor self)", return PyLong_FromVoidPtr(r.tensor(0).storage().get());)
EMBER_FN(_storage_nbytes, "_storage_nbytes(Tensor self)", return PyLong_FromLongLong(r.tensor(0).storage()->nbytes);)

// Copies len(buffer) bytes of the storage, from byte `offset`, into the writable `buffer`.
EMBER_FN(_storage_copy_to, "_storage_copy_to(Tensor self, int offset, object buffer)", Tensor t = r.tensor(0);
         BufferGuard b(r.object(2), PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS);
         const char* src = storage_range(t, r.int64(1), b.view.len, "_storage_copy_to");
         if (b.view.len) std::memcpy(b.view.buf, src, size_t(b.view.len)); Py_RETURN_NONE;)

// Copies the bytes of `buffer` into the storage from byte `offset` (a write: bumps the version).
EMBER_FN(_storage_copy_from, "_storage_copy_from(Tensor self, int offset, object buffer)", Tensor t = r.tensor(0);
         BufferGuard b(r.object(2), PyBUF_C_CONTIGUOUS);
         char* dst = storage_range(t, r.int64(1), b.view.len, "_storage_copy_from");
         if (b.view.len) std::memcpy(dst, b.view.buf, size_t(b.view.len)); t.bump_version(); Py_RETURN_NONE;)

// A tensor of `dtype` with the given layout over self's storage, bounds-checked against its size.
EMBER_FN(_storage_view, "_storage_view(Tensor self, ScalarType? dtype, int[] size, int[] stride, int storage_offset)",
         Tensor t = r.tensor(0);
         ScalarType dt = r.dtype(1);
         EMBER_CHECK(dt != ScalarType::Undefined, Type, "_storage_view: dtype must be an ember.dtype, not None");
         Tensor base = make_view(t, {}, {}, 0, dt);  // only carries the storage and dtype to as_strided
         return wrap(ad::as_strided(base, r.intlist(2), r.intlist(3), r.int64(4)));)

// The shared-memory and file mappings (tensor/mapped_storage.h); storages travel as bytes_tensor.
EMBER_FN(_storage_bytes, "_storage_bytes(Tensor self)", return wrap(bytes_tensor(r.tensor(0).storage()));)
EMBER_FN(_storage_data_ptr, "_storage_data_ptr(Tensor self)", const Storage& st = r.tensor(0).storage();
         if (!st->data) return PyLong_FromLong(0);
         st->resizable = false;  // the address is held outside ember now (as Tensor.data_ptr)
         return PyLong_FromVoidPtr(st->data);)
// An UntypedStorage slice: bytes [start, stop) of self's storage as a storage of their own that keeps
// self's alive; self's memory may no longer move (its address is inside another storage now).
EMBER_FN(_storage_slice, "_storage_slice(Tensor self, int start, int stop)", const Storage& st = r.tensor(0).storage();
         const int64_t start = r.int64(1), stop = r.int64(2);
         EMBER_CHECK(0 <= start && start <= stop && stop <= st->nbytes, Index, "storage slice [", start, ":", stop,
                     "] is out of range for a storage of size ", st->nbytes);
         st->resizable = false; auto* keep = new Storage(st);
         void* data = st->data ? static_cast<char*>(st->data) + start : nullptr;
         Storage part = foreign_storage(
             data, stop - start, st->device, [](void* ctx, void*, size_t) { delete static_cast<Storage*>(ctx); }, keep);
         return wrap(bytes_tensor(part));)
EMBER_FN(_storage_resize_, "_storage_resize_(Tensor self, int nbytes)",
         resize_storage(*r.tensor(0).storage(), r.int64(1));
         Py_RETURN_NONE;)
EMBER_FN(_storage_share_, "_storage_share_(Tensor self, bool named)",
         move_to_shared_memory(*r.tensor(0).storage(), r.boolean(1));
         Py_RETURN_NONE;)
EMBER_FN(_storage_is_shared, "_storage_is_shared(Tensor self)",
         return PyBool_FromLong(is_mapped(*r.tensor(0).storage()));)
// (descriptor or -1, shared-memory name or None) by which another process maps self's storage.
EMBER_FN(_storage_shared_handle, "_storage_shared_handle(Tensor self)",
         const SharedHandle h = shared_handle(*r.tensor(0).storage());
         if (h.name.empty()) return Py_BuildValue("(iO)", h.fd, Py_None);
         return Py_BuildValue("(is)", h.fd, h.name.c_str());)
// Takes ownership of fd (closed when the storage dies, or now on failure).
EMBER_FN(_storage_map_fd, "_storage_map_fd(int fd, int nbytes)", const int64_t fd = r.int64(0);
         EMBER_CHECK(fd >= 0 && fd <= INT32_MAX, Value, "_storage_map_fd: invalid file descriptor ", fd);
         return wrap(bytes_tensor(map_shared_fd(int(fd), r.int64(1))));)
EMBER_FN(_storage_map_name, "_storage_map_name(str name, int nbytes)",
         return wrap(bytes_tensor(map_shared_name(r.str(0), r.int64(1))));)
EMBER_FN(_storage_map_file, "_storage_map_file(str filename, bool shared, int nbytes)",
         return wrap(bytes_tensor(map_file(r.str(0), r.boolean(1), r.int64(2))));)
EMBER_FN(_set_storage_, "_set_storage_(Tensor self, Tensor source, int storage_offset, int[] size, int[]? stride)",
         set_storage(r.tensor(0), r.tensor(1), r.int64(2), r.intlist(3), r.intlist_opt(4));
         Py_RETURN_NONE;)

#undef EMBER_FN

}  // namespace

void add_storage_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_storage_key", FASTCALL(fn__storage_key), nullptr});
  v.push_back({"_storage_nbytes", FASTCALL(fn__storage_nbytes), nullptr});
  v.push_back({"_storage_copy_to", FASTCALL(fn__storage_copy_to), nullptr});
  v.push_back({"_storage_copy_from", FASTCALL(fn__storage_copy_from), nullptr});
  v.push_back({"_storage_view", FASTCALL(fn__storage_view), nullptr});
  v.push_back({"_storage_bytes", FASTCALL(fn__storage_bytes), nullptr});
  v.push_back({"_storage_data_ptr", FASTCALL(fn__storage_data_ptr), nullptr});
  v.push_back({"_storage_slice", FASTCALL(fn__storage_slice), nullptr});
  v.push_back({"_storage_resize_", FASTCALL(fn__storage_resize_), nullptr});
  v.push_back({"_storage_share_", FASTCALL(fn__storage_share_), nullptr});
  v.push_back({"_storage_is_shared", FASTCALL(fn__storage_is_shared), nullptr});
  v.push_back({"_storage_shared_handle", FASTCALL(fn__storage_shared_handle), nullptr});
  v.push_back({"_storage_map_fd", FASTCALL(fn__storage_map_fd), nullptr});
  v.push_back({"_storage_map_name", FASTCALL(fn__storage_map_name), nullptr});
  v.push_back({"_storage_map_file", FASTCALL(fn__storage_map_file), nullptr});
  v.push_back({"_set_storage_", FASTCALL(fn__set_storage_), nullptr});
}

}  // namespace ember::py
