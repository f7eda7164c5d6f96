// indexing.cuh -- linear index -> element offsets for up to 8 dims and N operands, 64-bit offsets.
//
// The launcher (kernels.py) coalesces dims, orders them so the last one is the fastest-moving for
// the output, and fills a StridedGeometry<N> that is passed to the kernel by value (it lives in the
// constant parameter bank).  Sizes and strides are in elements; strides may be zero (broadcast) or negative.
//
// Division by the dim sizes uses precomputed magic numbers (Granlund-Montgomery, as PyTorch's IntDivider)
// when numel < 2^31: a 32-bit mul.hi + add + shift instead of a ~70-instruction 64-bit division.
#pragma once
#include "common.cuh"

#define OPENREG_MAX_DIMS 8

namespace openreg {

template <int N>
struct StridedGeometry {
  int64_t numel;
  int32_t ndim;
  int32_t use_fastdiv;                  // 1: numel < 2^31 and div_magic/div_shift are valid
  int64_t sizes[OPENREG_MAX_DIMS];      // dims [0, ndim) used, the last is innermost
  uint32_t div_magic[OPENREG_MAX_DIMS];
  uint32_t div_shift[OPENREG_MAX_DIMS];
  int64_t strides[N][OPENREG_MAX_DIMS]; // strides[k][d]: operand k (0 is the output), dim d
};

static_assert(sizeof(StridedGeometry<1>) == 208, "StridedGeometry<1> layout must match kernels.py");
static_assert(sizeof(StridedGeometry<2>) == 272, "StridedGeometry<2> layout must match kernels.py");

// Fills off[k] with the element offset of linear index `linear` in operand k.
// The loop is fully unrolled with a uniform `d < ndim` guard so the geometry is only ever indexed with
// compile-time constants: it stays in the parameter bank instead of being copied to local memory.
template <int N>
__device__ __forceinline__ void strided_offsets(const StridedGeometry<N>& g, int64_t linear, int64_t (&off)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  if (g.use_fastdiv) {
    uint32_t rem = static_cast<uint32_t>(linear);
#pragma unroll
    for (int d = OPENREG_MAX_DIMS - 1; d >= 0; --d) {
      if (d < g.ndim) {
        const uint32_t q = (__umulhi(rem, g.div_magic[d]) + rem) >> g.div_shift[d];
        const uint32_t idx = rem - q * static_cast<uint32_t>(g.sizes[d]);
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] += static_cast<int64_t>(idx) * g.strides[k][d];
        rem = q;
      }
    }
  } else {
    int64_t rem = linear;
#pragma unroll
    for (int d = OPENREG_MAX_DIMS - 1; d >= 0; --d) {
      if (d < g.ndim) {
        const int64_t q = rem / g.sizes[d];
        const int64_t idx = rem - q * g.sizes[d];
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] += idx * g.strides[k][d];
        rem = q;
      }
    }
  }
}

// Grid-stride loop bounds for a 1-D launch.
__device__ __forceinline__ int64_t global_thread_id() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t global_thread_count() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

}  // namespace openreg
