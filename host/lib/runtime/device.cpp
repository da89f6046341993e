#include "weft/runtime/device.hpp"

#include "weft/support/error.hpp"

#include <array>
#include <atomic>

namespace weft {

namespace {
std::array<std::atomic<DeviceRuntime *>, 2> runtimes{}; // by Device::Kind
} // namespace

void install_device_runtime(Device::Kind kind, DeviceRuntime &runtime) {
    if (kind == Device::Kind::Cpu) throw UserError("install_device_runtime: the CPU's runtime is built in");
    runtimes[static_cast<std::size_t>(kind)].store(&runtime);
}

DeviceRuntime &device_runtime(Device device) {
    if (device.is_cpu()) throw UserError("device_runtime: the CPU's memory is host memory (no runtime to ask)");
    DeviceRuntime *r = runtimes[static_cast<std::size_t>(device.kind)].load();
    if (!r)
        throw UserError(device.name() + ": no runtime for this device is installed in the process (creating a "
                        "weft::Host installs CUDA's)");
    return *r;
}

} // namespace weft
