// What a device's runtime gives the device-generic classes
// (Array, Stream): memory, copies and streams. The CPU's runtime is built in;
// CUDA's is installed by install_cuda_runtime (weft/runtime/cuda.hpp), which
// every weft::Host does when it is created.
#pragma once

#include "weft/support/device.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace weft {

class StreamBackend;

/// A device's memory and streams, for Array and Stream. Addresses are the
/// device's own (a CUdeviceptr for CUDA), carried as void *.
class DeviceRuntime {
public:
    virtual ~DeviceRuntime() = default;
    /// `bytes` zero-filled bytes on device `ordinal`, aligned to at least 64
    /// bytes; nullptr for 0 bytes. Throws when the device cannot.
    virtual void *allocate(int ordinal, std::size_t bytes) = 0;
    virtual void release(int ordinal, void *address) noexcept = 0;
    enum class Copy { HostToDevice, DeviceToHost, DeviceToDevice };
    /// Copies `bytes` contiguous bytes, ordered on `stream` when given (one of
    /// this device's), else complete when this returns.
    virtual void copy(int ordinal, void *dst, const void *src, std::size_t bytes, Copy kind, StreamBackend *stream) = 0;
    /// A stream of device `ordinal` (Stream(Device)).
    virtual std::unique_ptr<StreamBackend> make_stream(int ordinal, bool non_blocking) = 0;
};

/// Installs the runtime of a device kind (once per process; later calls with
/// the same runtime do nothing). The runtime must live as long as the process.
void install_device_runtime(Device::Kind kind, DeviceRuntime &runtime);
/// The runtime of `device`'s kind. UserError naming the device when none is
/// installed (CUDA's is installed when a weft::Host is created).
DeviceRuntime &device_runtime(Device device);

} // namespace weft
