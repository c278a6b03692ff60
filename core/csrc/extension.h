// The one header a C++ extension includes (#include <ember/extension.h>): tensors, factories, copies,
// dtype dispatch, parallel loops, errors, the generator interface, every core op (ember::ops::add,
// ...), and the op table with EMBER_LIBRARY registration.
#pragma once
#include "base/error.h"
#include "device/generator.h"
#include "device/parallel.h"
#include "dispatch/library.h"
#include "dispatch/op_table.h"
#include "generated/ops.h"
#include "iter/copy.h"
#include "jit/custom_class.h"
#include "tensor/factory.h"
#include "tensor/tensor_impl.h"
#include "types/dtype.h"
#include "types/scalar.h"
