// DLPack producer (_to_dlpack) and consumer (from_dlpack); see dlpack.h.
#include "python/dlpack.h"

#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/py_errors.h"

namespace ember::py {

namespace {

struct Export {
  DLManagedTensor managed;
  DLManagedTensorVersioned versioned;
  Tensor tensor;  // keeps the storage alive
  DimVec shape, strides;
};

void export_deleter(DLManagedTensor* m) { delete static_cast<Export*>(m->manager_ctx); }
void export_deleter_versioned(DLManagedTensorVersioned* m) { delete static_cast<Export*>(m->manager_ctx); }

DLDataType to_dl(ScalarType t) {
  uint8_t bits = uint8_t(itemsize(t) * 8);
  if (t == ScalarType::Bool) return {6, 8, 1};
  if (t == ScalarType::UInt8) return {1, 8, 1};
  if (is_integral(t, false)) return {0, bits, 1};
  if (t == ScalarType::BFloat16) return {4, 16, 1};
  if (is_floating(t)) return {2, bits, 1};
  return {5, bits, 1};
}

ScalarType from_dl(DLDataType d) {
  EMBER_CHECK(d.lanes == 1, Type, "from_dlpack: vector dtypes (lanes=", d.lanes, ") are not supported");
  switch (d.code) {
    case 0:
      if (d.bits == 8) return ScalarType::Int8;
      if (d.bits == 16) return ScalarType::Int16;
      if (d.bits == 32) return ScalarType::Int32;
      if (d.bits == 64) return ScalarType::Int64;
      break;
    case 1:
      if (d.bits == 8) return ScalarType::UInt8;
      break;
    case 2:
      if (d.bits == 16) return ScalarType::Float16;
      if (d.bits == 32) return ScalarType::Float32;
      if (d.bits == 64) return ScalarType::Float64;
      break;
    case 4:
      if (d.bits == 16) return ScalarType::BFloat16;
      break;
    case 5:
      if (d.bits == 64) return ScalarType::Complex64;
      if (d.bits == 128) return ScalarType::Complex128;
      break;
    case 6:
      if (d.bits == 8) return ScalarType::Bool;
      break;
  }
  EMBER_FAIL(Type, "from_dlpack: unsupported DLPack dtype (code ", int(d.code), ", bits ", int(d.bits), ")");
}

void capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (m && m->deleter) m->deleter(m);
  }
}

void capsule_destructor_versioned(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    if (m && m->deleter) m->deleter(m);
  }
}

void managed_release(void* ctx, void*, size_t) {
  auto* m = static_cast<DLManagedTensor*>(ctx);
  if (m->deleter) m->deleter(m);
}

void managed_release_versioned(void* ctx, void*, size_t) {
  auto* m = static_cast<DLManagedTensorVersioned*>(ctx);
  if (m->deleter) m->deleter(m);
}

// _to_dlpack(t, versioned=False, copied=False): a capsule viewing t's memory.
PyObject* fn_to_dlpack(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static ArgParser p("_to_dlpack(Tensor t, bool versioned=False, bool copied=False)");
  ParsedArgs r;
  p.parse(args, nargs, kwnames, r);
  const Tensor t = r.tensor(0);
  EMBER_CHECK(!t.is_meta(), Runtime, "a meta tensor has no data to export through DLPack");
  t.storage()->resizable = false;  // the consumer keeps the address: the memory must never move
  auto* e = new Export();
  e->tensor = t;
  e->shape = t.sizes();
  e->strides = t.strides();
  DLTensor d;
  d.data = t.storage()->data;
  d.byte_offset = uint64_t(t.offset() * t.itemsize());
  d.device = {t.device().type == DeviceType::CUDA ? 2 : 1, t.device().index < 0 ? 0 : t.device().index};
  d.ndim = int32_t(t.dim());
  d.dtype = to_dl(t.dtype());
  d.shape = e->shape.data();
  d.strides = e->strides.data();
  PyObject* cap;
  if (r.boolean(1)) {
    e->versioned.version = {1, 0};
    e->versioned.manager_ctx = e;
    e->versioned.deleter = &export_deleter_versioned;
    e->versioned.flags = r.boolean(2) ? kDLIsCopied : 0;
    e->versioned.dl_tensor = d;
    cap = PyCapsule_New(&e->versioned, "dltensor_versioned", &capsule_destructor_versioned);
  } else {
    e->managed.dl_tensor = d;
    e->managed.manager_ctx = e;
    e->managed.deleter = &export_deleter;
    cap = PyCapsule_New(&e->managed, "dltensor", &capsule_destructor);
  }
  if (!cap) delete e;
  return cap;
  EMBER_PY_END(nullptr)
}

