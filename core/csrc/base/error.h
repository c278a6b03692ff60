// Errors: EMBER_CHECK throws ember::Error tagged with the Python exception type it becomes.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

enum class ErrorKind { Runtime, Value, Type, Index, NotImplemented, ZeroDivision };

struct Error : std::runtime_error {
  ErrorKind kind;
  Error(ErrorKind k, const std::string& msg) : std::runtime_error(msg), kind(k) {}
};

template <class... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

}  // namespace ember

#define EMBER_CHECK(cond, kind, ...)                                                                                 \
  do {                                                                                                               \
    if (__builtin_expect(!(cond), 0)) throw ::ember::Error(::ember::ErrorKind::kind, ::ember::str_cat(__VA_ARGS__)); \
  } while (0)

#define EMBER_FAIL(kind, ...) throw ::ember::Error(::ember::ErrorKind::kind, ::ember::str_cat(__VA_ARGS__))
