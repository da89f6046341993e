// What the host layer's CUDA files share: the driver, the per-device primary
// context, CUDA streams for weft::Stream, and the CUDA device runtime that
// weft::Array and weft::Stream use.
#pragma once

#include "weft/backend/cuda.hpp"
#include "weft/runtime/stream.hpp"

#include <memory>

namespace weft::detail {

/// The driver, or BackendError "CUDA driver not available: <reason>".
backend::CudaDriver &cuda_driver();
/// The primary context of device `ordinal`, retained once per process and
/// made current on this thread. UserError for a device the driver lacks.
backend::CudaContext use_cuda_device(int ordinal);
/// A weft::Stream's implementation on CUDA device `ordinal` (cuda_stream.cpp).
std::unique_ptr<StreamBackend> make_cuda_stream_backend(int ordinal, bool non_blocking);
/// Installs CUDA's DeviceRuntime (cuda_runtime.cpp); cheap, loads no driver.
void install_cuda_runtime();

} // namespace weft::detail
