// Intrusive reference counting: objects carry their own atomic count, handles are one pointer wide.
#pragma once
#include <atomic>
#include <utility>

namespace ember {

struct RefCounted {
  mutable std::atomic<int64_t> refcount_{0};
  virtual ~RefCounted() = default;
};

template <class T>
class IntrusivePtr {
  T* p_ = nullptr;

 public:
  IntrusivePtr() = default;
  explicit IntrusivePtr(T* p) : p_(p) {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  IntrusivePtr(const IntrusivePtr& o) : IntrusivePtr(o.p_) {}
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  IntrusivePtr& operator=(IntrusivePtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~IntrusivePtr() { reset(); }
  void reset() {
    if (p_ && p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
    p_ = nullptr;
  }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  int64_t use_count() const { return p_ ? p_->refcount_.load() : 0; }
  bool operator==(const IntrusivePtr& o) const { return p_ == o.p_; }
};

template <class T, class... A>
IntrusivePtr<T> make_intrusive(A&&... a) {
  return IntrusivePtr<T>(new T(std::forward<A>(a)...));
}

}  // namespace ember
