// bf16.cu -- elementwise bfloat16 work, widened per element: bfloat16 has no storage type of its own, so
// tensors hold the raw 16-bit words.  Each thread widens its elements to float32 in registers, computes in
// float32 (PyTorch's opmath type for bfloat16) and rounds once to nearest even; a NaN result is the canonical
// 0x7FC0.  No operand is ever widened into a float32 copy in memory.
//
//   bf16_<op>_contig_<dts>(out, a, b, float alpha, n)           binary, all three dense and in the same order
//   bf16_<op>_strided_<dts>(out, a, b, float alpha, geom)       binary, any layouts; broadcasting as zero strides
//   bf16_<op>_scalar_contig_<dts>(out, a, float b, float alpha, n)   binary with a float32 scalar b
//   bf16_<op>_scalar_strided_<dts>(out, a, float b, float alpha, geom)
//   bf16_<op>_contig_bf16(out, in, n)                           unary, both dense: 16-byte vectors (pointwise.cuh)
//   bf16_<op>_strided_bf16(out, in, geom)                       unary, any layouts
//   bf16_copy_{contig,strided}_<out>_from_<in>(out, in, n|geom) conversions to and from bfloat16
//
// <dts> is "bf16" when every operand is bfloat16, else "<out>_from_<a>[_from_<b>]" (kernels.kernel_name):
// comparisons write bool (b8), and the mixed kernels take one float32 operand and write float32 (PyTorch's
// promotion of bfloat16 with float32).
// binary ops: add (a + alpha*b), sub (a - alpha*b), mul, div, pow (powf; with a scalar exponent 0.5: sqrt),
// gelu_backward / gelu_tanh_backward (a is the gradient, b the input), and the comparisons eq ne lt le gt ge; alpha is 1 except for add and sub.  Scalar ops:
// the same plus rsub (b - alpha*a); add/sub get alpha*b precomputed on the host, as the reference scales it.
// Every product that feeds a sum is rounded to float32 first (no FMA contraction), as the array-module reference
// computes it.
// unary ops: neg, relu (NumPy's maximum(x, 0): NaN propagates, -0 gives +0), exp, log, tanh, sigmoid
// (1/(1+exp(-x))), abs, sqrt, rsqrt (1/sqrt(x), two roundings), sin, cos (see
// sin_cos_bf16), gelu (x/2 (1 + erf(x/sqrt 2)), erf by the
// reference's float32 formula: a short series below 0.5, Abramowitz & Stegun 7.1.26 above) and gelu_tanh.
// Conversions follow openreg::convert through float32: to bfloat16 every dtype goes through float32 first (a
// float64 is rounded twice, as PyTorch's conversions do), from bfloat16 the exact float32 value is converted.
// In-place (out == an input, same elements) is allowed: each element is read before it is written by the same
// thread.  Launch: 1-D grid of OPENREG_POINTWISE_THREADS-thread blocks, grid-stride loops (kernels.py).
#include "bf16.cuh"
#include "common.cuh"
#include "indexing.cuh"
#include "pointwise.cuh"

