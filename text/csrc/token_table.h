// The hash table behind Vocab: token -> index in a flat, open-addressed array (linear probing, at most half
// full). A 32-byte slot holds 32 bits of the token's hash, its index, a pointer its owner may attach (the
// Python binding: the index's int object) and the token's first 15 bytes with its length, so a token of at
// most 15 bytes (nearly every word) is found, confirmed and answered from one cache line; a longer one
// compares the rest against the vocabulary's own string. The hash is our own over the UTF-8 bytes, so a
// fresh Python str costs no more than one whose hash Python has cached. A table of 2 MiB or more asks for
// huge pages: lookups land on random slots, and with 4 KiB pages nearly each one missed the TLB.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace embertext {

// A fast, non-cryptographic 64-bit hash of bytes: 8-byte words folded by multiplication, then
// splitmix64's finaliser so the low bits (the table's index) depend on every byte.
inline uint64_t hash_token(const char* data, size_t size) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h = (size + 1) * 0xC2B2AE3D27D4EB4Full;
  for (; size >= 8; data += 8, size -= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);
    h = (h ^ word) * kMul;
    h ^= h >> 29;
  }
  if (size > 0) {
    uint64_t word = 0;
    std::memcpy(&word, data, size);
    h = (h ^ word) * kMul;
  }
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

class TokenTable {
 public:
  static constexpr size_t kHead = 15;
  struct Found {
    int64_t index;  // -1: absent
    void* payload;  // what attach() set for this token, else nullptr
  };

  // Rebuilds the table for tokens[i] -> i (tokens must be distinct); attached pointers are dropped.
  void assign(const std::vector<std::string>& tokens);
  // Adds token -> index (the token must be absent); `tokens` is the vocabulary after the addition.
  void add(std::string_view token, int64_t index, const std::vector<std::string>& tokens);
  // Sets each slot's pointer to payloads[its index] (payloads.size() == the number of tokens).
  void attach(const std::vector<void*>& payloads);
  // Sets one present token's pointer.
  void attach(std::string_view token, const std::vector<std::string>& tokens, void* payload);
  // Counts assign() calls, so an owner can tell its attached pointers were dropped.
  uint64_t generation() const { return generation_; }

  // A token to look up, hashed and its slot key built once, so each candidate slot is compared as two words.
  struct Probe {
    Probe() = default;
    explicit Probe(std::string_view token) : text(token), hash(hash_token(token.data(), token.size())) {
      char bytes[16] = {};
      std::memcpy(bytes, token.data(), token.size() < kHead ? token.size() : kHead);
      bytes[kHead] = static_cast<char>(token.size() < 255 ? token.size() : 255);
      std::memcpy(key, bytes, sizeof(key));
    }
    std::string_view text;
    uint64_t hash = 0;
    uint64_t key[2] = {0, 0};
  };

  // Starts loading the probe's first slot, so a batch's cache misses overlap instead of queueing.
  void prefetch(const Probe& probe) const {
    if (capacity_ != 0) __builtin_prefetch(slots_.get() + (probe.hash & (capacity_ - 1)));
  }
  Found lookup(const Probe& probe, const std::vector<std::string>& tokens) const {
    const Slot* slot = find_slot(probe, tokens);
    return slot ? Found{slot->index, slot->payload} : Found{-1, nullptr};
  }
  Found lookup(std::string_view token, const std::vector<std::string>& tokens) const {
    return lookup(Probe(token), tokens);
  }
  int64_t find(std::string_view token, const std::vector<std::string>& tokens) const {
    return lookup(Probe(token), tokens).index;
  }

 private:
  struct Slot {
    uint32_t hash;
    int32_t index;  // -1: empty
    void* payload;
    char key[16];  // the first kHead bytes, zero-padded, then min(length, 255)
  };
  static_assert(sizeof(Slot) == 32, "two slots a cache line");

  const Slot* find_slot(const Probe& probe, const std::vector<std::string>& tokens) const {
    if (capacity_ == 0) return nullptr;
    std::string_view token = probe.text;
    size_t mask = capacity_ - 1;
    for (size_t at = probe.hash & mask;; at = (at + 1) & mask) {
      const Slot& slot = slots_.get()[at];
      if (slot.index < 0) return nullptr;
      if (slot.hash != static_cast<uint32_t>(probe.hash >> 32)) continue;
      uint64_t key[2];
      std::memcpy(key, slot.key, sizeof(key));
      if (key[0] != probe.key[0] || key[1] != probe.key[1]) continue;
      if (token.size() <= kHead || std::string_view(tokens[slot.index]).substr(kHead) == token.substr(kHead)) {
        return &slot;
      }
    }
  }
  void place(std::string_view token, int64_t index);

  struct FreeSlots {
    void operator()(Slot* p) const;
  };
  std::unique_ptr<Slot, FreeSlots> slots_;
  size_t capacity_ = 0;
  size_t used_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace embertext
