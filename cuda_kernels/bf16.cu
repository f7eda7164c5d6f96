// bf16.cu -- elementwise bfloat16 arithmetic, widened per element: bfloat16 has no storage type of its own, so
// tensors hold the raw 16-bit words.  Each thread widens its elements to float32 in registers, computes in
// float32 (PyTorch's opmath type for bfloat16) and rounds once to nearest even; a NaN result is the canonical
// 0x7FC0.  No operand is ever widened into a float32 copy in memory.
//
//   bf16_<op>_contig_bf16(out, a, b, float alpha, n)      binary, all three dense and in the same order
//   bf16_<op>_strided_bf16(out, a, b, float alpha, geom)  binary, any layouts; broadcasting as zero strides
//   bf16_<op>_scalar_contig_bf16(out, a, float b, n)      binary with a float32 scalar b (alpha applied)
//   bf16_<op>_scalar_strided_bf16(out, a, float b, geom)
//   bf16_<op>_contig_bf16(out, in, n)                     unary, both dense: 16-byte vectors (pointwise.cuh)
//   bf16_<op>_strided_bf16(out, in, geom)                 unary, any layouts
//
// binary ops: add (a + alpha*b), sub (a - alpha*b), mul (a*b), div (a/b); alpha is 1 for mul and div.  The product
// alpha*b is rounded to float32 before the sum (no FMA contraction), as the array-module reference computes it.
// unary ops: neg, relu (NumPy's maximum(x, 0): NaN propagates, -0 gives +0), exp, log, tanh, sigmoid (1/(1+exp(-x)),
// the reference's formula, in float32).
// In-place (out == an input, same elements) is allowed: each element is read before it is written by the same
// thread.  Launch: 1-D grid of OPENREG_POINTWISE_THREADS-thread blocks, grid-stride loops (kernels.py).
#include "common.cuh"
#include "indexing.cuh"
#include "pointwise.cuh"

namespace openreg {

static_assert(sizeof(StridedGeometry<3>) == 336, "StridedGeometry<3> layout must match kernels.py");

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

#if defined(OPENREG_HOST_EMULATION)
__forceinline__ float mul_rn(float a, float b) {
  volatile float p = a * b;  // keeps the host compiler from contracting into an FMA
  return p;
}
#else
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
#endif

// -- binary ---------------------------------------------------------------------------------------------------
struct Bf16Add {
  __device__ __forceinline__ float operator()(float a, float b, float alpha) const {
    return a + (alpha == 1.0f ? b : mul_rn(alpha, b));
  }
};
struct Bf16Sub {
  __device__ __forceinline__ float operator()(float a, float b, float alpha) const {
    return a - (alpha == 1.0f ? b : mul_rn(alpha, b));
  }
};
struct Bf16Mul {
  __device__ __forceinline__ float operator()(float a, float b, float) const { return mul_rn(a, b); }
};
struct Bf16Div {
  __device__ __forceinline__ float operator()(float a, float b, float) const { return a / b; }
};

template <typename Op>
__device__ __forceinline__ void bf16_binary_contig(uint16_t* out, const uint16_t* a, const uint16_t* b, float alpha,
                                                   int64_t n, Op op) {
  const int64_t nthreads = global_thread_count();
  for (int64_t i = global_thread_id(); i < n; i += nthreads)
    out[i] = float_to_bf16(op(bf16_to_float(a[i]), bf16_to_float(b[i]), alpha));
}

template <typename Op>
__device__ __forceinline__ void bf16_binary_strided(uint16_t* out, const uint16_t* a, const uint16_t* b, float alpha,
                                                    const StridedGeometry<3>& g, Op op) {
  const int64_t nthreads = global_thread_count();
  for (int64_t i = global_thread_id(); i < g.numel; i += nthreads) {
    int64_t off[3];
    strided_offsets(g, i, off);
    out[off[0]] = float_to_bf16(op(bf16_to_float(a[off[1]]), bf16_to_float(b[off[2]]), alpha));
  }
}

// -- binary with a scalar: b is a float32 kernel argument (a Python number, already scaled by alpha) ------------
template <typename Op>
struct Bf16WithScalar {
  float b;
  __device__ __forceinline__ uint16_t operator()(uint16_t x) const {
    return float_to_bf16(Op()(bf16_to_float(x), b, 1.0f));
  }
};

// -- unary: a float32 function applied to the widened word, rounded once ----------------------------------------
template <typename F>
struct Bf16Unary {
  __device__ __forceinline__ uint16_t operator()(uint16_t x) const { return float_to_bf16(F()(bf16_to_float(x))); }
};
struct Neg {
  __device__ __forceinline__ float operator()(float x) const { return -x; }
};
struct Relu {
  __device__ __forceinline__ float operator()(float x) const { return (x > 0.0f || x != x) ? x : 0.0f; }
};
struct Exp {
  __device__ __forceinline__ float operator()(float x) const { return expf(x); }
};
struct Log {
  __device__ __forceinline__ float operator()(float x) const { return logf(x); }
};
struct Tanh {
  __device__ __forceinline__ float operator()(float x) const { return tanhf(x); }
};
struct Sigmoid {
  __device__ __forceinline__ float operator()(float x) const { return 1.0f / (1.0f + expf(-x)); }
};

}  // namespace openreg

