// bf16.cuh -- bfloat16 as 16-bit words: widening to float32 (exact: a bfloat16 is the top half of a float32) and
// rounding a float32 to the nearest even word, NaN as PyTorch's canonical 0x7FC0.  Used by bf16.cu,
// bf16_reduce.cu and attention.cu.
#pragma once
#include "common.cuh"

namespace openreg {

union Bits32 {
  uint32_t u;
  float f;
};

__device__ __forceinline__ float bf16_to_float(uint16_t h) {
  Bits32 v;
  v.u = static_cast<uint32_t>(h) << 16;
  return v.f;
}

__device__ __forceinline__ uint16_t float_to_bf16(float f) {
  Bits32 v;
  v.f = f;
  if ((v.u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>(0x7FC0u);
  const uint32_t rounding = ((v.u >> 16) & 1u) + 0x7FFFu;
  return static_cast<uint16_t>((v.u + rounding) >> 16);
}

}  // namespace openreg
