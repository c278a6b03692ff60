// The parts of GeneratorImpl every implementation shares: offset reservation under the mutex,
// state layout (key bytes + offset), non-deterministic seeding, and the default generators.
#include "device/generator.h"

#include <chrono>
#include <random>

#include "device/philox.h"

namespace ember {

void GeneratorImpl::set_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(mutex_);
  reseed(seed);
  offset_ = 0;
}

uint64_t GeneratorImpl::seed() {
  uint64_t s;
  try {
    std::random_device rd;
    s = (uint64_t(rd()) << 32) ^ uint64_t(rd());
  } catch (const std::exception&) {
    s = 0;
  }
  // Mixed with the clock so a random_device that is a fixed sequence still varies per call.
  s ^= uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ULL;
  set_seed(s);
  return s;
}

std::vector<uint8_t> GeneratorImpl::get_state() const {
  std::lock_guard<std::mutex> g(mutex_);
  const size_t k = key_state_size();
  std::vector<uint8_t> out(k + 8);
  key_state(out.data());
  for (int i = 0; i < 8; i++) out[k + i] = uint8_t(offset_ >> (8 * i));
  return out;
}

void GeneratorImpl::set_state(const uint8_t* data, size_t n) {
  std::lock_guard<std::mutex> g(mutex_);
  const size_t k = key_state_size();
  EMBER_CHECK(n == k + 8, Value, "set_state: a ", name(), " generator state has ", k + 8, " bytes, got ", n,
              " (a state from get_state() of the same kind of generator is expected)");
  set_key_state(data);
  uint64_t off = 0;
  for (int i = 0; i < 8; i++) off |= uint64_t(data[k + i]) << (8 * i);
  offset_ = off;
}

IntrusivePtr<GeneratorImpl> GeneratorImpl::clone() const {
  std::lock_guard<std::mutex> g(mutex_);
  IntrusivePtr<GeneratorImpl> c = clone_impl();
  c->offset_ = offset_;
  return c;
}

uint64_t GeneratorImpl::reserve(uint64_t n_blocks) {
  std::lock_guard<std::mutex> g(mutex_);
  uint64_t first = offset_;
  offset_ += n_blocks;
  on_reserve(first, n_blocks);
  return first;
}

uint64_t GeneratorImpl::offset() const {
  std::lock_guard<std::mutex> g(mutex_);
  return offset_;
}

void GeneratorImpl::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> g(mutex_);
  offset_ = offset;
}

const Generator& default_generator_ptr(DeviceType type) {
  EMBER_CHECK(type == DeviceType::CPU, Runtime, "there is no default ", device_type_name(type),
              " generator in this build of ember");
  // Never destroyed: samplers may run during interpreter shutdown.
  static const Generator* cpu = new Generator(make_philox_generator(kDefaultSeed, Device{}));
  return *cpu;
}

GeneratorImpl& default_generator(DeviceType type) { return *default_generator_ptr(type); }

GeneratorImpl& resolve_generator(GeneratorImpl* gen, Device device) {
  if (!gen) return default_generator(device.is_meta() ? DeviceType::CPU : device.type);
  EMBER_CHECK(device.is_meta() || gen->device().type == device.type, Runtime, "Expected a '",
              device_type_name(device.type), "' device type for generator but found '",
              device_type_name(gen->device().type), "'");
  return *gen;
}

}  // namespace ember
