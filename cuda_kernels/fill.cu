// fill.cu -- out[...] = value for every dtype (bool, uint8, int8..int64, float16/32/64).
//
//   fill_contig_<dt>(out, value, n)        dense output: 16-byte vector stores + scalar head/tail
//   fill_strided_<dt>(out, value, geom)    any output layout; zero strides are allowed (every writer
//                                          stores the same value, as PyTorch's fill_ on expanded tensors)
//
// `value` arrives already converted to the output dtype (kernels.py packs it).
#include "common.cuh"
#include "indexing.cuh"
#include "pointwise.cuh"

#define OPENREG_FILL_KERNELS(T, S)                                                                          \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                   \
      fill_contig_##S(T* out, T value, int64_t n) {                                                         \
    openreg::fill_contig(out, value, n);                                                                    \
  }                                                                                                         \
  extern "C" __global__ void __launch_bounds__(OPENREG_POINTWISE_THREADS)                                   \
      fill_strided_##S(T* out, T value, openreg::StridedGeometry<1> geom) {                                 \
    openreg::fill_strided(out, value, geom);                                                                \
  }

OPENREG_FOR_EACH_TYPE(OPENREG_FILL_KERNELS)
