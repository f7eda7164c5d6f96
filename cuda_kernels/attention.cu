// attention.cu -- blockwise scaled dot-product attention (FlashAttention-style) forward and backward.
//
//   attention_fwd_<dt>(out, lse, q, k, v, mask, shape)          out = softmax(q k^T * scale + mask) v, lse per row
//   attention_bwd_dq_<dt>(dq, row_dot, q, k, v, out, grad_out, lse, mask, shape)
//   attention_bwd_dkdv_<dt>(dk, dv, q, k, v, grad_out, lse, row_dot, mask, shape)   (after bwd_dq)
//
// dt: f32 (float accumulation), f64, or bf16: q/k/v/out/grad_out and dq/dk/dv hold bfloat16 words, widened to
// float32 as they are loaded and rounded once (to nearest even) as they are stored; lse, row_dot and the mask are
// float32 and every sum is float32, so no operand is ever widened into a float32 copy.
// q (BH, L, E), k (BH, S, E), v (BH, S, Ev), out/grad_out (BH, L, Ev),
// lse/row_dot (BH, L) are dense; mask (optional, additive) is read through element strides
// (batch, head, row, col), so a broadcast mask is never expanded.  E, Ev <= OPENREG_ATTN_MAX_HEAD.
//
// Forward: a block owns BQ query rows of one (batch, head) and walks the keys in tiles of BK: it stages the
// K and V tiles in shared memory, forms the BQ x BK score tile (causal tiles past the diagonal are never
// visited, the diagonal one is masked), and keeps the running row maximum m, row sum l and unnormalised
// output in shared memory (the online softmax).  It writes out = acc / l and lse = m + log(l) (rows whose
// every key is masked give 0 and -inf).  Backward recomputes p = exp(s - lse) per tile: bwd_dq (one block per
// query tile) writes D = rowsum(grad_out * out) and dq = scale * sum_j dS_ij k_j; bwd_dkdv (one block per
// key tile) accumulates dv = sum_i p_ij grad_out_i and dk = scale * sum_i dS_ij q_i, dS = p (dP - D).
// No atomics: every output element has one owning block.
#include "bf16.cuh"
#include "common.cuh"

#define OPENREG_ATTN_THREADS 128
#define OPENREG_ATTN_MAX_HEAD 128

