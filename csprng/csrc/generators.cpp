// AES-128-CTR generators for ember's random ops (see generators.h).
#include "generators.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace embercsprng {

void mt19937_key(uint64_t seed, uint8_t out[16]) {
  std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32)};
  std::mt19937 mt(seq);
  for (int i = 0; i < 4; i++) {
    const uint32_t w = mt();
    for (int b = 0; b < 4; b++) out[4 * i + b] = uint8_t(w >> (8 * b));
  }
}

AesCtrGenerator::AesCtrGenerator(const uint8_t key[16], uint64_t seed, const char* kind)
    : GeneratorImpl(ember::Device()), seed_(seed), name_(std::string("aes128-ctr-") + kind) {
  set_key(key);
}

void AesCtrGenerator::set_key(const uint8_t key[16]) {
  std::memcpy(raw_, key, 16);
  aes128_expand(raw_, key_);
}

void AesCtrGenerator::fill_blocks(uint64_t first_block, int64_t n, uint32_t (*out)[4]) const {
  static const uint8_t zero[16] = {};
  aes128_ctr(key_, zero, first_block, n, reinterpret_cast<uint8_t*>(out));
}

void AesCtrGenerator::reseed(uint64_t seed) {
  uint8_t k[16];
  mt19937_key(seed, k);
  seed_ = seed;
  set_key(k);
}

void AesCtrGenerator::key_state(uint8_t* out) const {
  std::memcpy(out, raw_, 16);
  for (int b = 0; b < 8; b++) out[16 + b] = uint8_t(seed_ >> (8 * b));
}

void AesCtrGenerator::set_key_state(const uint8_t* data) {
  set_key(data);
  seed_ = 0;
  for (int b = 0; b < 8; b++) seed_ |= uint64_t(data[16 + b]) << (8 * b);
}

ember::IntrusivePtr<ember::GeneratorImpl> AesCtrGenerator::clone_impl() const {
  auto* g = new AesCtrGenerator(raw_, seed_, "");
  g->name_ = name_;
  return ember::IntrusivePtr<ember::GeneratorImpl>(g);
}

RandomDeviceGenerator::RandomDeviceGenerator(std::string source)
    : AesCtrGenerator(std::array<uint8_t, 16>{}.data(), 0, "random-device"), source_(std::move(source)) {
  uint8_t k[16];
  draw_key(k);
  set_key(k);
}

void RandomDeviceGenerator::draw_key(uint8_t out[16]) const {
  if (source_.empty()) {
    size_t got = 0;
    while (got < 16) {
      const ssize_t r = getrandom(out + got, 16 - got, 0);
      if (r < 0 && errno == EINTR) continue;
      EMBER_CHECK(r > 0, Runtime, "embercsprng: getrandom failed: ", std::strerror(errno));
      got += size_t(r);
    }
    return;
  }
  std::FILE* f = std::fopen(source_.c_str(), "rb");
  EMBER_CHECK(f, Runtime, "embercsprng: cannot open the random device ", source_, ": ", std::strerror(errno));
  const size_t got = std::fread(out, 1, 16, f);
  std::fclose(f);
  EMBER_CHECK(got == 16, Runtime, "embercsprng: the random device ", source_, " gave ", got, " bytes, not 16");
}

void RandomDeviceGenerator::on_reserve(uint64_t first_block, uint64_t n_blocks) {
  uint8_t k[16];
  draw_key(k);
  std::lock_guard<std::mutex> g(ring_mutex_);
  Reservation& r = ring_[next_++ % ring_.size()];
  r.first = first_block;
  r.n = n_blocks;
  aes128_expand(k, r.key);
  std::memset(k, 0, sizeof k);
}

void RandomDeviceGenerator::fill_blocks(uint64_t first_block, int64_t n, uint32_t (*out)[4]) const {
  Aes128Key key;
  bool found = false;
  {
    std::lock_guard<std::mutex> g(ring_mutex_);
    for (size_t k = 1; k <= ring_.size(); k++) {  // newest first: a rewound offset reuses block numbers
      const Reservation& r = ring_[(next_ - k) % ring_.size()];
      if (r.n && first_block >= r.first && first_block - r.first < r.n) {
        key = r.key;
        found = true;
        break;
      }
    }
  }
  if (!found) {  // outside any recent reservation: a one-off key
    uint8_t k[16];
    draw_key(k);
    aes128_expand(k, key);
  }
  static const uint8_t zero[16] = {};
  aes128_ctr(key, zero, first_block, n, reinterpret_cast<uint8_t*>(out));
}

void RandomDeviceGenerator::reseed(uint64_t seed) {
  seed_ = seed;  // recorded for initial_seed(); the keys still come from the OS
}

void RandomDeviceGenerator::set_key_state(const uint8_t* data) {
  AesCtrGenerator::set_key_state(data);
  std::lock_guard<std::mutex> g(ring_mutex_);
  for (Reservation& r : ring_) r.n = 0;
}

ember::IntrusivePtr<ember::GeneratorImpl> RandomDeviceGenerator::clone_impl() const {
  return ember::IntrusivePtr<ember::GeneratorImpl>(new RandomDeviceGenerator(source_));
}

}  // namespace embercsprng
