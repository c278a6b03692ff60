// ember._C.Generator (PyTorch's torch.Generator API over a GeneratorImpl) and the default generator
// object ember._C.default_generator, which wraps the same GeneratorImpl samplers use for generator=None.
#include "python/generator_object.h"

#include <cstring>

#include "device/philox.h"
#include "iter/copy.h"
#include "python/arg_parser.h"
#include "python/binding_util.h"
#include "python/objects.h"
#include "python/py_errors.h"

namespace ember::py {

PyTypeObject* GeneratorType = nullptr;

namespace {

constexpr const char* kCapsuleName = "ember.GeneratorImpl";

GeneratorObject* self_of(PyObject* o) { return reinterpret_cast<GeneratorObject*>(o); }

// A seed as PyTorch takes it: any int in [-2^63, 2^64); negative values wrap to 2^64 + seed.
uint64_t seed_arg(PyObject* o) {
  if (!PyLong_Check(o) && !(PyIndex_Check(o) && !PyFloat_Check(o) && !is_tensor(o)))
    EMBER_FAIL(Type, "manual_seed expected a long, but got ", type_name(o));
  PyObject* i = PyNumber_Index(o);
  if (!i) throw PythonError();
  uint64_t v = PyLong_AsUnsignedLongLong(i);
  if (v == uint64_t(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    int overflow = 0;
    long long s = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    EMBER_CHECK(!overflow && s < 0, Runtime,
                "Overflow when unpacking long: a seed must be in [-0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff]");
    return uint64_t(s);
  }
  Py_DECREF(i);
  return v;
}

PyObject* gen_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  static const char* kw[] = {"device", nullptr};
  PyObject* dev = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", const_cast<char**>(kw), &dev)) return nullptr;
  EMBER_PY_BEGIN
  Device d = dev && dev != Py_None ? to_device(dev) : Device{};
  EMBER_CHECK(d.is_cpu(), Runtime, "ember.Generator: device '", d.str(),
              "' has no generator in this build of ember (only 'cpu')");
  return wrap_generator(make_philox_generator(kDefaultSeed, Device{}));
  EMBER_PY_END(nullptr)
}

void gen_dealloc(PyObject* o) {
  PyTypeObject* tp = Py_TYPE(o);
  self_of(o)->gen.~Generator();
  tp->tp_free(o);
  Py_DECREF(tp);
}

void release_capsule(PyObject* c) {
  auto* impl = static_cast<GeneratorImpl*>(PyCapsule_GetPointer(c, kCapsuleName));
  if (impl && impl->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete impl;
}

PyObject* make_impl_capsule(const Generator& g) {
  g->refcount_.fetch_add(1, std::memory_order_relaxed);
  PyObject* c = PyCapsule_New(g.get(), kCapsuleName, release_capsule);
  if (!c) g->refcount_.fetch_sub(1, std::memory_order_relaxed);
  return c;
}

#define GEN_METHOD(fname, sig, ...)                                                             \
  PyObject* fname(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) { \
    EMBER_PY_BEGIN                                                                              \
    static ArgParser p(sig);                                                                    \
    ParsedArgs r;                                                                               \
    p.parse(args, nargs, kwnames, r);                                                           \
    GeneratorImpl& g = *self_of(self)->gen;                                                     \
    (void)g;                                                                                    \
    __VA_ARGS__                                                                                 \
    EMBER_PY_END(nullptr)                                                                       \
  }

GEN_METHOD(gen_manual_seed, "manual_seed(object seed)", g.set_seed(seed_arg(r.object(0))); return Py_NewRef(self);)
GEN_METHOD(gen_seed, "seed()", return PyLong_FromUnsignedLongLong(g.seed());)
GEN_METHOD(gen_initial_seed, "initial_seed()", return PyLong_FromUnsignedLongLong(g.initial_seed());)
GEN_METHOD(gen_get_state, "get_state()", std::vector<uint8_t> s = g.get_state();
           Tensor t = ember::empty(DimVec{int64_t(s.size())}, ScalarType::UInt8);
           std::memcpy(t.data(), s.data(), s.size()); return wrap(t);)
GEN_METHOD(gen_set_state, "set_state(object new_state)", PyObject* o = r.object(0);
           EMBER_CHECK(is_tensor(o), Type, "set_state expected an ember.uint8 tensor, but got ", type_name(o));
           const Tensor& t = unwrap(o);
           EMBER_CHECK(t.dtype() == ScalarType::UInt8, Type, "set_state expected an ember.uint8 tensor, but got a ",
                       dtype_name(t.dtype()), " tensor");
           EMBER_CHECK(t.device().is_cpu(), Runtime, "set_state expects a cpu tensor, got one on ", t.device().str());
           Tensor c = contiguous(t); g.set_state(reinterpret_cast<const uint8_t*>(c.data()), size_t(c.numel()));
           return Py_NewRef(self);)
GEN_METHOD(gen_clone_state, "clone_state()", return wrap_generator(g.clone());)
// Raw blocks of the stream (n x 4 words as int64), for testing implementations against references.
GEN_METHOD(gen_blocks, "_blocks(int first_block, int n)", int64_t first = r.int64(0), n = r.int64(1);
           EMBER_CHECK(first >= 0 && n >= 0, Value, "_blocks: first_block and n must be non-negative");
           std::vector<uint32_t> w(size_t(n) * 4);
           g.fill_blocks(uint64_t(first), n, reinterpret_cast<uint32_t (*)[4]>(w.data()));
           Tensor t = ember::empty(DimVec{n, 4}, ScalarType::Int64); int64_t* d = t.data_as<int64_t>();
           for (size_t k = 0; k < w.size(); k++) d[k] = w[k]; return wrap(t);)
GEN_METHOD(gen_get_offset, "_get_offset()", return PyLong_FromUnsignedLongLong(g.offset());)
// A capsule "ember.GeneratorImpl" holding one reference to this generator's GeneratorImpl, for
// extension modules (which cannot link to _C) to reach it.
GEN_METHOD(gen_impl_capsule, "_impl_capsule()", return make_impl_capsule(self_of(self)->gen);)

#undef GEN_METHOD

PyObject* gen_device(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return device_object(self_of(self)->gen->device());
  EMBER_PY_END(nullptr)
}

PyObject* gen_name(PyObject* self, void*) { return PyUnicode_FromString(self_of(self)->gen->name()); }

PyMethodDef gen_methods[] = {
    {"manual_seed", FASTCALL(gen_manual_seed), "Seeds the generator; returns it."},
    {"seed", FASTCALL(gen_seed), "Seeds from a non-deterministic source; returns the seed."},
    {"initial_seed", FASTCALL(gen_initial_seed), "The seed last set."},
    {"get_state", FASTCALL(gen_get_state), "The state as an ember.uint8 tensor."},
    {"set_state", FASTCALL(gen_set_state), "Restores a state from get_state(); returns the generator."},
    {"clone_state", FASTCALL(gen_clone_state), "A new generator with this one's state."},
    {"_blocks", FASTCALL(gen_blocks), nullptr},
    {"_get_offset", FASTCALL(gen_get_offset), nullptr},
    {"_impl_capsule", FASTCALL(gen_impl_capsule), nullptr},
    {nullptr}};

PyGetSetDef gen_getset[] = {
    {"device", gen_device, nullptr, nullptr, nullptr}, {"_algorithm", gen_name, nullptr, nullptr, nullptr}, {nullptr}};

}  // namespace

PyObject* wrap_generator(Generator gen) {
  EMBER_CHECK(GeneratorType, Runtime, "ember._C is not initialized");
  EMBER_CHECK(bool(gen), Value, "wrap_generator: a null generator");
  auto* o = reinterpret_cast<GeneratorObject*>(GeneratorType->tp_alloc(GeneratorType, 0));
  if (!o) return nullptr;
  new (&o->gen) Generator(std::move(gen));
  return reinterpret_cast<PyObject*>(o);
}

PyObject* generator_from_capsule(PyObject* capsule) {
  EMBER_CHECK(PyCapsule_IsValid(capsule, kCapsuleName), Type, "expected a PyCapsule named '", kCapsuleName,
              "' (one GeneratorImpl reference), got ", type_name(capsule));
  return wrap_generator(Generator(static_cast<GeneratorImpl*>(PyCapsule_GetPointer(capsule, kCapsuleName))));
}

namespace {
PyObject* fn_generator_from_capsule(PyObject*, PyObject* capsule) {
  EMBER_PY_BEGIN
  return generator_from_capsule(capsule);
  EMBER_PY_END(nullptr)
}
PyMethodDef g_module_fns[] = {{"_generator_from_capsule", fn_generator_from_capsule, METH_O,
                               "An ember.Generator over the GeneratorImpl a capsule from an extension holds."},
                              {nullptr}};
}  // namespace

bool init_generator_type(PyObject* m) {
  if (PyModule_AddFunctions(m, g_module_fns) < 0) return false;
  PyType_Slot slots[] = {{Py_tp_new, (void*)gen_new},
                         {Py_tp_dealloc, (void*)gen_dealloc},
                         {Py_tp_methods, gen_methods},
                         {Py_tp_getset, gen_getset},
                         {Py_tp_doc, (void*)"Generator(device='cpu'): a random number generator (Philox4x32-10)."},
                         {0, nullptr}};
  PyType_Spec spec = {"ember.Generator", sizeof(GeneratorObject), 0, Py_TPFLAGS_DEFAULT, slots};
  GeneratorType = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (!GeneratorType || PyModule_AddObjectRef(m, "Generator", (PyObject*)GeneratorType) < 0) return false;
  try {
    PyObject* def = wrap_generator(default_generator_ptr(DeviceType::CPU));
    if (!def) return false;
    return PyModule_AddObject(m, "default_generator", def) == 0;
  } catch (...) {
    set_python_error();
    return false;
  }
}

}  // namespace ember::py