namespace openreg {

static_assert(sizeof(StridedGeometry<3>) == 336, "StridedGeometry<3> layout must match kernels.py");

// Operands: bfloat16 words widen exactly, float32 is itself.
__device__ __forceinline__ float widen(uint16_t w) { return bf16_to_float(w); }
__device__ __forceinline__ float widen(float x) { return x; }

// Results: rounded once to bfloat16 words, kept as float32, or a comparison's bool.
template <typename Out>
__device__ __forceinline__ Out narrow(float r) {
  if constexpr (is_same<Out, uint16_t>::value) {
    return float_to_bf16(r);
  } else {
    return r;
  }
}
template <typename Out>
__device__ __forceinline__ Out narrow(bool r) {
  return r;
}

#if defined(OPENREG_HOST_EMULATION)
__forceinline__ float mul_rn(float a, float b) {
  volatile float p = a * b;  // keeps the host compiler from contracting into an FMA
  return p;
}
#else
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
#endif

// -- the reference's float32 erf (special_functions._erf_f32), step by step --------------------------------------
__device__ __forceinline__ float erf_f32(float x) {
  const float a = fabsf(x);
  const float x2 = mul_rn(x, x);
  const float series[8] = {1.128379225730896f,    -0.37612637877464294f,  0.11283791810274124f,
                           -0.02686617150902748f, 0.005223977845162153f,  -0.0008548327023163438f,
                           0.00012055332626914605f, -1.4925650248187594e-05f};
  float acc = series[7];
#pragma unroll
  for (int i = 6; i >= 0; --i) acc = mul_rn(acc, x2) + series[i];
  acc = mul_rn(acc, x);
  const float t = 1.0f / (mul_rn(a, 0.32759109139442444f) + 1.0f);
  const float as[5] = {0.2548295855522156f, -0.2844967246055603f, 1.421413779258728f, -1.453152060508728f,
                       1.0614054203033447f};
  float poly = as[4];
#pragma unroll
  for (int i = 3; i >= 0; --i) poly = mul_rn(poly, t) + as[i];
  poly = mul_rn(poly, t);
  poly = 1.0f - mul_rn(poly, expf(-x2));
  poly = copysignf(poly, x);
  return a < 0.5f ? acc : poly;
}

// -- sin and cos of a bfloat16 value, in double precision and without libm's slow path -----------------------------
// sinf/cosf carry a Payne-Hanek reduction for huge arguments that keeps an array on the stack; a bfloat16 x is
// M * 2^E with an 8-bit integer M, so x mod 2 pi is M * (2^E mod 2 pi) mod 2 pi, exact enough in double from this
// table (2^e mod 2 pi, e = 1..120, from 80-digit pi).  The reduced argument's sine and cosine are Taylor series in
// double on [-pi/4, pi/4] (error < 1e-19), rounded once to float32 as a correctly rounded sinf would be.
__device__ const double kTwoPowModTwoPi[120] = {
    2.0, 4.0, 1.7168146928204135, 3.433629385640827,
    0.5840734641020676, 1.1681469282041352, 2.3362938564082705, 4.672587712816541,
    3.0619901184534952, 6.1239802369069904, 5.964775166634395, 5.646365026089203,
    5.009544744998821, 3.7359041828180546, 1.188623058456523, 2.377246116913046,
    4.754492233826092, 3.2257991604725964, 0.1684130137656059, 0.3368260275312118,
    0.6736520550624236, 1.3473041101248473, 2.6946082202496946, 5.389216440499389,
    4.495247573819193, 2.707309840458799, 5.414619680917598, 4.546054054655609,
    2.8089228021316304, 5.617845604263261, 4.952505901346936, 3.621826495514285,
    0.960467683848984, 1.920935367697968, 3.841870735395936, 1.400556163612285,
    2.80111232722457, 5.60222465444914, 4.921264001718693, 3.5593426962577985,
    0.8355000853360102, 1.6710001706720203, 3.3420003413440407, 0.4008153755084947,
    0.8016307510169894, 1.6032615020339789, 3.2065230040679578, 0.12986070095632937,
    0.25972140191265874, 0.5194428038253175, 1.038885607650635, 2.07777121530127,
    4.15554243060254, 2.0278995540254936, 4.055799108050987, 1.8284129089223877,
    3.6568258178447755, 1.030466328509965, 2.06093265701993, 4.12186531403986,
    1.9605453209001322, 3.9210906418002645, 1.5589959764209427, 3.1179919528418854,
    6.235983905683771, 6.188782504187955, 6.094379701196324, 5.905574095213061,
    5.527962883246536, 4.772740459313485, 3.262295611447383, 0.24140591571517903,
    0.48281183143035805, 0.9656236628607161, 1.9312473257214322, 3.8624946514428644,
    1.4418039957061426, 2.883607991412285, 5.76721598282457, 5.251246658469554,
    4.219308009759521, 2.1554307123394554, 4.310861424678911, 2.338537542178235,
    4.67707508435647, 3.0709648615333527, 6.141929723066705, 6.000674138953824,
    5.718162970728061, 5.153140634276536, 4.0230959613734845, 1.7630066155673831,
    3.5260132311347663, 0.7688411550899459, 1.5376823101798918, 3.0753646203597835,
    6.150729240719567, 6.018273174259547, 5.753361041339508, 5.223536775499429,
    4.1638882438192715, 2.0445911804589567, 4.089182360917913, 1.895179414656241,
    3.790358829312482, 1.297532351445378, 2.595064702890756, 5.190129405781512,
    4.097073504383439, 1.9109617015872908, 3.8219234031745817, 1.360661499169577,
    2.721322998339154, 5.442645996678308, 4.602106686177028, 2.9210280651744704,
    5.842056130348941, 5.4009269535182955, 4.518668599857005, 2.754151892534424,
};

// c[0] + c[1] y2 + ... + c[7] y2^7 (Horner, double)
__device__ __forceinline__ double series8(const double (&c)[8], double y2) {
  double p = c[7];
#pragma unroll
  for (int i = 6; i >= 0; --i) p = p * y2 + c[i];
  return p;
}

__device__ __forceinline__ double sin_series(double y) {
  const double c[8] = {-0.16666666666666666, 0.008333333333333333, -0.0001984126984126984, 2.7557319223985893e-06,
                         -2.505210838544172e-08, 1.6059043836821613e-10, -7.647163731819816e-13,
                         2.8114572543455206e-15};
  return y + y * (y * y) * series8(c, y * y);
}

__device__ __forceinline__ double cos_series(double y) {
  const double c[8] = {-0.5, 0.041666666666666664, -0.001388888888888889, 2.48015873015873e-05,
                         -2.755731922398589e-07, 2.08767569878681e-09, -1.1470745597729725e-11, 4.779477332387385e-14};
  return 1.0 + (y * y) * series8(c, y * y);
}

// sin (want_cos false) or cos of a finite bfloat16 value x >= 0.
__device__ __forceinline__ float sin_cos_bf16(float a, bool want_cos) {
  double r = a;
  if (a >= 256.0f) {
    int e;
    const float m = frexpf(a, &e);                       // a = m 2^e, m in [0.5, 1): M = 256 m, E = e - 8 >= 1
    r = static_cast<double>(m * 256.0f) * kTwoPowModTwoPi[e - 9];
  }
  const double two_pi = 6.283185307179586, half_pi = 1.5707963267948966;
  r -= rint(r / two_pi) * two_pi;                          // [-pi, pi]
  const double q = rint(r / half_pi);
  const double y = r - q * half_pi;                        // [-pi/4, pi/4]
  const int quadrant = (static_cast<int>(q) + (want_cos ? 1 : 0)) & 3;   // cos(t) = sin(t + pi/2)
  const double v = (quadrant & 1) ? cos_series(y) : sin_series(y);
  return static_cast<float>((quadrant & 2) ? -v : v);
}

#define OPENREG_INV_SQRT_2 0.7071067690849304f
#define OPENREG_SQRT_2_OVER_PI 0.7978845834732056f
#define OPENREG_TANH_COEF 0.044714998453855515f
#define OPENREG_TANH_COEF_3 0.13414500653743744f
#define OPENREG_INV_SQRT_2PI 0.3989422917366028f

// -- binary: op(a, b, alpha) on float32 values -------------------------------------------------------------------
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
struct Bf16RSub {
  __device__ __forceinline__ float operator()(float a, float b, float alpha) const {
    return b - (alpha == 1.0f ? a : mul_rn(alpha, a));
  }
};
struct Bf16Mul {
  __device__ __forceinline__ float operator()(float a, float b, float) const { return mul_rn(a, b); }
};
struct Bf16Div {
  __device__ __forceinline__ float operator()(float a, float b, float) const { return a / b; }
};
struct Bf16Pow {
  __device__ __forceinline__ float operator()(float a, float b, float) const { return powf(a, b); }
};
struct Bf16PowScalar {  // x ** 0.5 is sqrt(x) for a scalar exponent, as NumPy and PyTorch compute it (-0 -> -0)
  __device__ __forceinline__ float operator()(float a, float b, float) const {
    return b == 0.5f ? sqrtf(a) : powf(a, b);
  }
};
struct GeluBackward {  // g * (cdf + x * pdf)
  __device__ __forceinline__ float operator()(float g, float x, float) const {
    const float cdf = mul_rn(0.5f, 1.0f + erf_f32(mul_rn(x, OPENREG_INV_SQRT_2)));
    const float pdf = mul_rn(expf(mul_rn(mul_rn(-0.5f, x), x)), OPENREG_INV_SQRT_2PI);
    return mul_rn(g, cdf + mul_rn(x, pdf));
  }
};
struct GeluTanhBackward {
  __device__ __forceinline__ float operator()(float g, float x, float) const {
    const float x2 = mul_rn(x, x);
    const float inner = mul_rn(OPENREG_SQRT_2_OVER_PI, x + mul_rn(mul_rn(OPENREG_TANH_COEF, x2), x));
    const float t = tanhf(inner);
    const float dinner = mul_rn(OPENREG_SQRT_2_OVER_PI, 1.0f + mul_rn(OPENREG_TANH_COEF_3, x2));
    const float right = mul_rn(mul_rn(mul_rn(0.5f, x), 1.0f - mul_rn(t, t)), dinner);
    return mul_rn(g, mul_rn(0.5f, 1.0f + t) + right);
  }
};
#define OPENREG_BF16_COMPARISON(NAME, EXPR)                                                          \
  struct NAME {                                                                                      \
    __device__ __forceinline__ bool operator()(float a, float b, float) const { return EXPR; }      \
  };
OPENREG_BF16_COMPARISON(CmpEq, a == b)
OPENREG_BF16_COMPARISON(CmpNe, a != b)
OPENREG_BF16_COMPARISON(CmpLt, a < b)
OPENREG_BF16_COMPARISON(CmpLe, a <= b)
OPENREG_BF16_COMPARISON(CmpGt, a > b)
OPENREG_BF16_COMPARISON(CmpGe, a >= b)

template <typename Out, typename A, typename B, typename Op>
__device__ __forceinline__ void binary_contig(Out* out, const A* a, const B* b, float alpha, int64_t n, Op op) {
  const int64_t nthreads = global_thread_count();
  for (int64_t i = global_thread_id(); i < n; i += nthreads)
    out[i] = narrow<Out>(op(widen(a[i]), widen(b[i]), alpha));
}

template <typename Out, typename A, typename B, typename Op>
__device__ __forceinline__ void binary_strided(Out* out, const A* a, const B* b, float alpha,
                                               const StridedGeometry<3>& g, Op op) {
  const int64_t nthreads = global_thread_count();
  for (int64_t i = global_thread_id(); i < g.numel; i += nthreads) {
    int64_t off[3];
    strided_offsets(g, i, off);
    out[off[0]] = narrow<Out>(op(widen(a[off[1]]), widen(b[off[2]]), alpha));
  }
}

// -- binary with a scalar: b is a float32 kernel argument ---------------------------------------------------------
template <typename Out, typename Op>
struct WithScalar {
  float b, alpha;
  __device__ __forceinline__ Out operator()(uint16_t x) const { return narrow<Out>(Op()(widen(x), b, alpha)); }
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
struct Abs {
  __device__ __forceinline__ float operator()(float x) const { return fabsf(x); }
};
struct Sqrt {
  __device__ __forceinline__ float operator()(float x) const { return sqrtf(x); }
};
struct Rsqrt {
  __device__ __forceinline__ float operator()(float x) const { return 1.0f / sqrtf(x); }
};
struct Sin {  // odd: sin(-x) = -sin(x), and -0 stays -0
  __device__ __forceinline__ float operator()(float x) const {
    if (!(fabsf(x) <= 3.4028235e38f)) return x - x;         // inf, NaN -> NaN
    const float s = sin_cos_bf16(fabsf(x), false);
    return x < 0.0f || (x == 0.0f && signbit(x)) ? -s : s;
  }
};
struct Cos {  // even
  __device__ __forceinline__ float operator()(float x) const {
    if (!(fabsf(x) <= 3.4028235e38f)) return x - x;
    return sin_cos_bf16(fabsf(x), true);
  }
};
struct Gelu {  // (x/2) * (1 + erf(x / sqrt 2))
  __device__ __forceinline__ float operator()(float x) const {
    return mul_rn(mul_rn(0.5f, x), 1.0f + erf_f32(mul_rn(x, OPENREG_INV_SQRT_2)));
  }
};
struct GeluTanh {  // (x/2) * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  __device__ __forceinline__ float operator()(float x) const {
    const float cube = mul_rn(mul_rn(mul_rn(OPENREG_TANH_COEF, x), x), x);
    return mul_rn(mul_rn(0.5f, x), 1.0f + tanhf(mul_rn(OPENREG_SQRT_2_OVER_PI, x + cube)));
  }
};

// -- conversions --------------------------------------------------------------------------------------------------
template <typename To>
struct FromBf16 {
  __device__ __forceinline__ To operator()(uint16_t w) const { return convert<To>(bf16_to_float(w)); }
};
struct SameWord {
  __device__ __forceinline__ uint16_t operator()(uint16_t w) const { return w; }
};
struct ToBf16 {
  template <typename From>
  __device__ __forceinline__ uint16_t operator()(From x) const { return float_to_bf16(convert<float>(x)); }
};

}  // namespace openreg

