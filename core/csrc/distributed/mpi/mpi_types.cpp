// MPI datatypes and reductions for ember's element types; the user-defined float16/bfloat16 reductions.
#include "distributed/mpi/mpi_types.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>

namespace ember::distributed::mpi {

namespace {

float bf16_to_float(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint16_t float_to_bf16(float f) {  // round to nearest even; NaN stays NaN
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

float f16_to_float(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof h);
  return static_cast<float>(h);
}

uint16_t float_to_f16(float f) {
  _Float16 h = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

struct Minimum {
  float operator()(float a, float b) const { return a != a ? a : (b < a ? b : a); }  // NaN propagates
};
struct Maximum {
  float operator()(float a, float b) const { return a != a ? a : (b > a ? b : a); }
};

// MPI calls fn(in, inout): inout[i] = in[i] op inout[i], on 16-bit words decoded to float.
template <float (*Decode)(uint16_t), uint16_t (*Encode)(float), typename Op>
void half_reduce(void* in, void* inout, MPI_Count* len, MPI_Datatype*) {
  auto x = static_cast<const uint16_t*>(in);
  auto y = static_cast<uint16_t*>(inout);
  for (MPI_Count i = 0; i < *len; ++i) y[i] = Encode(Op{}(Decode(x[i]), Decode(y[i])));
}

template <float (*Decode)(uint16_t), uint16_t (*Encode)(float)>
MPI_User_function_c* half_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
      return &half_reduce<Decode, Encode, std::plus<float>>;
    case ReduceOp::PRODUCT:
      return &half_reduce<Decode, Encode, std::multiplies<float>>;
    case ReduceOp::MIN:
      return &half_reduce<Decode, Encode, Minimum>;
    case ReduceOp::MAX:
      return &half_reduce<Decode, Encode, Maximum>;
    default:
      throw std::invalid_argument("Cannot use this ReduceOp (BAND/BOR/BXOR) with floating-point tensors");
  }
}

constexpr int kOps = 4;  // SUM, PRODUCT, MIN, MAX
std::mutex user_ops_mutex;
MPI_Op user_ops[2][kOps];  // [float16, bfloat16][op], created on first use
bool user_ops_made[2][kOps] = {};

MPI_Op half_op(ElemType type, ReduceOp op) {
  int t = type == ElemType::Float16 ? 0 : 1;
  MPI_User_function_c* fn =
      t == 0 ? half_fn<f16_to_float, float_to_f16>(op) : half_fn<bf16_to_float, float_to_bf16>(op);
  int o = static_cast<int>(op);
  std::lock_guard<std::mutex> lock(user_ops_mutex);
  if (!user_ops_made[t][o]) {
    check(MPI_Op_create_c(fn, 1, &user_ops[t][o]), "MPI_Op_create_c");
    user_ops_made[t][o] = true;
  }
  return user_ops[t][o];
}

}  // namespace

void check(int rc, const std::string& what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw DistBackendError(what + " failed: " + (length ? std::string(text, length) : "MPI error " + std::to_string(rc)));
}

MPI_Datatype datatype(ElemType type) {
  switch (type) {
    case ElemType::Float32:
      return MPI_FLOAT;
    case ElemType::Float64:
      return MPI_DOUBLE;
    case ElemType::Int32:
      return MPI_INT32_T;
    case ElemType::Int64:
      return MPI_INT64_T;
    case ElemType::Int8:
      return MPI_INT8_T;
    case ElemType::UInt8:
    case ElemType::Bool:  // bytes 0/1
      return MPI_UINT8_T;
    case ElemType::Float16:
    case ElemType::BFloat16:
      return MPI_UINT16_T;
  }
  throw std::invalid_argument("ProcessGroupMPI: unsupported element type");
}

MPI_Op reduce_op(ElemType type, ReduceOp op) {
  if (type == ElemType::Float16 || type == ElemType::BFloat16) return half_op(type, op);
  if (type == ElemType::Bool) {  // SUM and MAX are a logical or, PRODUCT and MIN a logical and (PyTorch's results)
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::MAX:
      case ReduceOp::BOR:
        return MPI_BOR;
      case ReduceOp::PRODUCT:
      case ReduceOp::MIN:
      case ReduceOp::BAND:
        return MPI_BAND;
      case ReduceOp::BXOR:
        return MPI_BXOR;
    }
  }
  bool floating = type == ElemType::Float32 || type == ElemType::Float64;
  switch (op) {
    case ReduceOp::SUM:
      return MPI_SUM;
    case ReduceOp::PRODUCT:
      return MPI_PROD;
    case ReduceOp::MIN:
      return MPI_MIN;
    case ReduceOp::MAX:
      return MPI_MAX;
    default:
      break;
  }
  if (floating) throw std::invalid_argument("Cannot use this ReduceOp (BAND/BOR/BXOR) with floating-point tensors");
  if (op == ReduceOp::BAND) return MPI_BAND;
  if (op == ReduceOp::BOR) return MPI_BOR;
  return MPI_BXOR;
}

void free_user_ops() {
  std::lock_guard<std::mutex> lock(user_ops_mutex);
  for (int t = 0; t < 2; ++t)
    for (int o = 0; o < kOps; ++o)
      if (user_ops_made[t][o]) {
        MPI_Op_free(&user_ops[t][o]);
        user_ops_made[t][o] = false;
      }
}

}  // namespace ember::distributed::mpi
