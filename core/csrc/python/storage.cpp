// Private storage access for ember.serialization: a storage's identity and byte size, copying bytes
// between a storage and a Python buffer (chunked by the caller, so no export of the storage's memory
// outlives the call), and tensors of any dtype and layout over an existing tensor's storage.
#include "python/storage.h"

#include <cstring>

#include "generated/ops/as_strided.h"
#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/py_errors.h"
#include "tensor/factory.h"

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

#define EMBER_FN(name, sig, ...)                                                               \
  PyObject* fn_##name(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) { \
    EMBER_PY_BEGIN                                                                             \
    static ArgParser p(sig);                                                                   \
    ParsedArgs r;                                                                              \
    p.parse(args, nargs, kwnames, r);                                                          \
    __VA_ARGS__                                                                                \
    EMBER_PY_END(nullptr)                                                                      \
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

#undef EMBER_FN

}  // namespace

void add_storage_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_storage_key", FASTCALL(fn__storage_key), nullptr});
  v.push_back({"_storage_nbytes", FASTCALL(fn__storage_nbytes), nullptr});
  v.push_back({"_storage_copy_to", FASTCALL(fn__storage_copy_to), nullptr});
  v.push_back({"_storage_copy_from", FASTCALL(fn__storage_copy_from), nullptr});
  v.push_back({"_storage_view", FASTCALL(fn__storage_view), nullptr});
}

}  // namespace ember::py
