// AES-128 (FIPS-197): the key schedule, and ECB and CTR over runs of 16-byte blocks, with three
// interchangeable backends chosen at run time: VAES (AVX-512, four blocks per instruction), AES-NI,
// and a portable constant-time one (no table lookups indexed by secret data). Every backend gives
// the same bytes; tests force each in turn.
#pragma once
#include <cstddef>
#include <cstdint>

namespace embercsprng {

struct Aes128Key {
  alignas(16) uint8_t enc[11][16];  // round keys
  alignas(16) uint8_t dec[11][16];  // the equivalent inverse cipher's round keys (InvMixColumns applied)
};

void aes128_expand(const uint8_t key[16], Aes128Key& out);

enum class Backend : int { Portable = 0, AesNi = 1, Vaes = 2 };
// The fastest backend this CPU supports, unless forced (tests); forcing one the CPU lacks raises.
Backend best_backend();
Backend active_backend();
void force_backend(int backend);  // -1: back to automatic
const char* backend_name(Backend b);

// CTR: block i of the keystream is AES(key, counter + i), the counter a big-endian 128-bit integer
// (NIST SP 800-38A); `out` gets n * 16 bytes.
void aes128_ctr(const Aes128Key& k, const uint8_t counter[16], uint64_t first_block, int64_t n, uint8_t* out);
// ECB over n blocks (in may equal out).
void aes128_ecb_encrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n);
void aes128_ecb_decrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n);

// counter + i as a big-endian 128-bit integer.
void counter_add(const uint8_t counter[16], uint64_t i, uint8_t out[16]);

namespace detail {
void portable_encrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n);
void portable_decrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n);
void aesni_encrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n);
void aesni_decrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n);
void aesni_ctr(const Aes128Key& k, const uint8_t counter[16], uint64_t first, int64_t n, uint8_t* out);
void vaes_ctr(const Aes128Key& k, const uint8_t counter[16], uint64_t first, int64_t n, uint8_t* out);
void vaes_encrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n);
}  // namespace detail

}  // namespace embercsprng
