// bf16_reduce.cu -- reductions of bfloat16 words that accumulate in float32 inside the kernel and round once:
// sum/mean, amax/amin, and softmax/log_softmax along one dim.  No operand is widened into a float32 copy.
//
//   bf16_sum_<out>_from_bf16(out, in, rows, cols, float divisor)    out = (sum of the row) / divisor
//   bf16_{amax,amin}_bf16(out, in, rows, cols)                      NaN propagates (NumPy's amax/amin)
//   bf16_{softmax,log_softmax}_bf16(out, in, rows, int64 n, int64 in_stride, int64 out_stride)
//
// <out> is bf16 (rounded once to nearest even) or f32 (sum(dtype=float32), mean(dtype=float32)).  `rows`
// (StridedGeometry<2>: operand 0 the output, operand 1 the input) enumerates the outputs -- or the softmax rows
// -- and the input offset each starts at; `cols` (StridedGeometry<1>) enumerates the reduced elements' input
// offsets relative to that start, in memory order (kernels.py coalesces them).  mean divides by the element
// count in float32, as the reference does.
//
// One block per row (grid-stride over rows), OPENREG_REDUCE_THREADS threads.  The order of the float32 sums is
// fixed, so results are deterministic: thread t adds elements t, t+T, t+2T, ... in turn, starting from +0, then
// the T partial sums are added pairwise in shared memory (partial[i] += partial[i + s] for s = T/2, ..., 1).
// softmax: the row maximum m (NaN propagates), then s = sum of exp(x - m) in that order, then
// exp(x - m) / s, or (x - m) - log(s), per element: the reference's formula in float32.
#include "bf16.cuh"
#include "common.cuh"
#include "indexing.cuh"

#define OPENREG_REDUCE_THREADS 256

namespace openreg {

__device__ __forceinline__ float infinity() {
  Bits32 v;
  v.u = 0x7f800000u;
  return v.f;
}

template <typename Out>
__device__ __forceinline__ Out store_as(float r) {
  if constexpr (is_same<Out, uint16_t>::value) {
    return float_to_bf16(r);
  } else {
    return r;
  }
}

struct SumOf {
  __device__ __forceinline__ float identity() const { return 0.0f; }
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};
struct MaxOf {  // NaN wins
  __device__ __forceinline__ float identity() const { return -infinity(); }
  __device__ __forceinline__ float operator()(float a, float b) const { return (b > a || b != b) ? b : a; }
};
struct MinOf {
  __device__ __forceinline__ float identity() const { return infinity(); }
  __device__ __forceinline__ float operator()(float a, float b) const { return (b < a || b != b) ? b : a; }
};

// The block's combination of every thread's `partial` (pairwise tree in shared memory), returned to every
// thread.  Starts and ends with a barrier, so the shared buffer can be reused at once.
template <typename Op>
__device__ __forceinline__ float block_combine(float partial, Op op) {
  __shared__ float buf[OPENREG_REDUCE_THREADS];
  const int t = threadIdx.x;
  __syncthreads();
  buf[t] = partial;
  for (int s = OPENREG_REDUCE_THREADS / 2; s > 0; s >>= 1) {
    __syncthreads();
    if (t < s) buf[t] = op(buf[t], buf[t + s]);
  }
  __syncthreads();
  const float r = buf[0];
  __syncthreads();
  return r;
}

template <typename Out, typename Op>
__device__ __forceinline__ void reduce_rows(Out* out, const uint16_t* in, const StridedGeometry<2>& rows,
                                            const StridedGeometry<1>& cols, float divisor, Op op) {
  for (int64_t row = blockIdx.x; row < rows.numel; row += gridDim.x) {
    int64_t base[2];
    strided_offsets(rows, row, base);
    float acc = op.identity();
    for (int64_t j = threadIdx.x; j < cols.numel; j += OPENREG_REDUCE_THREADS) {
      int64_t off[1];
      strided_offsets(cols, j, off);
      acc = op(acc, bf16_to_float(in[base[1] + off[0]]));
    }
    const float total = block_combine(acc, op);
    if (threadIdx.x == 0) out[base[0]] = store_as<Out>(divisor == 1.0f ? total : total / divisor);
  }
}

template <bool Log>
__device__ __forceinline__ void softmax_rows(uint16_t* out, const uint16_t* in, const StridedGeometry<2>& rows,
                                             int64_t n, int64_t in_stride, int64_t out_stride) {
  for (int64_t row = blockIdx.x; row < rows.numel; row += gridDim.x) {
    int64_t base[2];
    strided_offsets(rows, row, base);
    const uint16_t* x = in + base[1];
    MaxOf max_of;
    float m = max_of.identity();
    for (int64_t j = threadIdx.x; j < n; j += OPENREG_REDUCE_THREADS) m = max_of(m, bf16_to_float(x[j * in_stride]));
    m = block_combine(m, max_of);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += OPENREG_REDUCE_THREADS) s += expf(bf16_to_float(x[j * in_stride]) - m);
    s = block_combine(s, SumOf());
    const float log_s = Log ? logf(s) : 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += OPENREG_REDUCE_THREADS) {
      const float shifted = bf16_to_float(x[j * in_stride]) - m;
      out[base[0] + j * out_stride] = float_to_bf16(Log ? shifted - log_s : expf(shifted) / s);
    }
  }
}

}  // namespace openreg

extern "C" __global__ void __launch_bounds__(OPENREG_REDUCE_THREADS)
    bf16_sum_bf16(uint16_t* out, const uint16_t* in, openreg::StridedGeometry<2> rows,
                  openreg::StridedGeometry<1> cols, float divisor) {
  openreg::reduce_rows(out, in, rows, cols, divisor, openreg::SumOf());
}
extern "C" __global__ void __launch_bounds__(OPENREG_REDUCE_THREADS)
    bf16_sum_f32_from_bf16(float* out, const uint16_t* in, openreg::StridedGeometry<2> rows,
                           openreg::StridedGeometry<1> cols, float divisor) {
  openreg::reduce_rows(out, in, rows, cols, divisor, openreg::SumOf());
}
extern "C" __global__ void __launch_bounds__(OPENREG_REDUCE_THREADS)
    bf16_amax_bf16(uint16_t* out, const uint16_t* in, openreg::StridedGeometry<2> rows,
                   openreg::StridedGeometry<1> cols) {
  openreg::reduce_rows(out, in, rows, cols, 1.0f, openreg::MaxOf());
}
extern "C" __global__ void __launch_bounds__(OPENREG_REDUCE_THREADS)
    bf16_amin_bf16(uint16_t* out, const uint16_t* in, openreg::StridedGeometry<2> rows,
                   openreg::StridedGeometry<1> cols) {
  openreg::reduce_rows(out, in, rows, cols, 1.0f, openreg::MinOf());
}
extern "C" __global__ void __launch_bounds__(OPENREG_REDUCE_THREADS)
    bf16_softmax_bf16(uint16_t* out, const uint16_t* in, openreg::StridedGeometry<2> rows, int64_t n,
                      int64_t in_stride, int64_t out_stride) {
  openreg::softmax_rows<false>(out, in, rows, n, in_stride, out_stride);
}
extern "C" __global__ void __launch_bounds__(OPENREG_REDUCE_THREADS)
    bf16_log_softmax_bf16(uint16_t* out, const uint16_t* in, openreg::StridedGeometry<2> rows, int64_t n,
                          int64_t in_stride, int64_t out_stride) {
  openreg::softmax_rows<true>(out, in, rows, n, in_stride, out_stride);
}
