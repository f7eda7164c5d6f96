// abs.cu -- out = |in| for float16/32/64 and int8..int64.
//
//   abs_contig_<dt>(out, in, n)        both dense and in the same order: 16-byte vectors + scalar head/tail
//   abs_strided_<dt>(out, in, geom)    any layouts (non-contiguous input and/or output, zero strides in)
//
// In-place (out == in) is allowed, so neither pointer is __restrict__ and loads are not __ldg.
// Launch: 1-D grid of OPENREG_POINTWISE_THREADS-thread blocks, grid-stride loops (kernels.py).
#include "common.cuh"
#include "indexing.cuh"
#include "pointwise.cuh"

#define OPENREG_ABS_KERNELS(T, S)                                                                           \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                   \
      abs_contig_##S(T* out, const T* in, int64_t n) {                                                      \
    openreg::pointwise_contig(out, in, n, openreg::AbsOp());                                                \
  }                                                                                                         \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                   \
      abs_strided_##S(T* out, const T* in, openreg::StridedGeometry<2> geom) {                              \
    openreg::pointwise_strided(out, in, geom, openreg::AbsOp());                                            \
  }

OPENREG_FOR_EACH_ABS_TYPE(OPENREG_ABS_KERNELS)
