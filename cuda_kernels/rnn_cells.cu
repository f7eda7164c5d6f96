// rnn_cells.cu -- the pointwise part of one LSTM / GRU step (PyTorch's _thnn_fused_*_cell) and its backward.
//
//   lstm_cell_fwd_<dt>(hy, cy, ws, input_gates, hidden_gates, cx, input_bias, hidden_bias, shape)
//   lstm_cell_bwd_<dt>(grad_gates, grad_cx, grad_hy, grad_cy, cx, cy, ws, shape)
//   gru_cell_fwd_<dt>(hy, ws, input_gates, hidden_gates, hx, input_bias, hidden_bias, shape)
//   gru_cell_bwd_<dt>(grad_input_gates, grad_hidden_gates, grad_hx, grad_hy, ws, shape)
//
// dt: f32, f64.  Dense row-major operands: gates (B, G*H), states (B, H), biases (G*H,) (read only when
// shape.has_bias), workspaces (B, 4H) = activated [i, f, g, o] and (B, 5H) = [r, z, n, hx, hn + b_hn].  A
// missing grad_hy / grad_cy (shape.has_grad_hy / has_grad_cy = 0) counts as zeros.  One thread per (b, h)
// element, grid-stride; every thread reads its G gates and writes its outputs once (bias gradients are a
// column sum the caller does).
#include "common.cuh"

#define OPENREG_CELL_THREADS 256

namespace openreg {

struct CellShape {
  int64_t batch, hidden;
  int32_t has_bias, has_grad_hy, has_grad_cy, reserved;
};
static_assert(sizeof(CellShape) == 32, "CellShape layout must match kernel_launch.py");

__device__ __forceinline__ float cell_tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double cell_tanh(double x) { return tanh(x); }
template <typename T>
__device__ __forceinline__ T cell_sigmoid(T x) {  // one tanh, no overflow for large |x|
  const T half = static_cast<T>(0.5);
  return half * cell_tanh(half * x) + half;
}

template <typename T>
__device__ __forceinline__ T gate(const T* ig, const T* hg, const T* ib, const T* hb, int64_t row, int64_t col,
                                  int64_t width, bool has_bias) {
  T x = ig[row * width + col] + hg[row * width + col];
  if (has_bias) x += ib[col] + hb[col];
  return x;
}

template <typename T>
__device__ void lstm_cell_fwd(T* hy, T* cy, T* ws, const T* ig, const T* hg, const T* cx, const T* ib, const T* hb,
                              const CellShape sh) {
  const int64_t H = sh.hidden, n = sh.batch * H, width = 4 * H;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t b = idx / H, h = idx % H;
    const T i = cell_sigmoid(gate(ig, hg, ib, hb, b, h, width, sh.has_bias));
    const T f = cell_sigmoid(gate(ig, hg, ib, hb, b, H + h, width, sh.has_bias));
    const T g = cell_tanh(gate(ig, hg, ib, hb, b, 2 * H + h, width, sh.has_bias));
    const T o = cell_sigmoid(gate(ig, hg, ib, hb, b, 3 * H + h, width, sh.has_bias));
    const T c = f * cx[idx] + i * g;
    cy[idx] = c;
    hy[idx] = o * cell_tanh(c);
    T* w = ws + b * width + h;
    w[0] = i;
    w[H] = f;
    w[2 * H] = g;
    w[3 * H] = o;
  }
}

template <typename T>
__device__ void lstm_cell_bwd(T* grad_gates, T* grad_cx, const T* grad_hy, const T* grad_cy, const T* cx,
                              const T* cy, const T* ws, const CellShape sh) {
  const int64_t H = sh.hidden, n = sh.batch * H, width = 4 * H;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t b = idx / H, h = idx % H;
    const T* w = ws + b * width + h;
    const T i = w[0], f = w[H], g = w[2 * H], o = w[3 * H];
    const T one = 1;
    const T tanh_c = cell_tanh(cy[idx]);
    const T gh = sh.has_grad_hy ? grad_hy[idx] : static_cast<T>(0);
    const T gc = (sh.has_grad_cy ? grad_cy[idx] : static_cast<T>(0)) + gh * o * (one - tanh_c * tanh_c);
    T* out = grad_gates + b * width + h;
    out[0] = gc * g * i * (one - i);
    out[H] = gc * cx[idx] * f * (one - f);
    out[2 * H] = gc * i * (one - g * g);
    out[3 * H] = gh * tanh_c * o * (one - o);
    grad_cx[idx] = gc * f;
  }
}

