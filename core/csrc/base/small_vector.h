// SmallVec: a vector of trivially copyable values with inline room for N, spilling to the heap beyond.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <ostream>
#include <type_traits>

namespace ember {

template <class T, int N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>);
  T* data_ = inline_;
  int64_t size_ = 0, cap_ = N;
  T inline_[N];

  void grow(int64_t want) {
    // sizeof(T) * cap must not wrap around (DimVec(2**62) would get a tiny block and overrun it).
    if (want < 0 || uint64_t(want) > uint64_t(PTRDIFF_MAX) / sizeof(T)) throw std::bad_alloc();
    int64_t cap = cap_ * 2 > want && uint64_t(cap_) * 2 <= uint64_t(PTRDIFF_MAX) / sizeof(T) ? cap_ * 2 : want;
    T* p = static_cast<T*>(std::malloc(sizeof(T) * cap));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, data_, sizeof(T) * size_);
    if (data_ != inline_) std::free(data_);
    data_ = p;
    cap_ = cap;
  }

 public:
  SmallVec() = default;
  explicit SmallVec(int64_t n, T v = T()) { resize(n, v); }
  SmallVec(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
  SmallVec(const T* b, const T* e) { assign(b, e); }
  SmallVec(const SmallVec& o) { assign(o.begin(), o.end()); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  ~SmallVec() {
    if (data_ != inline_) std::free(data_);
  }
  void assign(const T* b, const T* e) {
    int64_t n = e - b;
    if (n > cap_) grow(n);
    if (n) std::memmove(data_, b, sizeof(T) * n);
    size_ = n;
  }
  void resize(int64_t n, T v = T()) {
    if (n > cap_) grow(n);
    for (int64_t i = size_; i < n; i++) data_[i] = v;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) grow(size_ + 1);
    data_[size_++] = v;
  }
  void insert(int64_t pos, T v) {
    push_back(v);
    std::memmove(data_ + pos + 1, data_ + pos, sizeof(T) * (size_ - 1 - pos));
    data_[pos] = v;
  }
  void erase(int64_t pos) {
    std::memmove(data_ + pos, data_ + pos + 1, sizeof(T) * (size_ - 1 - pos));
    size_--;
  }
  void clear() { size_ = 0; }
  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](int64_t i) { return data_[i]; }
  const T& operator[](int64_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  bool operator==(const SmallVec& o) const {
    return size_ == o.size_ && (size_ == 0 || std::memcmp(data_, o.data_, sizeof(T) * size_) == 0);
  }
  bool operator!=(const SmallVec& o) const { return !(*this == o); }
};

using DimVec = SmallVec<int64_t, 6>;

inline std::ostream& operator<<(std::ostream& os, const DimVec& v) {
  os << "[";
  for (int64_t i = 0; i < v.size(); i++) os << (i ? ", " : "") << v[i];
  return os << "]";
}

}  // namespace ember