#define OPENREG_BF16_BINARY_KERNELS(NAME, OP)                                                                  \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                      \
      bf16_##NAME##_contig_bf16(uint16_t* out, const uint16_t* a, const uint16_t* b, float alpha, int64_t n) {  \
    openreg::bf16_binary_contig(out, a, b, alpha, n, openreg::OP());                                           \
  }                                                                                                            \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                      \
      bf16_##NAME##_strided_bf16(uint16_t* out, const uint16_t* a, const uint16_t* b, float alpha,            \
                                 openreg::StridedGeometry<3> geom) {                                           \
    openreg::bf16_binary_strided(out, a, b, alpha, geom, openreg::OP());                                       \
  }

#define OPENREG_BF16_SCALAR_KERNELS(NAME, OP)                                                                  \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                      \
      bf16_##NAME##_scalar_contig_bf16(uint16_t* out, const uint16_t* a, float b, int64_t n) {                 \
    openreg::pointwise_contig(out, a, n, openreg::Bf16WithScalar<openreg::OP>{b});                             \
  }                                                                                                            \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                      \
      bf16_##NAME##_scalar_strided_bf16(uint16_t* out, const uint16_t* a, float b,                             \
                                        openreg::StridedGeometry<2> geom) {                                    \
    openreg::pointwise_strided(out, a, geom, openreg::Bf16WithScalar<openreg::OP>{b});                         \
  }

#define OPENREG_BF16_UNARY_KERNELS(NAME, FN)                                                                   \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                      \
      bf16_##NAME##_contig_bf16(uint16_t* out, const uint16_t* in, int64_t n) {                                \
    openreg::pointwise_contig(out, in, n, openreg::Bf16Unary<openreg::FN>());                                  \
  }                                                                                                            \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                      \
      bf16_##NAME##_strided_bf16(uint16_t* out, const uint16_t* in, openreg::StridedGeometry<2> geom) {        \
    openreg::pointwise_strided(out, in, geom, openreg::Bf16Unary<openreg::FN>());                              \
  }

OPENREG_BF16_BINARY_KERNELS(add, Bf16Add)
OPENREG_BF16_BINARY_KERNELS(sub, Bf16Sub)
OPENREG_BF16_BINARY_KERNELS(mul, Bf16Mul)
OPENREG_BF16_BINARY_KERNELS(div, Bf16Div)
OPENREG_BF16_SCALAR_KERNELS(add, Bf16Add)
OPENREG_BF16_SCALAR_KERNELS(sub, Bf16Sub)
OPENREG_BF16_SCALAR_KERNELS(mul, Bf16Mul)
OPENREG_BF16_SCALAR_KERNELS(div, Bf16Div)
OPENREG_BF16_UNARY_KERNELS(neg, Neg)
OPENREG_BF16_UNARY_KERNELS(relu, Relu)
OPENREG_BF16_UNARY_KERNELS(exp, Exp)
OPENREG_BF16_UNARY_KERNELS(log, Log)
OPENREG_BF16_UNARY_KERNELS(tanh, Tanh)
OPENREG_BF16_UNARY_KERNELS(sigmoid, Sigmoid)
