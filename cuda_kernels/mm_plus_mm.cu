// mm_plus_mm.cu -- fused out = a @ b + c @ d (inductor's _mm_plus_mm) in one pass over out.
//
//   mm_plus_mm_f32(out, a, b, c, d, shape)   float32, float32 accumulation
//   mm_plus_mm_f64(out, a, b, c, d, shape)   float64, float64 accumulation
//   mm_plus_mm_f16(out, a, b, c, d, shape)   float16 in/out, float32 accumulation, one rounding at the end
//
// a: M x K1, b: K1 x N, c: M x K2, d: K2 x N, out: M x N; any element strides (transposed or expanded views
// need no copy); K1 != K2, K = 0 and sizes that are not tile multiples are fine (loads are bounds-checked
// and zero-filled).  out must not overlap the inputs (checked by the launcher).
//
// Tiling: a block of 256 threads owns a BM x BN = 64 x 64 tile of out and walks K in steps of BK = 16,
// staging a 64x16 panel of the left operand and a 16x64 panel of the right operand in shared memory
// (converted to the accumulation type once).  Each thread keeps a 4 x 4 register block of accumulators
// (rows 4 ty + i, cols 4 tx + j): per k it reads its 4 + 4 shared values as two aligned vectors (LDS.128
// for float; 2 distinct row addresses and 16 column addresses per warp) and issues 16 FMAs.  Both
// products accumulate into the same registers, so out is written once.  Global loads are coalesced
// along whichever of the operand's two strides is smaller (bit i of shape.k_fast: operand i is read
// with consecutive threads along K).  Tiles are visited in groups of GROUP_M tile rows for L2 reuse.
#include "common.cuh"

#define OPENREG_MM_BM 64
#define OPENREG_MM_BN 64
#define OPENREG_MM_BK 16
#define OPENREG_MM_TM 4
#define OPENREG_MM_TN 4
#define OPENREG_MM_THREADS 256  // (BM / TM) * (BN / TN)
#define OPENREG_MM_GROUP_M 8
#define OPENREG_MM_PAD 4        // breaks shared-memory bank conflicts of the K-fast panel stores

