// The recorded boxed call of an op-table entry: autograd (and forward-mode AD) for extension ops.
#pragma once
#include "dispatch/op_table.h"

namespace ember::autograd {

// entry.call(stack), recording a backward node when a tensor argument requires grad.
void call_boxed(const OpEntry& entry, Stack& stack);

}  // namespace ember::autograd
