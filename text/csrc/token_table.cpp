#include "token_table.h"

#include <sys/mman.h>

#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>

namespace embertext {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;

size_t capacity_for(size_t count) {
  size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;
  return capacity;
}

void check_index(int64_t index) {
  if (index > std::numeric_limits<int32_t>::max()) throw std::length_error("Vocab: more than 2^31 - 1 tokens");
}
}  // namespace

void TokenTable::FreeSlots::operator()(Slot* p) const { std::free(p); }

void TokenTable::place(std::string_view token, int64_t index) {
  Probe probe(token);
  Slot slot{static_cast<uint32_t>(probe.hash >> 32), static_cast<int32_t>(index), nullptr, {}};
  std::memcpy(slot.key, probe.key, sizeof(slot.key));
  size_t mask = capacity_ - 1;
  size_t at = probe.hash & mask;
  while (slots_.get()[at].index >= 0) at = (at + 1) & mask;
  slots_.get()[at] = slot;
  ++used_;
}

void TokenTable::assign(const std::vector<std::string>& tokens) {
  if (!tokens.empty()) check_index(static_cast<int64_t>(tokens.size()) - 1);
  size_t capacity = capacity_for(tokens.size());
  size_t bytes = capacity * sizeof(Slot);
  bool huge = bytes >= kHugePage;
  void* memory = std::aligned_alloc(huge ? kHugePage : alignof(Slot), bytes);
  if (!memory) throw std::bad_alloc();
  if (huge) madvise(memory, bytes, MADV_HUGEPAGE);  // advice only: where refused, lookups are just slower
  slots_.reset(static_cast<Slot*>(memory));
  capacity_ = capacity;
  for (size_t i = 0; i < capacity; ++i) slots_.get()[i] = Slot{0, -1, nullptr, {}};
  used_ = 0;
  ++generation_;
  for (size_t i = 0; i < tokens.size(); ++i) place(tokens[i], static_cast<int64_t>(i));
}

void TokenTable::add(std::string_view token, int64_t index, const std::vector<std::string>& tokens) {
  check_index(index);
  if (2 * (used_ + 1) > capacity_) {
    assign(tokens);  // grows; `tokens` already holds the new token at `index`
    return;
  }
  place(token, index);
}

void TokenTable::attach(const std::vector<void*>& payloads) {
  for (size_t i = 0; i < capacity_; ++i) {
    Slot& slot = slots_.get()[i];
    if (slot.index >= 0) slot.payload = payloads[slot.index];
  }
}

void TokenTable::attach(std::string_view token, const std::vector<std::string>& tokens, void* payload) {
  if (const Slot* slot = find_slot(Probe(token), tokens)) const_cast<Slot*>(slot)->payload = payload;
}

}  // namespace embertext
