// weft::Stream and weft::Event on CUDA devices, over the driver API.
//
// make_cuda_stream gives a weft::Stream whose work is a driver stream
// (CudaStream); a weft::Event for Device::cuda(n) records there. Every record
// creates a fresh CUevent (CudaEvent, timing disabled): the fence of that
// record. So a Sync or a waiting stream keeps the CUevent of the record it
// saw, and recording the event again cannot change it (EGL_NV_cuda_event's
// rule, with no need to re-point one CUevent).
//
// Client waits with a timeout poll cuEventQuery (the driver has no timed
// wait), sleeping from 20 us up to 1 ms between polls; waits without one
// block in cuEventSynchronize. A CUDA stream can wait for CUDA fences of any
// device (cuStreamWaitEvent), not for CPU ones; CPU streams can wait for CUDA
// fences (their worker thread blocks).
//
// Stream(Device::cuda(n)) makes the same; kernels launch on it with
// Kernel::launch(dim, args, {&stream}), and weft::copy takes it too.
#pragma once

#include "weft/runtime/stream.hpp"

namespace weft {

/// A stream on CUDA device `device` (cuStreamCreate; non_blocking:
/// CU_STREAM_NON_BLOCKING, no implicit ordering with the legacy default
/// stream). Destroying it waits for its work. BackendError "CUDA driver not
/// available: ..." without a driver.
Stream make_cuda_stream(int device = 0, bool non_blocking = false);

} // namespace weft
