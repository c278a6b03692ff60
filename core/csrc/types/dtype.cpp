// Names of the element types, as Python spells them after "ember.".
#include "types/dtype.h"

namespace ember {

const char* dtype_name(ScalarType t) {
  static const char* names[] = {"bool",     "uint8",   "int8",    "int16",     "int32",      "int64",    "float16",
                                "bfloat16", "float32", "float64", "complex64", "complex128", "undefined"};
  return names[int(t)];
}

}  // namespace ember