Tensor from_capsule(PyObject* cap) {
  const bool versioned = PyCapsule_IsValid(cap, "dltensor_versioned");
  EMBER_CHECK(versioned || PyCapsule_IsValid(cap, "dltensor"), Runtime,
              "from_dlpack: expected an unused 'dltensor' or 'dltensor_versioned' capsule (a DLPack capsule can be "
              "consumed only once)");
  DLManagedTensor* m = nullptr;
  DLManagedTensorVersioned* mv = nullptr;
  if (versioned) {
    mv = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    EMBER_CHECK(mv->version.major == 1, Runtime, "from_dlpack: DLPack version ", mv->version.major, ".",
                mv->version.minor, " is not supported (this build reads 1.x)");
    // Ember tensors are always writable: importing read-only memory would let writes through.
    EMBER_CHECK(!(mv->flags & kDLReadOnly), Runtime,
                "from_dlpack: the producer marked this tensor read-only; ember tensors are writable, so pass a "
                "copy (e.g. np.array(x)) instead");
  } else {
    m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
  }
  const DLTensor& d = versioned ? mv->dl_tensor : m->dl_tensor;
  EMBER_CHECK(d.device.device_type == 1, Runtime, "from_dlpack: only CPU tensors can be imported here (device type ",
              d.device.device_type, ")");
  ScalarType dt = from_dl(d.dtype);
  DimVec sizes(d.ndim), strides(d.ndim);
  int64_t extent = 1;
  bool empty = false;
  for (int i = 0; i < d.ndim; i++) {
    sizes[i] = d.shape[i];
    empty = empty || d.shape[i] == 0;
  }
  if (d.strides) {
    for (int i = 0; i < d.ndim; i++) {
      strides[i] = d.strides[i];
      EMBER_CHECK(strides[i] >= 0, Runtime, "from_dlpack: negative strides are not supported");
    }
  } else {
    strides = contiguous_strides(sizes);
  }
  for (int i = 0; i < d.ndim; i++)
    if (sizes[i] > 0) extent += (sizes[i] - 1) * strides[i];
  EMBER_CHECK(d.byte_offset % itemsize(dt) == 0, Runtime,
              "from_dlpack: byte_offset is not a multiple of the item size");
  PyCapsule_SetName(cap, versioned ? "used_dltensor_versioned" : "used_dltensor");
  int64_t nbytes = empty ? 0 : int64_t(d.byte_offset) + extent * itemsize(dt);
  Storage st = versioned ? foreign_storage(d.data, nbytes, Device{}, &managed_release_versioned, mv)
                         : foreign_storage(d.data, nbytes, Device{}, &managed_release, m);
  auto impl = make_intrusive<TensorImpl>();
  impl->storage = st;
  impl->sizes = sizes;
  impl->strides = strides;
  impl->offset = int64_t(d.byte_offset) / itemsize(dt);
  impl->dtype = dt;
  impl->refresh();
  return Tensor(std::move(impl));
}

PyObject* fn_from_dlpack(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  if (is_tensor(arg)) return Py_NewRef(arg);
  if (PyCapsule_CheckExact(arg)) return wrap(from_capsule(arg));
  EMBER_CHECK(PyObject_HasAttrString(arg, "__dlpack__"), Type,
              "from_dlpack(): expected a tensor, an object with "
              "__dlpack__ (e.g. a NumPy array) or a DLPack capsule, got ",
              type_name(arg));
  return wrap(from_dlpack_object(arg));
  EMBER_PY_END(nullptr)
}

}  // namespace

Tensor from_dlpack_object(PyObject* obj) {
  PyObject* cap = PyObject_CallMethod(obj, "__dlpack__", nullptr);
  if (!cap) throw PythonError();
  try {
    Tensor t = from_capsule(cap);
    Py_DECREF(cap);
    return t;
  } catch (...) {
    Py_DECREF(cap);
    throw;
  }
}

void add_dlpack_functions(std::vector<PyMethodDef>& v) {
  v.push_back({"_to_dlpack", FASTCALL(fn_to_dlpack), nullptr});
  v.push_back({"from_dlpack", fn_from_dlpack, METH_O, nullptr});
}

}  // namespace ember::py
