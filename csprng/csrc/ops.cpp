// The csprng op namespace: generator factories and encrypt/decrypt over any tensor's raw bytes.
#include <ember/extension.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "aes.h"
#include "generators.h"

namespace embercsprng {

namespace {

using ember::Tensor;

int64_t nbytes(const Tensor& t) { return t.numel() * t.itemsize(); }

// The 16 bytes of a uint8 tensor (any shape, 16 elements): a key, or a CTR nonce.
void key_bytes(const Tensor& key, uint8_t out[16], const char* op, const char* what = "key") {
  EMBER_CHECK(key.dtype() == ember::ScalarType::UInt8, Type, op, ": the ", what, " must be a uint8 tensor, got ",
              ember::dtype_name(key.dtype()));
  EMBER_CHECK(key.numel() == 16, Value, op, ": an aes128 ", what, " has 16 bytes, got ", key.numel());
  EMBER_CHECK(key.device().type == ember::DeviceType::CPU, Value, op, ": the ", what, " must be on the CPU");
  const Tensor k = ember::contiguous(key);
  std::memcpy(out, k.data(), 16);
}

ember::Generator random_device(const std::optional<std::string>& token) {
  std::string source;
  if (token && *token != "default" && *token != "getrandom") source = *token;
  return ember::Generator(new RandomDeviceGenerator(source));
}

ember::Generator mt19937(int64_t seed) {
  uint8_t k[16];
  mt19937_key(uint64_t(seed), k);
  return ember::Generator(new AesCtrGenerator(k, uint64_t(seed), "mt19937"));
}

ember::Generator const_generator(const Tensor& key) {
  uint8_t k[16];
  key_bytes(key, k, "create_const_generator");
  uint64_t seed = 0;
  for (int b = 0; b < 8; b++) seed |= uint64_t(k[b]) << (8 * b);
  return ember::Generator(new AesCtrGenerator(k, seed, "const"));
}

// encrypt/decrypt: input's bytes, zero-padded to whole 16-byte blocks, into output's bytes.
Tensor crypt(const Tensor& input, const Tensor& output, const Tensor& key, const std::string& cipher,
             const std::string& mode, const Tensor& nonce, bool encrypting) {
  const char* op = encrypting ? "encrypt" : "decrypt";
  EMBER_CHECK(cipher == "aes128", Value, op, ": unknown cipher '", cipher, "' (supported: aes128)");
  EMBER_CHECK(mode == "ecb" || mode == "ctr", Value, op, ": unknown mode '", mode, "' (supported: ecb, ctr)");
  EMBER_CHECK(input.device().type == ember::DeviceType::CPU && output.device().type == ember::DeviceType::CPU, Value,
              op, ": input and output must be CPU tensors");
  EMBER_CHECK(output.is_contiguous(), Value, op, ": output must be contiguous");
  uint8_t k[16], ctr[16] = {};
  key_bytes(key, k, op);
  if (nonce.defined()) {
    EMBER_CHECK(mode == "ctr", Value, op, ": a nonce is for mode='ctr'");
    key_bytes(nonce, ctr, op, "nonce");
  }
  Aes128Key ks;
  aes128_expand(k, ks);
  std::memset(k, 0, sizeof k);
  const int64_t in_bytes = nbytes(input), out_bytes = nbytes(output);
  int64_t blocks, take;  // blocks processed; bytes of them written to output
  if (encrypting) {
    blocks = (in_bytes + 15) / 16;
    take = 16 * blocks;
    EMBER_CHECK(out_bytes >= take, Value, "encrypt: output is too small: it has ", out_bytes, " bytes; the input's ",
                in_bytes, " bytes padded to whole 16-byte blocks need ", take);
  } else {
    blocks = (out_bytes + 15) / 16;
    take = out_bytes;
    EMBER_CHECK(in_bytes >= 16 * blocks, Value, "decrypt: input is too small: output's ", out_bytes, " bytes need ",
                16 * blocks, " input bytes (whole 16-byte blocks), input has ", in_bytes);
  }
  const Tensor src = ember::contiguous(input);
  const uint8_t* in = reinterpret_cast<const uint8_t*>(src.data());
  uint8_t* out = reinterpret_cast<uint8_t*>(output.data());
  constexpr int64_t kChunk = 4096;  // blocks per task
  ember::parallel_for((blocks + kChunk - 1) / kChunk, 1, [&](int64_t cb, int64_t ce) {
    std::vector<uint8_t> buf(16 * kChunk);
    for (int64_t c = cb; c < ce; c++) {
      const int64_t b0 = c * kChunk, nb = std::min(kChunk, blocks - b0);
      // This chunk's input, zero-padded past the end of the input (or, decrypting, past the output's need).
      const int64_t avail =
          std::max<int64_t>(0, std::min<int64_t>(16 * nb, (encrypting ? in_bytes : 16 * blocks) - 16 * b0));
      uint8_t* data = buf.data();
      std::memcpy(data, in + 16 * b0, size_t(avail));
      std::memset(data + avail, 0, size_t(16 * nb - avail));
      if (mode == "ecb") {
        if (encrypting)
          aes128_ecb_encrypt(ks, data, data, nb);
        else
          aes128_ecb_decrypt(ks, data, data, nb);
      } else {
        std::vector<uint8_t> stream(16 * nb);
        aes128_ctr(ks, ctr, uint64_t(b0), nb, stream.data());
        for (int64_t i = 0; i < 16 * nb; i++) data[i] ^= stream[i];
      }
      const int64_t n_out = std::min<int64_t>(16 * nb, take - 16 * b0);
      std::memcpy(out + 16 * b0, data, size_t(n_out));
    }
  });
  output.bump_version();
  return output;
}

Tensor encrypt(const Tensor& input, const Tensor& output, const Tensor& key, const std::string& cipher,
               const std::string& mode, const Tensor& nonce) {
  return crypt(input, output, key, cipher, mode, nonce, true);
}

Tensor decrypt(const Tensor& input, const Tensor& output, const Tensor& key, const std::string& cipher,
               const std::string& mode, const Tensor& nonce) {
  return crypt(input, output, key, cipher, mode, nonce, false);
}

// _force_backend(b): -1 automatic, 0 portable, 1 AES-NI, 2 VAES; returns the backend now active.
int64_t force(int64_t b) {
  try {
    force_backend(int(b));
  } catch (const std::invalid_argument& e) {
    EMBER_FAIL(Value, "embercsprng: ", e.what());
  }
  return int64_t(active_backend());
}

int64_t best() { return int64_t(best_backend()); }

// _keystream(generator, first_block, n_blocks): the generator's raw blocks as bytes (for tests and
// benchmarks: they are exactly AES-128-CTR's keystream under the generator's key).
Tensor keystream(ember::GeneratorImpl* gen, int64_t first, int64_t n, const Tensor& into) {
  EMBER_CHECK(gen, Value, "_keystream: give a csprng generator");
  EMBER_CHECK(n >= 0 && first >= 0, Value, "_keystream: first and n must be non-negative");
  Tensor out = into.defined() ? into : ember::empty({16 * n}, ember::ScalarType::UInt8, ember::Device());
  EMBER_CHECK(out.dtype() == ember::ScalarType::UInt8 && out.is_contiguous() && out.numel() == 16 * n, Value,
              "_keystream: out must be a contiguous uint8 tensor of 16 * n_blocks elements");
  uint8_t* data = reinterpret_cast<uint8_t*>(out.data());
  constexpr int64_t kChunk = 4096;
  ember::parallel_for((n + kChunk - 1) / kChunk, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; c++) {
      const int64_t b0 = c * kChunk, nb = std::min(kChunk, n - b0);
      gen->fill_blocks(uint64_t(first + b0), nb, reinterpret_cast<uint32_t (*)[4]>(data + 16 * b0));
    }
  });
  return out;
}

}  // namespace

}  // namespace embercsprng

EMBER_LIBRARY(csprng, m) {
  using namespace embercsprng;
  m.def("create_random_device_generator(str? token=None) -> Generator", random_device);
  m.def("create_mt19937_generator(int seed=0) -> Generator", mt19937);
  m.def("create_const_generator(Tensor key) -> Generator", const_generator);
  m.def(
      "encrypt(Tensor input, Tensor output, Tensor key, str cipher='aes128', str mode='ecb', Tensor? nonce=None) -> "
      "Tensor",
      encrypt);
  m.def(
      "decrypt(Tensor input, Tensor output, Tensor key, str cipher='aes128', str mode='ecb', Tensor? nonce=None) -> "
      "Tensor",
      decrypt);
  m.def("_force_backend(int backend) -> int", force);
  m.def("_best_backend() -> int", best);
  m.def("_keystream(Generator? generator, int first_block, int n_blocks, Tensor? out=None) -> Tensor", keystream);
}
