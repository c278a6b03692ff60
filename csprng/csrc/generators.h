// The AES-128-CTR generators: block i of the stream is AES(key, i) (i a big-endian 128-bit
// counter), so an element's bits depend only on the key and its position in the stream.
#pragma once
#include <ember/extension.h>

#include <array>
#include <mutex>
#include <string>

#include "aes.h"

namespace embercsprng {

class AesCtrGenerator : public ember::GeneratorImpl {
 public:
  // kind: "const" (keyed directly), "mt19937" (keyed from std::mt19937(seed)).
  AesCtrGenerator(const uint8_t key[16], uint64_t seed, const char* kind);
  void fill_blocks(uint64_t first_block, int64_t n, uint32_t (*out)[4]) const override;
  const char* name() const override { return name_.c_str(); }
  uint64_t initial_seed() const override { return seed_; }

 protected:
  void set_key(const uint8_t key[16]);
  void reseed(uint64_t seed) override;
  size_t key_state_size() const override { return 24; }  // key, then the seed
  void key_state(uint8_t* out) const override;
  void set_key_state(const uint8_t* data) override;
  ember::IntrusivePtr<ember::GeneratorImpl> clone_impl() const override;

  uint8_t raw_[16];
  Aes128Key key_;
  uint64_t seed_;
  std::string name_;
};

// Keys every reservation (one per random op call) with 16 fresh bytes from the OS (getrandom, or
// the device file named by token); nothing about it can be replayed.
class RandomDeviceGenerator final : public AesCtrGenerator {
 public:
  explicit RandomDeviceGenerator(std::string source);
  void fill_blocks(uint64_t first_block, int64_t n, uint32_t (*out)[4]) const override;

 protected:
  void on_reserve(uint64_t first_block, uint64_t n_blocks) override;
  void reseed(uint64_t seed) override;
  // Restoring a state rewinds the offset, so block numbers repeat: the remembered reservations are
  // dropped, so that an op still running cannot find a later reservation's key by its blocks.
  void set_key_state(const uint8_t* data) override;
  ember::IntrusivePtr<ember::GeneratorImpl> clone_impl() const override;

 private:
  struct Reservation {
    uint64_t first = 0, n = 0;
    Aes128Key key;
  };
  void draw_key(uint8_t out[16]) const;
  std::string source_;
  mutable std::mutex ring_mutex_;
  std::array<Reservation, 16> ring_;  // the latest reservations; ops in flight read their own
  size_t next_ = 0;
};

// The key std::mt19937(seed) gives: its first four 32-bit outputs, little-endian.
void mt19937_key(uint64_t seed, uint8_t out[16]);

}  // namespace embercsprng