namespace openreg {

struct AttentionShape {
  int64_t bh, heads, q_len, k_len, head_dim, value_dim;
  int64_t mask_stride[4];  // batch, head, row, col (elements); unused without a mask
  double scale;
  int32_t causal, has_mask;
};
static_assert(sizeof(AttentionShape) == 96, "AttentionShape layout must match kernel_launch.py");

enum : int { kAttnThreads = OPENREG_ATTN_THREADS, kMaxHead = OPENREG_ATTN_MAX_HEAD };

__device__ __forceinline__ float attn_exp(float x) { return expf(x); }
__device__ __forceinline__ double attn_exp(double x) { return exp(x); }
__device__ __forceinline__ float attn_log(float x) { return logf(x); }
__device__ __forceinline__ double attn_log(double x) { return log(x); }
template <typename T>
__device__ __forceinline__ T attn_lowest();
template <>
__device__ __forceinline__ float attn_lowest<float>() { return -3.402823466e38f; }
template <>
__device__ __forceinline__ double attn_lowest<double>() { return -1.7976931348623157e308; }

// Tile sizes per accumulation type, so that the static shared memory stays below 48 KB.
template <typename T>
struct AttnTiles;
template <>
struct AttnTiles<float> {
  enum : int { kFwdQ = 16, kFwdK = 32, kBwdQ = 16, kBwdK = 16 };
};
template <>
struct AttnTiles<double> {
  enum : int { kFwdQ = 8, kFwdK = 16, kBwdQ = 8, kBwdK = 8 };
};

// Loads widen a stored element to the accumulation type T; stores round back (bfloat16 words: to nearest even,
// NaN as 0x7FC0).
template <typename T>
__device__ __forceinline__ T attn_load(T x) { return x; }
template <typename T>
__device__ __forceinline__ T attn_load(uint16_t w) { return bf16_to_float(w); }
template <typename W, typename T>
__device__ __forceinline__ W attn_store(T x) {
  if constexpr (is_same<W, uint16_t>::value) {
    return float_to_bf16(x);
  } else {
    return x;
  }
}

// The score of query row i (global) and key j (global), scaled and masked; `neg_inf` where masked.
template <typename T>
__device__ __forceinline__ T attn_score(T dot, int64_t bh, int64_t i, int64_t j, const T* mask,
                                        const AttentionShape& sh, T neg_inf) {
  if (sh.causal && j > i) return neg_inf;
  T s = dot * static_cast<T>(sh.scale);
  if (sh.has_mask) {
    const int64_t b = bh / sh.heads, h = bh % sh.heads;
    s += mask[b * sh.mask_stride[0] + h * sh.mask_stride[1] + i * sh.mask_stride[2] + j * sh.mask_stride[3]];
  }
  return s;
}

template <typename T, typename W>
__device__ void attention_fwd(W* __restrict__ out, T* __restrict__ lse, const W* __restrict__ q,
                              const W* __restrict__ k, const W* __restrict__ v, const T* __restrict__ mask,
                              const AttentionShape sh) {
  enum : int { BQ = AttnTiles<T>::kFwdQ, BK = AttnTiles<T>::kFwdK };
  __shared__ T k_tile[BK * kMaxHead];
  __shared__ T v_tile[BK * kMaxHead];
  __shared__ T p_tile[BQ * BK];
  __shared__ T acc[BQ * kMaxHead];
  __shared__ T row_max[BQ];
  __shared__ T row_sum[BQ];
  __shared__ T row_scale[BQ];
  const int tid = threadIdx.x;
  const int64_t bh = blockIdx.y, q0 = static_cast<int64_t>(blockIdx.x) * BQ;
  const int64_t E = sh.head_dim, Ev = sh.value_dim, L = sh.q_len, S = sh.k_len;
  const int64_t rows = min(static_cast<int64_t>(BQ), L - q0);
  const T zero = 0;
  const T neg_inf = attn_log(zero);  // -inf, formed at run time (no constant-folding warning)
  for (int64_t idx = tid; idx < BQ * Ev; idx += kAttnThreads) acc[idx] = 0;
  for (int r = tid; r < BQ; r += kAttnThreads) {
    row_max[r] = attn_lowest<T>();
    row_sum[r] = 0;
  }
  const int64_t k_end = sh.causal ? min(S, q0 + rows) : S;
  for (int64_t k0 = 0; k0 < k_end; k0 += BK) {
    const int64_t nk = min(static_cast<int64_t>(BK), k_end - k0);
    for (int64_t idx = tid; idx < nk * E; idx += kAttnThreads) k_tile[idx] = attn_load<T>(k[(bh * S + k0) * E + idx]);
    for (int64_t idx = tid; idx < nk * Ev; idx += kAttnThreads) v_tile[idx] = attn_load<T>(v[(bh * S + k0) * Ev + idx]);
    __syncthreads();
    for (int idx = tid; idx < BQ * BK; idx += kAttnThreads) {
      const int r = idx / BK, j = idx % BK;
      T s = neg_inf;
      if (r < rows && j < nk) {
        const W* qi = q + (bh * L + q0 + r) * E;
        T dot = 0;
        for (int64_t e = 0; e < E; ++e) dot += attn_load<T>(qi[e]) * k_tile[j * E + e];
        s = attn_score(dot, bh, q0 + r, k0 + j, mask, sh, neg_inf);
      }
      p_tile[idx] = s;
    }
    __syncthreads();
    for (int r = tid; r < BQ; r += kAttnThreads) {
      T m = row_max[r];
      for (int j = 0; j < BK; ++j) m = max(m, p_tile[r * BK + j]);
      const T alpha = attn_exp(row_max[r] - m);
      T sum = 0;
      for (int j = 0; j < BK; ++j) {
        const T p = attn_exp(p_tile[r * BK + j] - m);
        p_tile[r * BK + j] = p;
        sum += p;
      }
      row_sum[r] = row_sum[r] * alpha + sum;
      row_scale[r] = alpha;
      row_max[r] = m;
    }
    __syncthreads();
    for (int64_t idx = tid; idx < BQ * Ev; idx += kAttnThreads) {
      const int64_t r = idx / Ev, e = idx % Ev;
      T a = acc[idx] * row_scale[r];
      for (int64_t j = 0; j < nk; ++j) a += p_tile[r * BK + j] * v_tile[j * Ev + e];
      acc[idx] = a;
    }
    __syncthreads();
  }
  for (int64_t idx = tid; idx < rows * Ev; idx += kAttnThreads) {
    const int64_t r = idx / Ev;
    const T l = row_sum[r];
    out[(bh * L + q0) * Ev + idx] = attn_store<W>(l > zero ? acc[idx] / l : zero);
  }
  for (int64_t r = tid; r < rows; r += kAttnThreads) {
    const T l = row_sum[r];
    lse[bh * L + q0 + r] = l > zero ? row_max[r] + attn_log(l) : attn_log(l);  // log(0) = -inf
  }
}

// p = exp(s - lse) of one score; 0 for masked scores and for rows whose every key is masked (lse = -inf).
template <typename T>
__device__ __forceinline__ T attn_prob(T s, T row_lse) {
  return row_lse < attn_lowest<T>() ? static_cast<T>(0) : attn_exp(s - row_lse);
}

template <typename T, typename W>
__device__ void attention_bwd_dq(W* __restrict__ dq, T* __restrict__ row_dot, const W* __restrict__ q,
                                 const W* __restrict__ k, const W* __restrict__ v, const W* __restrict__ out,
                                 const W* __restrict__ grad_out, const T* __restrict__ lse,
                                 const T* __restrict__ mask, const AttentionShape sh) {
  enum : int { BQ = AttnTiles<T>::kFwdQ, BK = AttnTiles<T>::kFwdK };
  __shared__ T k_tile[BK * kMaxHead];
  __shared__ T v_tile[BK * kMaxHead];
  __shared__ T ds_tile[BQ * BK];
  __shared__ T dq_acc[BQ * kMaxHead];
  __shared__ T d_row[BQ];
  __shared__ T lse_row[BQ];
  const int tid = threadIdx.x;
  const int64_t bh = blockIdx.y, q0 = static_cast<int64_t>(blockIdx.x) * BQ;
  const int64_t E = sh.head_dim, Ev = sh.value_dim, L = sh.q_len, S = sh.k_len;
  const int64_t rows = min(static_cast<int64_t>(BQ), L - q0);
  const T zero = 0;
  const T neg_inf = attn_log(zero);
  for (int64_t idx = tid; idx < BQ * E; idx += kAttnThreads) dq_acc[idx] = 0;
  for (int64_t r = tid; r < rows; r += kAttnThreads) {
    const W* o = out + (bh * L + q0 + r) * Ev;
    const W* g = grad_out + (bh * L + q0 + r) * Ev;
    T d = 0;
    for (int64_t e = 0; e < Ev; ++e) d += attn_load<T>(o[e]) * attn_load<T>(g[e]);
    d_row[r] = d;
    row_dot[bh * L + q0 + r] = d;
    lse_row[r] = lse[bh * L + q0 + r];
  }
  const int64_t k_end = sh.causal ? min(S, q0 + rows) : S;
  for (int64_t k0 = 0; k0 < k_end; k0 += BK) {
    const int64_t nk = min(static_cast<int64_t>(BK), k_end - k0);
    for (int64_t idx = tid; idx < nk * E; idx += kAttnThreads) k_tile[idx] = attn_load<T>(k[(bh * S + k0) * E + idx]);
    for (int64_t idx = tid; idx < nk * Ev; idx += kAttnThreads) v_tile[idx] = attn_load<T>(v[(bh * S + k0) * Ev + idx]);
    __syncthreads();
    for (int idx = tid; idx < BQ * BK; idx += kAttnThreads) {
      const int r = idx / BK, j = idx % BK;
      T ds = 0;
      if (r < rows && j < nk) {
        const W* qi = q + (bh * L + q0 + r) * E;
        const W* gi = grad_out + (bh * L + q0 + r) * Ev;
        T dot = 0, dp = 0;
        for (int64_t e = 0; e < E; ++e) dot += attn_load<T>(qi[e]) * k_tile[j * E + e];
        for (int64_t e = 0; e < Ev; ++e) dp += attn_load<T>(gi[e]) * v_tile[j * Ev + e];
        const T p = attn_prob(attn_score(dot, bh, q0 + r, k0 + j, mask, sh, neg_inf), lse_row[r]);
        ds = p * (dp - d_row[r]);
      }
      ds_tile[idx] = ds;
    }
    __syncthreads();
    for (int64_t idx = tid; idx < BQ * E; idx += kAttnThreads) {
      const int64_t r = idx / E, e = idx % E;
      T a = dq_acc[idx];
      for (int64_t j = 0; j < nk; ++j) a += ds_tile[r * BK + j] * k_tile[j * E + e];
      dq_acc[idx] = a;
    }
    __syncthreads();
  }
  const T scale = static_cast<T>(sh.scale);
  for (int64_t idx = tid; idx < rows * E; idx += kAttnThreads)
    dq[(bh * L + q0) * E + idx] = attn_store<W>(dq_acc[idx] * scale);
}

template <typename T, typename W>
__device__ void attention_bwd_dkdv(W* __restrict__ dk, W* __restrict__ dv, const W* __restrict__ q,
                                   const W* __restrict__ k, const W* __restrict__ v, const W* __restrict__ grad_out,
                                   const T* __restrict__ lse, const T* __restrict__ row_dot,
                                   const T* __restrict__ mask, const AttentionShape sh) {
  enum : int { BQ = AttnTiles<T>::kBwdQ, BK = AttnTiles<T>::kBwdK };
  __shared__ T q_tile[BQ * kMaxHead];
  __shared__ T g_tile[BQ * kMaxHead];
  __shared__ T p_tile[BQ * BK];
  __shared__ T ds_tile[BQ * BK];
  __shared__ T dk_acc[BK * kMaxHead];
  __shared__ T dv_acc[BK * kMaxHead];
  const int tid = threadIdx.x;
  const int64_t bh = blockIdx.y, k0 = static_cast<int64_t>(blockIdx.x) * BK;
  const int64_t E = sh.head_dim, Ev = sh.value_dim, L = sh.q_len, S = sh.k_len;
  const int64_t nk = min(static_cast<int64_t>(BK), S - k0);
  const T zero = 0;
  const T neg_inf = attn_log(zero);
  for (int64_t idx = tid; idx < BK * E; idx += kAttnThreads) dk_acc[idx] = 0;
  for (int64_t idx = tid; idx < BK * Ev; idx += kAttnThreads) dv_acc[idx] = 0;
  const int64_t q_begin = sh.causal ? (k0 / BQ) * BQ : 0;  // causal: queries before the tile's first key see none
  for (int64_t q0 = q_begin; q0 < L; q0 += BQ) {
    const int64_t rows = min(static_cast<int64_t>(BQ), L - q0);
    for (int64_t idx = tid; idx < rows * E; idx += kAttnThreads) q_tile[idx] = attn_load<T>(q[(bh * L + q0) * E + idx]);
    for (int64_t idx = tid; idx < rows * Ev; idx += kAttnThreads)
      g_tile[idx] = attn_load<T>(grad_out[(bh * L + q0) * Ev + idx]);
    __syncthreads();
    for (int idx = tid; idx < BQ * BK; idx += kAttnThreads) {
      const int r = idx / BK, j = idx % BK;
      T p = 0, ds = 0;
      if (r < rows && j < nk) {
        const W* kj = k + (bh * S + k0 + j) * E;
        const W* vj = v + (bh * S + k0 + j) * Ev;
        T dot = 0, dp = 0;
        for (int64_t e = 0; e < E; ++e) dot += q_tile[r * E + e] * attn_load<T>(kj[e]);
        for (int64_t e = 0; e < Ev; ++e) dp += g_tile[r * Ev + e] * attn_load<T>(vj[e]);
        p = attn_prob(attn_score(dot, bh, q0 + r, k0 + j, mask, sh, neg_inf), lse[bh * L + q0 + r]);
        ds = p * (dp - row_dot[bh * L + q0 + r]);
      }
      p_tile[idx] = p;
      ds_tile[idx] = ds;
    }
    __syncthreads();
    for (int64_t idx = tid; idx < BK * Ev; idx += kAttnThreads) {
      const int64_t j = idx / Ev, e = idx % Ev;
      T a = dv_acc[idx];
      for (int64_t r = 0; r < rows; ++r) a += p_tile[r * BK + j] * g_tile[r * Ev + e];
      dv_acc[idx] = a;
    }
    for (int64_t idx = tid; idx < BK * E; idx += kAttnThreads) {
      const int64_t j = idx / E, e = idx % E;
      T a = dk_acc[idx];
      for (int64_t r = 0; r < rows; ++r) a += ds_tile[r * BK + j] * q_tile[r * E + e];
      dk_acc[idx] = a;
    }
    __syncthreads();
  }
  const T scale = static_cast<T>(sh.scale);
  for (int64_t idx = tid; idx < nk * E; idx += kAttnThreads)
    dk[(bh * S + k0) * E + idx] = attn_store<W>(dk_acc[idx] * scale);
  for (int64_t idx = tid; idx < nk * Ev; idx += kAttnThreads) dv[(bh * S + k0) * Ev + idx] = attn_store<W>(dv_acc[idx]);
}

}  // namespace openreg

