// The CUDA driver's function table: one pointer per driver function weft
// uses, each fetched through cuGetProcAddress_v2 at the ABI version its
// cudaTypedefs.h typedef names (PFN_cuMemAlloc_v3020 is cuMemAlloc_v2's
// signature). The version is pinned, not CUDA_VERSION: asking for 13000
// would hand out, e.g., the CUDA 13 cuCtxSynchronize(CUcontext) where the
// older one takes no argument. The field is named like the typedef
// (cuMemAlloc_v3020), so a call states the ABI it uses; cuda.h's
// `#define cuMemAlloc cuMemAlloc_v2` never touches these names.
#pragma once

#include "weft/backend/cuda.hpp"

#ifdef WEFT_HAVE_NVRTC
#include <cuda.h>
#include <cudaTypedefs.h>

// X(name, version): the legacy-default-stream variants (no _ptds / _ptsz).
#define WEFT_CUDA_DRIVER_FUNCTIONS(X)                                                                                  \
    X(cuGetErrorName, 6000)                                                                                            \
    X(cuGetErrorString, 6000)                                                                                          \
    X(cuInit, 2000)                                                                                                    \
    X(cuDriverGetVersion, 2020)                                                                                        \
    X(cuDeviceGetCount, 2000)                                                                                          \
    X(cuDeviceGet, 2000)                                                                                               \
    X(cuDeviceGetName, 2000)                                                                                           \
    X(cuDeviceGetAttribute, 2000)                                                                                      \
    X(cuDeviceTotalMem, 3020)                                                                                          \
    X(cuDevicePrimaryCtxRetain, 7000)                                                                                  \
    X(cuDevicePrimaryCtxRelease, 11000)                                                                                \
    X(cuCtxSetCurrent, 4000)                                                                                           \
    X(cuCtxGetCurrent, 4000)                                                                                           \
    X(cuCtxPushCurrent, 4000)                                                                                          \
    X(cuCtxPopCurrent, 4000)                                                                                           \
    X(cuCtxSynchronize, 2000)                                                                                          \
    X(cuModuleLoadDataEx, 2010)                                                                                        \
    X(cuModuleUnload, 2000)                                                                                            \
    X(cuModuleGetFunction, 2000)                                                                                       \
    X(cuModuleGetGlobal, 3020)                                                                                         \
    X(cuMemAlloc, 3020)                                                                                                \
    X(cuMemFree, 3020)                                                                                                 \
    X(cuMemGetInfo, 3020)                                                                                              \
    X(cuMemcpyHtoD, 3020)                                                                                              \
    X(cuMemcpyDtoH, 3020)                                                                                              \
    X(cuMemcpyHtoDAsync, 3020)                                                                                         \
    X(cuMemcpyDtoHAsync, 3020)                                                                                         \
    X(cuMemcpyDtoD, 3020)                                                                                              \
    X(cuMemcpyDtoDAsync, 3020)                                                                                         \
    X(cuMemsetD8, 3020)                                                                                                \
    X(cuMemsetD8Async, 3020)                                                                                           \
    X(cuLaunchKernel, 4000)                                                                                            \
    X(cuStreamCreate, 2000)                                                                                            \
    X(cuStreamSynchronize, 2000)                                                                                       \
    X(cuStreamDestroy, 4000)                                                                                           \
    X(cuStreamWaitEvent, 3020)                                                                                         \
    X(cuEventCreate, 2000)                                                                                             \
    X(cuEventRecord, 2000)                                                                                             \
    X(cuEventQuery, 2000)                                                                                              \
    X(cuEventSynchronize, 2000)                                                                                        \
    X(cuEventElapsedTime, 2000)                                                                                        \
    X(cuEventDestroy, 4000)                                                                                            \
    X(cuFuncGetAttribute, 2020)                                                                                        \
    X(cuOccupancyMaxPotentialBlockSize, 6050)

namespace weft::backend {
struct CudaDriver::Api {
#define WEFT_CUDA_FIELD(name, version) PFN_##name##_v##version name##_v##version = nullptr;
    WEFT_CUDA_DRIVER_FUNCTIONS(WEFT_CUDA_FIELD)
#undef WEFT_CUDA_FIELD
};
} // namespace weft::backend

#else

// Built without a CUDA toolkit: no driver calls at all.
namespace weft::backend {
struct CudaDriver::Api {};
} // namespace weft::backend

#endif
