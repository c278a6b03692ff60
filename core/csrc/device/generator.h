// GeneratorImpl: the random-number generator interface. A generator is a keyed, counter-based
// stream of 128-bit blocks plus a 64-bit offset (the next unused block); samplers reserve blocks and
// derive element i from block (first + i), so results never depend on thread count or layout.
#pragma once
#include <cstdint>
#include <mutex>
#include <vector>

#include "base/intrusive_ptr.h"
#include "device/device.h"

namespace ember {

// Implementations (Philox here, AES-128-CTR in embercsprng) subclass this and provide the
// protected hooks. Stable interface: out-of-tree packages build against this header.
//
// Contract for implementers:
//  - fill_blocks is a pure function of (key, counter): the same counter always gives the same
//    block until the key changes; it may be called from several threads at once.
//  - reseed(seed) sets the key from a 64-bit seed; the base class resets the offset.
//  - key_state/set_key_state serialize the key alone (fixed size per implementation); the base
//    class appends the offset. set_key_state gets exactly key_state_size() bytes.
//  - clone_impl copies the key; the base class copies the offset.
class GeneratorImpl : public RefCounted {
 public:
  explicit GeneratorImpl(Device device) : device_(device) {}
  GeneratorImpl(const GeneratorImpl&) = delete;
  GeneratorImpl& operator=(const GeneratorImpl&) = delete;

  // Blocks first_block .. first_block + n - 1 of the stream, four 32-bit words each.
  virtual void fill_blocks(uint64_t first_block, int64_t n, uint32_t (*out)[4]) const = 0;
  // A short name of the algorithm, e.g. "philox4x32-10".
  virtual const char* name() const = 0;
  // The seed last set (for a generator keyed directly, whatever the implementation reports).
  virtual uint64_t initial_seed() const = 0;

  // Sets the key from `seed` and rewinds the stream to block 0.
  void set_seed(uint64_t seed);
  // Seeds from a non-deterministic source and returns the seed used.
  uint64_t seed();
  // The key and the offset as bytes (key_state_size() + 8, the offset little-endian last).
  std::vector<uint8_t> get_state() const;
  // Restores what get_state returned; raises ValueError naming the expected size otherwise.
  void set_state(const uint8_t* data, size_t n);
  size_t state_size() const { return key_state_size() + 8; }
  // An independent generator with the same key and offset.
  IntrusivePtr<GeneratorImpl> clone() const;
  Device device() const { return device_; }

  // Claims n_blocks consecutive blocks and returns the counter of the first: one call per sampler
  // call, so consecutive calls draw disjoint parts of the stream.
  uint64_t reserve(uint64_t n_blocks);
  uint64_t offset() const;
  void set_offset(uint64_t offset);

 protected:
  virtual void reseed(uint64_t seed) = 0;
  virtual size_t key_state_size() const = 0;
  virtual void key_state(uint8_t* out) const = 0;
  virtual void set_key_state(const uint8_t* data) = 0;
  virtual IntrusivePtr<GeneratorImpl> clone_impl() const = 0;
  // Called by reserve() (under the generator's lock) with the blocks just claimed, for
  // implementations that key each reservation afresh (embercsprng's random-device generator).
  virtual void on_reserve(uint64_t first_block, uint64_t n_blocks) { (void)first_block, (void)n_blocks; }

 private:
  mutable std::mutex mutex_;
  uint64_t offset_ = 0;
  Device device_;
};

using Generator = IntrusivePtr<GeneratorImpl>;

// The process-wide default generator of a device type (CPU only in this build): Philox4x32-10,
// seeded with kDefaultSeed at start-up.
constexpr uint64_t kDefaultSeed = 67280421310721ULL;
GeneratorImpl& default_generator(DeviceType type = DeviceType::CPU);
const Generator& default_generator_ptr(DeviceType type = DeviceType::CPU);

// What a sampler uses: `gen` when given (its device type must be `device`'s), else the default.
GeneratorImpl& resolve_generator(GeneratorImpl* gen, Device device);

}  // namespace ember