#define OPENREG_BF16_BINARY_KERNELS(NAME, OP, OUT, A, B, DTS)                                                \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                    \
      bf16_##NAME##_contig_##DTS(OUT* out, const A* a, const B* b, float alpha, int64_t n) {                 \
    openreg::binary_contig(out, a, b, alpha, n, openreg::OP());                                              \
  }                                                                                                          \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                    \
      bf16_##NAME##_strided_##DTS(OUT* out, const A* a, const B* b, float alpha,                             \
                                  openreg::StridedGeometry<3> geom) {                                        \
    openreg::binary_strided(out, a, b, alpha, geom, openreg::OP());                                          \
  }

#define OPENREG_BF16_SCALAR_KERNELS(NAME, OP, OUT, DTS)                                                      \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                    \
      bf16_##NAME##_scalar_contig_##DTS(OUT* out, const uint16_t* a, float b, float alpha, int64_t n) {      \
    openreg::pointwise_contig(out, a, n, openreg::WithScalar<OUT, openreg::OP>{b, alpha});                   \
  }                                                                                                          \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                    \
      bf16_##NAME##_scalar_strided_##DTS(OUT* out, const uint16_t* a, float b, float alpha,                  \
                                         openreg::StridedGeometry<2> geom) {                                 \
    openreg::pointwise_strided(out, a, geom, openreg::WithScalar<OUT, openreg::OP>{b, alpha});               \
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

#define OPENREG_BF16_COPY_KERNELS(OUT, IN, DTS, OP)                                                            \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                      \
      bf16_copy_contig_##DTS(OUT* out, const IN* in, int64_t n) {                                              \
    openreg::pointwise_contig(out, in, n, OP);                                                                 \
  }                                                                                                            \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                      \
      bf16_copy_strided_##DTS(OUT* out, const IN* in, openreg::StridedGeometry<2> geom) {                      \
    openreg::pointwise_strided(out, in, geom, OP);                                                             \
  }

