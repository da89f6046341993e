// The CUDA driver as the runtime layer uses it: one primary context per
// device, retained on first use and kept for the life of the process.
#include "internal.hpp"

#include "weft/cuda/cuda_module.hpp"
#include "weft/support/error.hpp"

#include <map>
#include <mutex>

namespace weft {

using backend::CudaDriver;
using cuda::driver;
using cuda::use_device;

CudaDriver &cuda::driver() {
    CudaDriver &d = CudaDriver::instance();
    if (!d.available()) d.api(); // throws "CUDA driver not available: <reason>"
    return d;
}

backend::CudaContext cuda::use_device(int ordinal) {
    CudaDriver &d = driver();
    static std::mutex mutex;
    static auto *contexts = new std::map<int, backend::CudaContext>; // never destroyed, like the driver
    backend::CudaContext context = nullptr;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = contexts->find(ordinal);
        if (it == contexts->end()) {
            const int count = d.device_count();
            if (ordinal < 0 || ordinal >= count)
                throw UserError("no CUDA device cuda:" + std::to_string(ordinal) + " (the driver sees " +
                                std::to_string(count) + " device" + (count == 1 ? "" : "s") + ")");
            it = contexts->emplace(ordinal, d.primary_context_retain(d.device(ordinal))).first;
        }
        context = it->second;
    }
    if (d.current_context() != context) d.set_current_context(context);
    return context;
}

int cuda_device_count() noexcept {
    try {
        CudaDriver &d = CudaDriver::instance();
        return d.available() ? d.device_count() : 0;
    } catch (...) {
        return 0;
    }
}

std::string cuda_unavailable_reason() {
    CudaDriver &d = CudaDriver::instance();
    if (!d.available()) return "CUDA driver not available: " + d.unavailable_reason();
    try {
        if (d.device_count() == 0) return "the CUDA driver sees no device";
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}

int cuda_compute_capability(int device) {
    CudaDriver &d = driver();
    const int count = d.device_count();
    if (device < 0 || device >= count)
        throw UserError("there is no CUDA device cuda:" + std::to_string(device) + " (the driver sees " +
                        std::to_string(count) + ")");
    return d.compute_capability(d.device(device));
}

} // namespace weft
