// philox.cu -- Philox4x32-10 counter-based random numbers (Salmon et al., SC11), bit-identical to
// src/openreg/philox.py (the NumPy reference of the emulated driver).
//
// The stream of a (seed, offset) pair: word j is philox(counter = {lo(j/4), hi(j/4), 0, 0},
// key = {lo(seed), hi(seed)})[j % 4]; `offset` counts words and is a multiple of 4 (the generator rounds every
// call's consumption up to whole blocks), so thread-block work item b computes counter block offset/4 + b
// once and writes every output that comes from it.
//
//   philox_block(out, in, n)              raw Philox: in = n x {c0, c1, c2, c3, k0, k1}, out = n x 4 words
//   philox_u32(out, seed, offset, n)      out[i] = w[offset + i]
//   philox_uniform_f32(out, ...)          (w >> 8) * 2^-24 in [0, 1)                 one word per value
//   philox_uniform_f64(out, ...)          (((w0 << 32) | w1) >> 11) * 2^-53 in [0, 1)  two words per value
//   philox_normal_f32/f64(out, ...)       Box-Muller in double on word pairs: values 2k, 2k+1 are r*cos, r*sin
//                                         with u1 = (w[2k] + 1) * 2^-32 in (0, 1], u2 = w[2k+1] * 2^-32
//
// Grid-stride loops over counter blocks; the launch configuration is in kernels_random.py.
#include "common.cuh"

namespace openreg {
namespace philox {

struct Words {
  uint32_t x[4];
};

__device__ __forceinline__ Words round10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0,
                                         uint32_t k1) {
  const uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  const uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    if (r) {
      k0 += w0;
      k1 += w1;
    }
    const uint32_t hi0 = __umulhi(m0, c0), lo0 = m0 * c0;
    const uint32_t hi1 = __umulhi(m1, c2), lo1 = m1 * c2;
    const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  Words w;
  w.x[0] = c0;
  w.x[1] = c1;
  w.x[2] = c2;
  w.x[3] = c3;
  return w;
}

__device__ __forceinline__ Words block(uint64_t seed, uint64_t index) {
  return round10(static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0u, 0u,
                 static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

__device__ __forceinline__ int64_t first_item() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ int64_t item_stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

__device__ __forceinline__ float to_unit_f32(uint32_t w) { return static_cast<float>(w >> 8) * 5.9604644775390625e-8f; }

__device__ __forceinline__ double to_unit_f64(uint32_t hi, uint32_t lo) {
  const uint64_t bits = ((static_cast<uint64_t>(hi) << 32) | lo) >> 11;
  return static_cast<double>(bits) * 1.1102230246251565e-16;
}

// Box-Muller on one word pair, in double precision.
__device__ __forceinline__ void box_muller(uint32_t a, uint32_t b, double* z0, double* z1) {
  const double u1 = (static_cast<double>(a) + 1.0) * 2.3283064365386963e-10;
  const double u2 = static_cast<double>(b) * 2.3283064365386963e-10;
  const double r = sqrt(-2.0 * log(u1));
  const double theta = 6.283185307179586 * u2;
  *z0 = r * cos(theta);
  *z1 = r * sin(theta);
}

}  // namespace philox
}  // namespace openreg

extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)
    philox_block(uint32_t* __restrict__ out, const uint32_t* __restrict__ in, int64_t n) {
  for (int64_t i = openreg::philox::first_item(); i < n; i += openreg::philox::item_stride()) {
    const uint32_t* p = in + 6 * i;
    const openreg::philox::Words w = openreg::philox::round10(p[0], p[1], p[2], p[3], p[4], p[5]);
    for (int k = 0; k < 4; ++k) out[4 * i + k] = w.x[k];
  }
}

extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)
    philox_u32(uint32_t* __restrict__ out, uint64_t seed, uint64_t offset, int64_t n) {
  const int64_t blocks = (n + 3) / 4;
  for (int64_t b = openreg::philox::first_item(); b < blocks; b += openreg::philox::item_stride()) {
    const openreg::philox::Words w = openreg::philox::block(seed, offset / 4 + static_cast<uint64_t>(b));
    for (int k = 0; k < 4; ++k) {
      if (4 * b + k < n) out[4 * b + k] = w.x[k];
    }
  }
}

extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)
    philox_uniform_f32(float* __restrict__ out, uint64_t seed, uint64_t offset, int64_t n) {
  const int64_t blocks = (n + 3) / 4;
  for (int64_t b = openreg::philox::first_item(); b < blocks; b += openreg::philox::item_stride()) {
    const openreg::philox::Words w = openreg::philox::block(seed, offset / 4 + static_cast<uint64_t>(b));
    for (int k = 0; k < 4; ++k) {
      if (4 * b + k < n) out[4 * b + k] = openreg::philox::to_unit_f32(w.x[k]);
    }
  }
}

extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)
    philox_uniform_f64(double* __restrict__ out, uint64_t seed, uint64_t offset, int64_t n) {
  const int64_t blocks = (n + 1) / 2;  // two values per counter block
  for (int64_t b = openreg::philox::first_item(); b < blocks; b += openreg::philox::item_stride()) {
    const openreg::philox::Words w = openreg::philox::block(seed, offset / 4 + static_cast<uint64_t>(b));
    out[2 * b] = openreg::philox::to_unit_f64(w.x[0], w.x[1]);
    if (2 * b + 1 < n) out[2 * b + 1] = openreg::philox::to_unit_f64(w.x[2], w.x[3]);
  }
}

#define OPENREG_PHILOX_NORMAL(T, S)                                                                         \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                   \
      philox_normal_##S(T* __restrict__ out, uint64_t seed, uint64_t offset, int64_t n) {                   \
    const int64_t blocks = (n + 3) / 4;                                                                     \
    for (int64_t b = openreg::philox::first_item(); b < blocks; b += openreg::philox::item_stride()) {     \
      const openreg::philox::Words w = openreg::philox::block(seed, offset / 4 + static_cast<uint64_t>(b)); \
      double z[4];                                                                                          \
      openreg::philox::box_muller(w.x[0], w.x[1], &z[0], &z[1]);                                            \
      openreg::philox::box_muller(w.x[2], w.x[3], &z[2], &z[3]);                                            \
      for (int k = 0; k < 4; ++k) {                                                                         \
        if (4 * b + k < n) out[4 * b + k] = static_cast<T>(z[k]);                                           \
      }                                                                                                     \
    }                                                                                                       \
  }

OPENREG_PHILOX_NORMAL(float, f32)
OPENREG_PHILOX_NORMAL(double, f64)
