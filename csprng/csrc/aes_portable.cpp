// The portable AES-128 backend and what all backends share (key schedule, counter arithmetic,
// backend choice). Constant time: the S-box is computed, not looked up — the inverse in GF(2^8)
// as x^254 by masked shift-and-add multiplication, then the affine map — so no memory access or
// branch depends on key or data. Slow (a fallback for CPUs without AES instructions).
#include <cstring>
#include <stdexcept>
#include <string>

#include "aes.h"

namespace embercsprng {

namespace {

uint8_t xtime(uint8_t a) { return uint8_t((a << 1) ^ (0x1b & -(a >> 7))); }

uint8_t gmul(uint8_t a, uint8_t b) {
  uint8_t p = 0;
  for (int i = 0; i < 8; i++) {
    p ^= uint8_t(a & -(b & 1));
    a = xtime(a);
    b >>= 1;
  }
  return p;
}

uint8_t ginv(uint8_t x) {  // x^254 (0 maps to 0)
  uint8_t sq = gmul(x, x), r = sq;
  for (int i = 0; i < 6; i++) {
    sq = gmul(sq, sq);
    r = gmul(r, sq);
  }
  return r;
}

uint8_t rotl8(uint8_t b, int n) { return uint8_t((b << n) | (b >> (8 - n))); }

uint8_t sbox(uint8_t x) {
  const uint8_t b = ginv(x);
  return uint8_t(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ 0x63);
}

uint8_t inv_sbox(uint8_t x) { return ginv(uint8_t(rotl8(x, 1) ^ rotl8(x, 3) ^ rotl8(x, 6) ^ 0x05)); }

// The state is FIPS-197's: byte r + 4c is row r of column c.
void shift_rows(uint8_t s[16], bool inverse) {
  uint8_t t[16];
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      const int from = inverse ? (c - r + 4) % 4 : (c + r) % 4;
      t[r + 4 * c] = s[r + 4 * from];
    }
  std::memcpy(s, t, 16);
}

void mix_column(uint8_t* col, bool inverse) {
  const uint8_t a0 = col[0], a1 = col[1], a2 = col[2], a3 = col[3];
  if (!inverse) {
    col[0] = uint8_t(xtime(a0) ^ xtime(a1) ^ a1 ^ a2 ^ a3);
    col[1] = uint8_t(a0 ^ xtime(a1) ^ xtime(a2) ^ a2 ^ a3);
    col[2] = uint8_t(a0 ^ a1 ^ xtime(a2) ^ xtime(a3) ^ a3);
    col[3] = uint8_t(xtime(a0) ^ a0 ^ a1 ^ a2 ^ xtime(a3));
    return;
  }
  col[0] = uint8_t(gmul(a0, 14) ^ gmul(a1, 11) ^ gmul(a2, 13) ^ gmul(a3, 9));
  col[1] = uint8_t(gmul(a0, 9) ^ gmul(a1, 14) ^ gmul(a2, 11) ^ gmul(a3, 13));
  col[2] = uint8_t(gmul(a0, 13) ^ gmul(a1, 9) ^ gmul(a2, 14) ^ gmul(a3, 11));
  col[3] = uint8_t(gmul(a0, 11) ^ gmul(a1, 13) ^ gmul(a2, 9) ^ gmul(a3, 14));
}

void add_key(uint8_t s[16], const uint8_t k[16]) {
  for (int i = 0; i < 16; i++) s[i] ^= k[i];
}

int forced = -1;

bool cpu_has_aesni() { return __builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1"); }
bool cpu_has_vaes() {
  return cpu_has_aesni() && __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw");
}

}  // namespace

void aes128_expand(const uint8_t key[16], Aes128Key& out) {
  uint8_t w[44][4];
  std::memcpy(w, key, 16);
  uint8_t rcon = 1;
  for (int i = 4; i < 44; i++) {
    uint8_t t[4] = {w[i - 1][0], w[i - 1][1], w[i - 1][2], w[i - 1][3]};
    if (i % 4 == 0) {
      const uint8_t first = t[0];
      t[0] = uint8_t(sbox(t[1]) ^ rcon);
      t[1] = sbox(t[2]);
      t[2] = sbox(t[3]);
      t[3] = sbox(first);
      rcon = xtime(rcon);
    }
    for (int j = 0; j < 4; j++) w[i][j] = uint8_t(w[i - 4][j] ^ t[j]);
  }
  std::memcpy(out.enc, w, sizeof out.enc);
  // The equivalent inverse cipher (what aesdec runs): keys in reverse, the middle ones through
  // InvMixColumns.
  std::memcpy(out.dec[0], out.enc[10], 16);
  std::memcpy(out.dec[10], out.enc[0], 16);
  for (int r = 1; r < 10; r++) {
    std::memcpy(out.dec[r], out.enc[10 - r], 16);
    for (int c = 0; c < 4; c++) mix_column(out.dec[r] + 4 * c, true);
  }
}

void counter_add(const uint8_t counter[16], uint64_t i, uint8_t out[16]) {
  unsigned carry = 0;
  for (int b = 15; b >= 0; b--) {
    const int shift = 8 * (15 - b);
    const unsigned add = shift < 64 ? unsigned((i >> shift) & 0xff) : 0;
    const unsigned v = counter[b] + add + carry;
    out[b] = uint8_t(v);
    carry = v >> 8;
  }
}

const char* backend_name(Backend b) {
  return b == Backend::Vaes ? "vaes" : b == Backend::AesNi ? "aes-ni" : "portable";
}

Backend best_backend() {
  static const Backend best = cpu_has_vaes() ? Backend::Vaes : cpu_has_aesni() ? Backend::AesNi : Backend::Portable;
  return best;
}

Backend active_backend() { return forced >= 0 ? Backend(forced) : best_backend(); }

void force_backend(int backend) {
  if (backend == 2 && !cpu_has_vaes()) throw std::invalid_argument("this CPU has no VAES/AVX-512 instructions");
  if (backend == 1 && !cpu_has_aesni()) throw std::invalid_argument("this CPU has no AES-NI instructions");
  if (backend < -1 || backend > 2) throw std::invalid_argument("unknown AES backend " + std::to_string(backend));
  forced = backend;
}

namespace detail {

void portable_encrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n) {
  for (int64_t b = 0; b < n; b++) {
    uint8_t s[16];
    std::memcpy(s, in + 16 * b, 16);
    add_key(s, k.enc[0]);
    for (int r = 1; r <= 10; r++) {
      for (uint8_t& x : s) x = sbox(x);
      shift_rows(s, false);
      if (r < 10)
        for (int c = 0; c < 4; c++) mix_column(s + 4 * c, false);
      add_key(s, k.enc[r]);
    }
    std::memcpy(out + 16 * b, s, 16);
  }
}

void portable_decrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n) {
  for (int64_t b = 0; b < n; b++) {
    uint8_t s[16];
    std::memcpy(s, in + 16 * b, 16);
    add_key(s, k.enc[10]);
    for (int r = 9; r >= 0; r--) {
      shift_rows(s, true);
      for (uint8_t& x : s) x = inv_sbox(x);
      add_key(s, k.enc[r]);
      if (r > 0)
        for (int c = 0; c < 4; c++) mix_column(s + 4 * c, true);
    }
    std::memcpy(out + 16 * b, s, 16);
  }
}

}  // namespace detail