// bfloat16 result from bfloat16 operands (tensor and scalar)
#define OPENREG_BF16_ARITHMETIC(NAME, OP)                              \
  OPENREG_BF16_BINARY_KERNELS(NAME, OP, uint16_t, uint16_t, uint16_t, bf16) \
  OPENREG_BF16_SCALAR_KERNELS(NAME, OP, uint16_t, bf16)
OPENREG_BF16_ARITHMETIC(add, Bf16Add)
OPENREG_BF16_ARITHMETIC(sub, Bf16Sub)
OPENREG_BF16_ARITHMETIC(mul, Bf16Mul)
OPENREG_BF16_ARITHMETIC(div, Bf16Div)
OPENREG_BF16_BINARY_KERNELS(pow, Bf16Pow, uint16_t, uint16_t, uint16_t, bf16)
OPENREG_BF16_SCALAR_KERNELS(pow, Bf16PowScalar, uint16_t, bf16)
OPENREG_BF16_SCALAR_KERNELS(rsub, Bf16RSub, uint16_t, bf16)
OPENREG_BF16_BINARY_KERNELS(gelu_backward, GeluBackward, uint16_t, uint16_t, uint16_t, bf16)
OPENREG_BF16_BINARY_KERNELS(gelu_tanh_backward, GeluTanhBackward, uint16_t, uint16_t, uint16_t, bf16)

