// Type promotion with PyTorch's rules: promote_types, can_cast, and result_type over operands
// where dimensioned tensors outrank 0-dim tensors, which outrank Python numbers, per category.
#pragma once
#include "types/dtype.h"

namespace ember {

ScalarType promote_types(ScalarType a, ScalarType b);
bool can_cast(ScalarType from, ScalarType to);

ScalarType default_dtype();  // float32 unless set_default_dtype changed it
void set_default_dtype(ScalarType t);
inline ScalarType default_complex_dtype() { return to_complex(default_dtype()); }

// Folds operands one by one; ask result() at the end.
struct ResultTypeState {
  ScalarType dim = ScalarType::Undefined, zero = ScalarType::Undefined, wrapped = ScalarType::Undefined;
  // `wrapped_number`: a Python number; its dtype is its natural one (bool, int64, float64, complex128).
  void add(ScalarType t, int64_t ndim, bool wrapped_number);
  ScalarType result() const;
};

}  // namespace ember
