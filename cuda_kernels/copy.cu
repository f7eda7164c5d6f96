// copy.cu -- out[...] = convert<OutT>(in[...]) between any two layouts and any two of the 9 dtypes
// (bool, uint8, int8..int64, float16/32/64): the device side of copy_, contiguous, clone and .to(dtype).
//
//   copy_contig_<out>_from_<in>(out, in, n)       both dense, same order: 16-byte vectors + head/tail
//   copy_strided_<out>_from_<in>(out, in, geom)   any layouts; broadcasting arrives as zero input strides
//
// Conversion rules are openreg::convert (common.cuh).  Exactly-aliasing in-place conversion between dtypes of
// the same size is allowed (each element is read before it is written by the same thread), so no __restrict__.
#include "common.cuh"
#include "indexing.cuh"
#include "pointwise.cuh"

#define OPENREG_COPY_KERNELS(TO, SO, FROM, SF)                                                              \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                   \
      copy_contig_##SO##_from_##SF(TO* out, const FROM* in, int64_t n) {                                    \
    openreg::pointwise_contig(out, in, n, openreg::ConvertOp<TO>());                                        \
  }                                                                                                         \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                   \
      copy_strided_##SO##_from_##SF(TO* out, const FROM* in, openreg::StridedGeometry<2> geom) {            \
    openreg::pointwise_strided(out, in, geom, openreg::ConvertOp<TO>());                                    \
  }

// Second-level list (a macro cannot expand itself, so the inner loop over source dtypes is spelled out).
#define OPENREG_COPY_FROM_EACH(TO, SO)          \
  OPENREG_COPY_KERNELS(TO, SO, bool, b8)        \
  OPENREG_COPY_KERNELS(TO, SO, uint8_t, u8)     \
  OPENREG_COPY_KERNELS(TO, SO, int8_t, i8)      \
  OPENREG_COPY_KERNELS(TO, SO, int16_t, i16)    \
  OPENREG_COPY_KERNELS(TO, SO, int32_t, i32)    \
  OPENREG_COPY_KERNELS(TO, SO, int64_t, i64)    \
  OPENREG_COPY_KERNELS(TO, SO, __half, f16)     \
  OPENREG_COPY_KERNELS(TO, SO, float, f32)      \
  OPENREG_COPY_KERNELS(TO, SO, double, f64)

OPENREG_FOR_EACH_TYPE(OPENREG_COPY_FROM_EACH)
