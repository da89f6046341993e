// CUDA devices as an application sees them: whether there are any, what they
// are, streams on them, and the context guard for interop. Kernels, arrays,
// streams and events are the device-generic ones (weft/weft.hpp): a module
// loaded with ModuleLoadOptions::device = Device::cuda(n) launches like a
// CPU one. Nothing here loads the driver until it is used; without one, every
// call that needs it throws BackendError "CUDA driver not available: ...".
#pragma once

#include "weft/runtime/stream.hpp"

#include <string>

struct CUctx_st;

namespace weft {

/// Installs CUDA's DeviceRuntime for Array and Stream (cheap: no driver is
/// loaded until used). Every weft::Host does it when it is created.
void install_cuda_runtime();

/// The number of CUDA devices; 0 without a driver (never throws).
int cuda_device_count() noexcept;
/// Why CUDA cannot be used here ("" when a driver sees at least one device
/// and can run what this build's NVRTC compiles; see cuda_driver_mismatch).
std::string cuda_unavailable_reason();
/// Why the installed driver cannot run what this build's NVRTC produces, naming
/// both versions ("" when it can, or without a driver or NVRTC): a driver of
/// an older major version runs neither NVRTC's CUBIN nor its PTX (PTX from
/// NVRTC 13 needs a 13.x driver, 580 or newer); with `ptx`, also a driver of
/// the same major but an older minor version (the driver JIT-compiles PTX
/// only from PTX ISA versions it knows; a CUBIN needs no JIT).
std::string cuda_driver_mismatch(bool ptx = false);
/// Compute capability * 10 of device `device` (e.g. 90). Throws BackendError
/// without a driver and UserError for a device index the driver does not have.
int cuda_compute_capability(int device);

/// Makes device `device`'s primary context (weft's, retained once per
/// process) current on this thread for the guard's life, with
/// cuCtxPushCurrent when another context (or none) is current, and pops it
/// again at the end. Every weft call that needs a context holds one, so weft
/// never replaces an application's context; hold one around raw driver
/// calls on weft's arrays or streams. Throws like cuda_compute_capability for
/// a device the driver does not have.
class CudaContextGuard {
public:
    explicit CudaContextGuard(int device);
    ~CudaContextGuard();
    CudaContextGuard(const CudaContextGuard &) = delete;
    CudaContextGuard &operator=(const CudaContextGuard &) = delete;
    /// The CUcontext.
    CUctx_st *context() const { return context_; }

private:
    CUctx_st *context_ = nullptr;
    bool pushed_ = false;
};

/// A stream on CUDA device `device` (cuStreamCreate; non_blocking:
/// CU_STREAM_NON_BLOCKING, no implicit ordering with the legacy default
/// stream), the same as Stream(Device::cuda(device)). Destroying it waits for
/// its work. Every record of a weft::Event on it creates a fresh CUevent (the
/// fence of that record), so a Sync or a waiting stream keeps the record it
/// saw: recording again cannot change it (EGL_NV_cuda_event's rule). Client
/// waits with a timeout poll cuEventQuery, sleeping 20 us to 1 ms between
/// polls. A CUDA stream can wait for CUDA fences of any device
/// (cuStreamWaitEvent), not for CPU ones; CPU streams can wait for CUDA fences.
Stream make_cuda_stream(int device = 0, bool non_blocking = false);

} // namespace weft