template <typename T>
__device__ void gru_cell_fwd(T* hy, T* ws, const T* ig, const T* hg, const T* hx, const T* ib, const T* hb,
                             const CellShape sh) {
  const int64_t H = sh.hidden, n = sh.batch * H, width = 3 * H;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t b = idx / H, h = idx % H;
    const T r = cell_sigmoid(gate(ig, hg, ib, hb, b, h, width, sh.has_bias));
    const T z = cell_sigmoid(gate(ig, hg, ib, hb, b, H + h, width, sh.has_bias));
    T in = ig[b * width + 2 * H + h], hn = hg[b * width + 2 * H + h];
    if (sh.has_bias) {
      in += ib[2 * H + h];
      hn += hb[2 * H + h];
    }
    const T nv = cell_tanh(in + r * hn);
    const T h_prev = hx[idx];
    hy[idx] = nv + z * (h_prev - nv);
    T* w = ws + b * 5 * H + h;
    w[0] = r;
    w[H] = z;
    w[2 * H] = nv;
    w[3 * H] = h_prev;
    w[4 * H] = hn;
  }
}

template <typename T>
__device__ void gru_cell_bwd(T* grad_input, T* grad_hidden, T* grad_hx, const T* grad_hy, const T* ws,
                             const CellShape sh) {
  const int64_t H = sh.hidden, n = sh.batch * H, width = 3 * H;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t b = idx / H, h = idx % H;
    const T* w = ws + b * 5 * H + h;
    const T r = w[0], z = w[H], nv = w[2 * H], h_prev = w[3 * H], hn = w[4 * H];
    const T one = 1, gh = grad_hy[idx];
    const T gn = gh * (one - z) * (one - nv * nv);
    const T gr = gn * hn * r * (one - r);
    const T gz = gh * (h_prev - nv) * z * (one - z);
    T* gi = grad_input + b * width + h;
    T* gg = grad_hidden + b * width + h;
    gi[0] = gr;
    gi[H] = gz;
    gi[2 * H] = gn;
    gg[0] = gr;
    gg[H] = gz;
    gg[2 * H] = gn * r;
    grad_hx[idx] = gh * z;
  }
}

}  // namespace openreg

#define OPENREG_CELL_KERNELS(T, S)                                                                           \
  extern "C" __global__ void __launch_bounds__(OPENREG_CELL_THREADS)                                         \
      lstm_cell_fwd_##S(T* hy, T* cy, T* ws, const T* ig, const T* hg, const T* cx, const T* ib, const T* hb, \
                        openreg::CellShape shape) {                                                          \
    openreg::lstm_cell_fwd(hy, cy, ws, ig, hg, cx, ib, hb, shape);                                           \
  }                                                                                                          \
  extern "C" __global__ void __launch_bounds__(OPENREG_CELL_THREADS)                                         \
      lstm_cell_bwd_##S(T* grad_gates, T* grad_cx, const T* grad_hy, const T* grad_cy, const T* cx,          \
                        const T* cy, const T* ws, openreg::CellShape shape) {                                \
    openreg::lstm_cell_bwd(grad_gates, grad_cx, grad_hy, grad_cy, cx, cy, ws, shape);                        \
  }                                                                                                          \
  extern "C" __global__ void __launch_bounds__(OPENREG_CELL_THREADS)                                         \
      gru_cell_fwd_##S(T* hy, T* ws, const T* ig, const T* hg, const T* hx, const T* ib, const T* hb,        \
                       openreg::CellShape shape) {                                                           \
    openreg::gru_cell_fwd(hy, ws, ig, hg, hx, ib, hb, shape);                                                \
  }                                                                                                          \
  extern "C" __global__ void __launch_bounds__(OPENREG_CELL_THREADS)                                         \
      gru_cell_bwd_##S(T* grad_input, T* grad_hidden, T* grad_hx, const T* grad_hy, const T* ws,             \
                       openreg::CellShape shape) {                                                           \
    openreg::gru_cell_bwd(grad_input, grad_hidden, grad_hx, grad_hy, ws, shape);                             \
  }

OPENREG_CELL_KERNELS(float, f32)
OPENREG_CELL_KERNELS(double, f64)
