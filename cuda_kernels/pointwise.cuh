// pointwise.cuh -- the two loops every elementwise kernel (abs, copy, fill) is made of.
//
// Contiguous: a grid-stride loop over 16-byte vectors (one LDG.128/STG.128 per thread and iteration for the
// wider of the two dtypes).  When input and output sit at the same offset inside a 16-byte vector, a scalar
// head aligns them first; a scalar tail finishes the last n % VEC elements.  When they cannot both be aligned
// (say `out[1:] = in[:-1]` converted), the whole range runs scalar, which is still coalesced.
//
// Strided: a grid-stride loop over the linear index with per-operand offsets from indexing.cuh.
#pragma once
#include "common.cuh"
#include "indexing.cuh"

namespace openreg {

template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Vec {
  T v[VEC];
};

template <typename A, typename B>
struct vector_width {
  enum { value = 16 / (sizeof(A) > sizeof(B) ? sizeof(A) : sizeof(B)) };
};

// Position of p inside its VEC-element vector (p is aligned to sizeof(T), as every tensor element is).
template <int VEC, typename T>
__device__ __forceinline__ int64_t vector_phase(const T* p) {
  return static_cast<int64_t>((reinterpret_cast<uintptr_t>(p) / sizeof(T)) % VEC);
}

template <typename Out, typename In, typename Op>
__device__ __forceinline__ void pointwise_contig(Out* out, const In* in, int64_t n, Op op) {
  constexpr int VEC = vector_width<Out, In>::value;
  const int64_t tid = global_thread_id();
  const int64_t nthreads = global_thread_count();
  int64_t done = 0;
  const int64_t phase = vector_phase<VEC>(out);
  if (phase == vector_phase<VEC>(in)) {
    const int64_t head = min(static_cast<int64_t>((VEC - phase) % VEC), n);
    if (tid < head) out[tid] = op(in[tid]);
    const int64_t nvec = (n - head) / VEC;
    const Vec<In, VEC>* vin = reinterpret_cast<const Vec<In, VEC>*>(in + head);
    Vec<Out, VEC>* vout = reinterpret_cast<Vec<Out, VEC>*>(out + head);
    for (int64_t i = tid; i < nvec; i += nthreads) {
      const Vec<In, VEC> a = vin[i];
      Vec<Out, VEC> b;
#pragma unroll
      for (int j = 0; j < VEC; ++j) b.v[j] = op(a.v[j]);
      vout[i] = b;
    }
    done = head + nvec * VEC;
  }
  for (int64_t i = done + tid; i < n; i += nthreads) out[i] = op(in[i]);
}

template <typename Out, typename In, typename Op>
__device__ __forceinline__ void pointwise_strided(Out* out, const In* in, const StridedGeometry<2>& g, Op op) {
  const int64_t nthreads = global_thread_count();
  for (int64_t i = global_thread_id(); i < g.numel; i += nthreads) {
    int64_t off[2];
    strided_offsets(g, i, off);
    out[off[0]] = op(in[off[1]]);
  }
}

template <typename T>
__device__ __forceinline__ void fill_contig(T* out, T value, int64_t n) {
  constexpr int VEC = 16 / sizeof(T);
  const int64_t tid = global_thread_id();
  const int64_t nthreads = global_thread_count();
  const int64_t head = min(static_cast<int64_t>((VEC - vector_phase<VEC>(out)) % VEC), n);
  if (tid < head) out[tid] = value;
  Vec<T, VEC> v;
#pragma unroll
  for (int j = 0; j < VEC; ++j) v.v[j] = value;
  const int64_t nvec = (n - head) / VEC;
  Vec<T, VEC>* vout = reinterpret_cast<Vec<T, VEC>*>(out + head);
  for (int64_t i = tid; i < nvec; i += nthreads) vout[i] = v;
  for (int64_t i = head + nvec * VEC + tid; i < n; i += nthreads) out[i] = value;
}

template <typename T>
__device__ __forceinline__ void fill_strided(T* out, T value, const StridedGeometry<1>& g) {
  const int64_t nthreads = global_thread_count();
  for (int64_t i = global_thread_id(); i < g.numel; i += nthreads) {
    int64_t off[1];
    strided_offsets(g, i, off);
    out[off[0]] = value;
  }
}

struct AbsOp {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const { return abs_value(x); }
};

template <typename To>
struct ConvertOp {
  template <typename From>
  __device__ __forceinline__ To operator()(From x) const { return convert<To>(x); }
};

}  // namespace openreg