void aes128_ctr(const Aes128Key& k, const uint8_t counter[16], uint64_t first_block, int64_t n, uint8_t* out) {
  switch (active_backend()) {
    case Backend::Vaes:
      return detail::vaes_ctr(k, counter, first_block, n, out);
    case Backend::AesNi:
      return detail::aesni_ctr(k, counter, first_block, n, out);
    case Backend::Portable: {
      uint8_t start[16];  // counter + first, then + b: the carry crosses 2^64 as in the other backends
      counter_add(counter, first_block, start);
      for (int64_t b = 0; b < n; b++) counter_add(start, uint64_t(b), out + 16 * b);
      return detail::portable_encrypt(k, out, out, n);
    }
  }
}

void aes128_ecb_encrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n) {
  switch (active_backend()) {
    case Backend::Vaes:
      return detail::vaes_encrypt(k, in, out, n);
    case Backend::AesNi:
      return detail::aesni_encrypt(k, in, out, n);
    case Backend::Portable:
      return detail::portable_encrypt(k, in, out, n);
  }
}

void aes128_ecb_decrypt(const Aes128Key& k, const uint8_t* in, uint8_t* out, int64_t n) {
  if (active_backend() == Backend::Portable) return detail::portable_decrypt(k, in, out, n);
  detail::aesni_decrypt(k, in, out, n);  // decryption is rare here (encrypt/decrypt ops): AES-NI suffices
}

}  // namespace embercsprng