#define OPENREG_ATTENTION_KERNELS(T, W, S)                                                                   \
  extern "C" __global__ void __launch_bounds__(OPENREG_ATTN_THREADS)                                         \
      attention_fwd_##S(W* out, T* lse, const W* q, const W* k, const W* v, const T* mask,                   \
                        openreg::AttentionShape shape) {                                                     \
    openreg::attention_fwd<T, W>(out, lse, q, k, v, mask, shape);                                            \
  }                                                                                                          \
  extern "C" __global__ void __launch_bounds__(OPENREG_ATTN_THREADS)                                         \
      attention_bwd_dq_##S(W* dq, T* row_dot, const W* q, const W* k, const W* v, const W* out,              \
                           const W* grad_out, const T* lse, const T* mask, openreg::AttentionShape shape) {  \
    openreg::attention_bwd_dq<T, W>(dq, row_dot, q, k, v, out, grad_out, lse, mask, shape);                  \
  }                                                                                                          \
  extern "C" __global__ void __launch_bounds__(OPENREG_ATTN_THREADS)                                         \
      attention_bwd_dkdv_##S(W* dk, W* dv, const W* q, const W* k, const W* v, const W* grad_out,            \
                             const T* lse, const T* row_dot, const T* mask, openreg::AttentionShape shape) { \
    openreg::attention_bwd_dkdv<T, W>(dk, dv, q, k, v, grad_out, lse, row_dot, mask, shape);                 \
  }

OPENREG_ATTENTION_KERNELS(float, float, f32)
OPENREG_ATTENTION_KERNELS(double, double, f64)
OPENREG_ATTENTION_KERNELS(float, uint16_t, bf16)