// float32 result: bfloat16 with a float32 tensor, either side
#define OPENREG_BF16_MIXED(NAME, OP)                                                      \
  OPENREG_BF16_BINARY_KERNELS(NAME, OP, float, uint16_t, float, f32_from_bf16_from_f32) \
  OPENREG_BF16_BINARY_KERNELS(NAME, OP, float, float, uint16_t, f32_from_f32_from_bf16)
OPENREG_BF16_MIXED(add, Bf16Add)
OPENREG_BF16_MIXED(sub, Bf16Sub)
OPENREG_BF16_MIXED(mul, Bf16Mul)
OPENREG_BF16_MIXED(div, Bf16Div)

// bool result
#define OPENREG_BF16_COMPARE(NAME, OP)                                              \
  OPENREG_BF16_BINARY_KERNELS(NAME, OP, bool, uint16_t, uint16_t, b8_from_bf16_from_bf16) \
  OPENREG_BF16_SCALAR_KERNELS(NAME, OP, bool, b8_from_bf16)
OPENREG_BF16_COMPARE(eq, CmpEq)
OPENREG_BF16_COMPARE(ne, CmpNe)
OPENREG_BF16_COMPARE(lt, CmpLt)
OPENREG_BF16_COMPARE(le, CmpLe)
OPENREG_BF16_COMPARE(gt, CmpGt)
OPENREG_BF16_COMPARE(ge, CmpGe)

