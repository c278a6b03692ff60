// The state of ember.use_deterministic_algorithms that kernels read: whether the memory that
// empty/empty_like/empty_strided hand out is filled (NaN for floats, the largest value for integers,
// True for bool), as PyTorch does under deterministic mode with fill_uninitialized_memory on.
// ember/_deterministic.py keeps the Python-side settings and sets this one (determinism.cpp).
#pragma once

namespace ember {

bool fill_uninitialized_memory();
void set_fill_uninitialized_memory(bool on);

}  // namespace ember