namespace openreg {

struct MmPlusMmShape {
  int64_t m, n, k1, k2;
  int64_t a_stride[2], b_stride[2], c_stride[2], d_stride[2], out_stride[2];  // {row, col}, elements
  int32_t k_fast;  // bit 0: a, 1: b, 2: c, 3: d
  int32_t reserved;
};
static_assert(sizeof(MmPlusMmShape) == 120, "MmPlusMmShape layout must match kernels.py");

enum : int {  // enums, not constexpr variables: NVRTC would emit those as .global symbols
  kBM = OPENREG_MM_BM,
  kBN = OPENREG_MM_BN,
  kBK = OPENREG_MM_BK,
  kTM = OPENREG_MM_TM,
  kTN = OPENREG_MM_TN,
  kThreads = OPENREG_MM_THREADS,
  kRowThreads = kBM / kTM,
  kColThreads = kBN / kTN,
  kXLoads = (kBM * kBK) / kThreads,  // panel elements each thread stages per K step
  kYLoads = (kBK * kBN) / kThreads
};
static_assert(kRowThreads * kColThreads == kThreads, "one thread per register block");
static_assert((kBM * kBK) % kThreads == 0 && (kBK * kBN) % kThreads == 0, "panels split evenly");
static_assert(OPENREG_MM_PAD % kTM == 0 && OPENREG_MM_PAD % kTN == 0, "padded rows keep register tiles aligned");

// A thread's TM (or TN) consecutive shared values, loaded as one vector (LDS.128 for float).
template <typename T, int N>
struct alignas(sizeof(T) * N) RegTile {
  T v[N];
};

// acc += x[m0:m0+BM, 0:k] @ y[0:k, n0:n0+BN]
template <typename T, typename Acc>
__device__ __forceinline__ void accumulate_panel(Acc (&acc)[kTM][kTN], Acc (&xs)[kBK][kBM + OPENREG_MM_PAD],
                                                 Acc (&ys)[kBK][kBN + OPENREG_MM_PAD], const T* __restrict__ x,
                                                 int64_t x_sm, int64_t x_sk, bool x_kfast, const T* __restrict__ y,
                                                 int64_t y_sk, int64_t y_sn, bool y_kfast, int64_t m, int64_t n,
                                                 int64_t k, int64_t m0, int64_t n0) {
  const int t = threadIdx.x;
  const int tx = t % kColThreads;
  const int ty = t / kColThreads;
  if (k <= 0) return;
  // The panel elements this thread stages, fixed for the whole K loop: global offset (advanced by BK rows of
  // K per step), K index inside the panel, flat shared-memory slot, and whether its row/column exists.
  int64_t x_off[kXLoads], y_off[kYLoads];
  int x_k[kXLoads], y_k[kYLoads], x_slot[kXLoads], y_slot[kYLoads];
  bool x_in[kXLoads], y_in[kYLoads];
#pragma unroll
  for (int r = 0; r < kXLoads; ++r) {
    const int e = t + r * kThreads;
    const int mi = x_kfast ? e / kBK : e % kBM;
    x_k[r] = x_kfast ? e % kBK : e / kBM;
    x_slot[r] = x_k[r] * (kBM + OPENREG_MM_PAD) + mi;
    x_in[r] = m0 + mi < m;
    x_off[r] = (m0 + mi) * x_sm + x_k[r] * x_sk;
  }
#pragma unroll
  for (int r = 0; r < kYLoads; ++r) {
    const int e = t + r * kThreads;
    const int ni = y_kfast ? e / kBK : e % kBN;
    y_k[r] = y_kfast ? e % kBK : e / kBN;
    y_slot[r] = y_k[r] * (kBN + OPENREG_MM_PAD) + ni;
    y_in[r] = n0 + ni < n;
    y_off[r] = y_k[r] * y_sk + (n0 + ni) * y_sn;
  }
  const int64_t x_step = kBK * x_sk, y_step = kBK * y_sk;
  // Register prefetch: tile k0 + BK is loaded from global memory while tile k0 is multiplied.
  Acc x_reg[kXLoads], y_reg[kYLoads];
#pragma unroll
  for (int r = 0; r < kXLoads; ++r)
    x_reg[r] = (x_in[r] && x_k[r] < k) ? convert<Acc>(load_readonly(x + x_off[r])) : Acc(0);
#pragma unroll
  for (int r = 0; r < kYLoads; ++r)
    y_reg[r] = (y_in[r] && y_k[r] < k) ? convert<Acc>(load_readonly(y + y_off[r])) : Acc(0);
  Acc* xs_flat = &xs[0][0];
  Acc* ys_flat = &ys[0][0];
  for (int64_t k0 = 0; k0 < k; k0 += kBK) {
#pragma unroll
    for (int r = 0; r < kXLoads; ++r) xs_flat[x_slot[r]] = x_reg[r];
#pragma unroll
    for (int r = 0; r < kYLoads; ++r) ys_flat[y_slot[r]] = y_reg[r];
    __syncthreads();
    const int64_t k1 = k0 + kBK;
    if (k1 < k) {
#pragma unroll
      for (int r = 0; r < kXLoads; ++r) {
        x_off[r] += x_step;
        x_reg[r] = (x_in[r] && k1 + x_k[r] < k) ? convert<Acc>(load_readonly(x + x_off[r])) : Acc(0);
      }
#pragma unroll
      for (int r = 0; r < kYLoads; ++r) {
        y_off[r] += y_step;
        y_reg[r] = (y_in[r] && k1 + y_k[r] < k) ? convert<Acc>(load_readonly(y + y_off[r])) : Acc(0);
      }
    }
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      const RegTile<Acc, kTM> xf = *reinterpret_cast<const RegTile<Acc, kTM>*>(&xs[kk][ty * kTM]);
      const RegTile<Acc, kTN> yf = *reinterpret_cast<const RegTile<Acc, kTN>*>(&ys[kk][tx * kTN]);
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] += xf.v[i] * yf.v[j];
    }
    __syncthreads();
  }
}

