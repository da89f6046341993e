// What the CUDA runtime layer's files share: the driver, the per-device
// primary context, and the stream implementation behind weft::Stream.
#pragma once

#include "weft/backend/cuda.hpp"
#include "weft/runtime/stream.hpp"

#include <memory>

namespace weft::cuda {

/// The driver, or BackendError "CUDA driver not available: <reason>".
backend::CudaDriver &driver();
/// The primary context of device `ordinal`, retained once per process (not
/// made current: CudaContextGuard does that). UserError for a device the driver lacks.
backend::CudaContext primary_context(int ordinal);
/// A weft::Stream's implementation on CUDA device `ordinal` (stream.cpp).
std::unique_ptr<StreamBackend> make_stream_backend(int ordinal, bool non_blocking);

} // namespace weft::cuda
