/*
 * WEFT_CALLABLE: marks a function in a plugin's device-side header as callable
 * from kernels on every backend: `__host__ __device__` when compiled as CUDA
 * (nvcc or NVRTC), nothing on the CPU. Write it before `inline`:
 *
 *     WEFT_CALLABLE inline float luminance(Color c) { ... }
 *
 * The macro carries no `inline` so that its text is the same as the one weft's
 * runtime headers define (they are included before every plugin preamble, and
 * a second, different definition would be an error). This header includes
 * nothing, so it compiles under NVRTC, which has no C library.
 */
#ifndef WEFT_CALLABLE_H
#define WEFT_CALLABLE_H

#ifndef WEFT_CALLABLE
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WEFT_CALLABLE __host__ __device__
#else
#define WEFT_CALLABLE
#endif
#endif

#endif /* WEFT_CALLABLE_H */