template <typename T, typename Acc>
__device__ __forceinline__ void mm_plus_mm(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b,
                                           const T* __restrict__ c, const T* __restrict__ d,
                                           const MmPlusMmShape& s) {
  // Rows of BM + PAD elements keep every RegTile load aligned (PAD is a multiple of TM and TN; a 4-double
  // RegTile needs only 16-byte alignment for its two 16-byte loads).
  __shared__ __align__(16) Acc xs[kBK][kBM + OPENREG_MM_PAD];
  __shared__ __align__(16) Acc ys[kBK][kBN + OPENREG_MM_PAD];

  // Grouped tile order: GROUP_M consecutive blocks share a tile column of b/d while it is hot in L2.
  const int64_t tiles_m = (s.m + kBM - 1) / kBM;
  const int64_t tiles_n = (s.n + kBN - 1) / kBN;
  const int64_t pid = blockIdx.x;
  const int64_t group_size = static_cast<int64_t>(OPENREG_MM_GROUP_M) * tiles_n;
  const int64_t first_m = (pid / group_size) * OPENREG_MM_GROUP_M;
  const int64_t rows = min(tiles_m - first_m, static_cast<int64_t>(OPENREG_MM_GROUP_M));
  const int64_t tile_m = first_m + (pid % group_size) % rows;
  const int64_t tile_n = (pid % group_size) / rows;
  const int64_t m0 = tile_m * kBM, n0 = tile_n * kBN;

  Acc acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = Acc(0);

  accumulate_panel<T, Acc>(acc, xs, ys, a, s.a_stride[0], s.a_stride[1], (s.k_fast & 1) != 0, b, s.b_stride[0],
                           s.b_stride[1], (s.k_fast & 2) != 0, s.m, s.n, s.k1, m0, n0);
  accumulate_panel<T, Acc>(acc, xs, ys, c, s.c_stride[0], s.c_stride[1], (s.k_fast & 4) != 0, d, s.d_stride[0],
                           s.d_stride[1], (s.k_fast & 8) != 0, s.m, s.n, s.k2, m0, n0);

  const int tx = threadIdx.x % kColThreads;
  const int ty = threadIdx.x / kColThreads;
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int64_t gm = m0 + ty * kTM + i;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int64_t gn = n0 + tx * kTN + j;
      if (gm < s.m && gn < s.n) out[gm * s.out_stride[0] + gn * s.out_stride[1]] = convert<T>(acc[i][j]);
    }
  }
}

}  // namespace openreg

// MIN_BLOCKS (resident blocks per SM) caps registers at 65536 / (256 * MIN_BLOCKS): float32/float16 fit two
// blocks (<= 128 registers) without spilling; float64 needs ~134 and runs one block per SM rather than spill.
#define OPENREG_MM_PLUS_MM_KERNEL(T, ACC, S, MIN_BLOCKS)                                                    \
  extern "C" __global__ void __launch_bounds__(OPENREG_MM_THREADS, MIN_BLOCKS)                              \
      mm_plus_mm_##S(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b,                 \
                     const T* __restrict__ c, const T* __restrict__ d, openreg::MmPlusMmShape shape) {      \
    openreg::mm_plus_mm<T, ACC>(out, a, b, c, d, shape);                                                    \
  }

OPENREG_MM_PLUS_MM_KERNEL(float, float, f32, 2)
OPENREG_MM_PLUS_MM_KERNEL(double, double, f64, 1)
OPENREG_MM_PLUS_MM_KERNEL(__half, float, f16, 2)
