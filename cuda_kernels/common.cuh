// common.cuh -- scalar types, float16, dtype conversion and the dtype lists shared by every kernel.
//
// Compiles three ways: NVRTC (no system headers at all, so the integer types and a minimal __half are
// defined here), nvcc, and the host C++ compiler under host_emulation.h (which supplies __half itself).
#pragma once

#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
#define OPENREG_DEVICE_HALF 1
#elif defined(__CUDACC__)
#include <cstdint>
#define OPENREG_DEVICE_HALF 1
#elif !defined(OPENREG_HOST_EMULATION)
#error "compile with NVRTC or nvcc, or with the host compiler and -include host_emulation.h"
#endif

#if defined(OPENREG_DEVICE_HALF) && !defined(__CUDA_FP16_TYPES_EXIST__)
// The NVRTC wheels ship no headers, so cuda_fp16.h is not available; this is the subset the kernels use,
// with the same names.  Conversions are single PTX cvt instructions (round to nearest even, no flush).
struct __align__(2) __half {
  unsigned short __x;
};
__device__ __forceinline__ float __half2float(__half h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.__x));
  return f;
}
__device__ __forceinline__ __half __float2half_rn(float f) {
  __half h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.__x) : "f"(f));
  return h;
}
__device__ __forceinline__ __half __double2half(double d) {
  __half h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h.__x) : "d"(d));
  return h;
}
__device__ __forceinline__ unsigned short __half_as_ushort(__half h) { return h.__x; }
__device__ __forceinline__ __half __ushort_as_half(unsigned short x) {
  __half h;
  h.__x = x;
  return h;
}
#endif

// Threads per block of the pointwise kernels (abs, copy, fill); kernels.POINTWISE_THREADS matches it.
#define OPENREG_POINTWISE_THREADS 256

// X-macro lists: X(c_type, suffix).  The suffix is the dtype's name in kernel names (abs_contig_f32, ...).
#define OPENREG_FOR_EACH_ABS_TYPE(X) \
  X(__half, f16)                     \
  X(float, f32)                      \
  X(double, f64)                     \
  X(int8_t, i8)                      \
  X(int16_t, i16)                    \
  X(int32_t, i32)                    \
  X(int64_t, i64)
#define OPENREG_FOR_EACH_TYPE(X) \
  X(bool, b8)                    \
  X(uint8_t, u8)                 \
  OPENREG_FOR_EACH_ABS_TYPE(X)

namespace openreg {

// Traits as enums (no storage: static constexpr members would be emitted as .global symbols by NVRTC).
template <typename A, typename B>
struct is_same { enum { value = 0 }; };
template <typename A>
struct is_same<A, A> { enum { value = 1 }; };

template <typename T>
struct type_info { enum { is_half = 0, is_floating = 0 }; };
template <>
struct type_info<__half> { enum { is_half = 1, is_floating = 1 }; };
template <>
struct type_info<float> { enum { is_half = 0, is_floating = 1 }; };
template <>
struct type_info<double> { enum { is_half = 0, is_floating = 1 }; };

template <typename T> struct unsigned_of;
template <> struct unsigned_of<int8_t> { typedef uint8_t type; };
template <> struct unsigned_of<int16_t> { typedef uint16_t type; };
template <> struct unsigned_of<int32_t> { typedef uint32_t type; };
template <> struct unsigned_of<int64_t> { typedef uint64_t type; };

// Value conversion with NumPy/PyTorch semantics where they are defined: to bool is `x != 0` (NaN is true);
// float16 goes through float32 (exact) except double -> half, which rounds once; floating -> integers narrower
// than 64 bits goes through int64, so out-of-range values wrap the same way on the host and the GPU.
// Floating values outside the int64 range (and NaN) converted to integers are undefined, as in C++.
template <typename To, typename From>
__device__ __forceinline__ To convert(From x) {
  if constexpr (is_same<To, From>::value) {
    return x;
  } else if constexpr (type_info<From>::is_half) {
    return convert<To>(__half2float(x));
  } else if constexpr (type_info<To>::is_half) {
    if constexpr (is_same<From, double>::value) {
      return __double2half(x);
    } else if constexpr (is_same<From, bool>::value) {
      return __float2half_rn(x ? 1.0f : 0.0f);
    } else {
      return __float2half_rn(static_cast<float>(x));  // integers beyond 2^24 round to inf in half anyway
    }
  } else if constexpr (is_same<To, bool>::value) {
    return x != From(0);
  } else if constexpr (type_info<From>::is_floating && !type_info<To>::is_floating && sizeof(To) < 8) {
    return static_cast<To>(static_cast<long long>(x));
  } else {
    return static_cast<To>(x);
  }
}

// |x|: float types clear the sign bit (NaN stays NaN, -0 becomes +0); integers wrap like two's complement,
// so abs(INT_MIN) == INT_MIN as in NumPy and PyTorch.
template <typename T>
__device__ __forceinline__ T abs_value(T x) {
  if constexpr (type_info<T>::is_half) {
    return __ushort_as_half(static_cast<unsigned short>(__half_as_ushort(x) & 0x7fffu));
  } else if constexpr (is_same<T, float>::value) {
    return fabsf(x);
  } else if constexpr (is_same<T, double>::value) {
    return fabs(x);
  } else {
    typedef typename unsigned_of<T>::type U;
    const U u = static_cast<U>(x);
    return static_cast<T>(x < T(0) ? static_cast<U>(U(0) - u) : u);
  }
}

// Read-only load through the non-coherent cache; only for data no thread of the kernel writes.
template <typename T>
__device__ __forceinline__ T load_readonly(const T* p) {
  if constexpr (type_info<T>::is_half) {
    return __ushort_as_half(__ldg(reinterpret_cast<const unsigned short*>(p)));
  } else if constexpr (is_same<T, bool>::value) {
    return __ldg(reinterpret_cast<const unsigned char*>(p)) != 0;
  } else {
    return __ldg(p);
  }
}

}  // namespace openreg