OPENREG_BF16_UNARY_KERNELS(neg, Neg)
OPENREG_BF16_UNARY_KERNELS(relu, Relu)
OPENREG_BF16_UNARY_KERNELS(exp, Exp)
OPENREG_BF16_UNARY_KERNELS(log, Log)
OPENREG_BF16_UNARY_KERNELS(tanh, Tanh)
OPENREG_BF16_UNARY_KERNELS(sigmoid, Sigmoid)
OPENREG_BF16_UNARY_KERNELS(abs, Abs)
OPENREG_BF16_UNARY_KERNELS(sqrt, Sqrt)
OPENREG_BF16_UNARY_KERNELS(rsqrt, Rsqrt)
OPENREG_BF16_UNARY_KERNELS(sin, Sin)
OPENREG_BF16_UNARY_KERNELS(cos, Cos)
OPENREG_BF16_UNARY_KERNELS(gelu, Gelu)
OPENREG_BF16_UNARY_KERNELS(gelu_tanh, GeluTanh)

// conversions: bfloat16 -> each dtype, each dtype -> bfloat16, and bfloat16 -> bfloat16 (a strided word copy)
#define OPENREG_BF16_COPY_PAIR(T, S)                                                      \
  OPENREG_BF16_COPY_KERNELS(T, uint16_t, S##_from_bf16, openreg::FromBf16<T>())          \
  OPENREG_BF16_COPY_KERNELS(uint16_t, T, bf16_from_##S, openreg::ToBf16())
OPENREG_FOR_EACH_TYPE(OPENREG_BF16_COPY_PAIR)
OPENREG_BF16_COPY_KERNELS(uint16_t, uint16_t, bf16, openreg::SameWord())
