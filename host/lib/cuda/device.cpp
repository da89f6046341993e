// The CUDA driver as the runtime layer uses it: one primary context per
// device, retained on first use and kept for the life of the process.
#include "internal.hpp"

#include "cuda/stream_event.hpp"
#include "weft/support/error.hpp"

#include <cstdio>
#include <map>
#include <mutex>

namespace weft {

using backend::CudaDriver;
using cuda::driver;

CudaDriver &cuda::driver() {
    CudaDriver &d = CudaDriver::instance();
    if (!d.available()) d.api(); // throws "CUDA driver not available: <reason>"
    return d;
}

backend::CudaContext cuda::primary_context(int ordinal) {
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
    return context;
}

CudaContextGuard::CudaContextGuard(int device) : context_(cuda::primary_context(device)) {
    CudaDriver &d = driver();
    if (d.current_context() == context_) return;
    d.push_context(context_);
    pushed_ = true;
}

CudaContextGuard::~CudaContextGuard() {
    if (!pushed_) return;
    try {
        driver().pop_context();
    } catch (...) {
        // Only a driver shutting down fails here; the thread keeps no context of weft's either way.
    }
}

int cuda_device_count() noexcept {
    try {
        CudaDriver &d = CudaDriver::instance();
        return d.available() ? d.device_count() : 0;
    } catch (...) {
        return 0;
    }
}

namespace {
/// 13000 -> "13.0", cuDriverGetVersion's form.
std::string version_text(int version) { return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10); }

/// NVRTC's version in cuDriverGetVersion's form (13000); 0 without NVRTC.
int nvrtc_version_number() {
    if (!backend::nvrtc_available()) return 0;
    const std::string v = backend::nvrtc_version(); // "nvrtc 13.0"
    int major = 0, minor = 0;
    if (std::sscanf(v.c_str(), "nvrtc %d.%d", &major, &minor) < 1) return 0;
    return major * 1000 + minor * 10;
}
} // namespace

std::string cuda_driver_mismatch(bool ptx) {
    CudaDriver &d = CudaDriver::instance();
    const int nvrtc = nvrtc_version_number();
    if (!d.available() || nvrtc == 0) return "";
    const int driver = d.driver_version();
    const bool too_old = driver / 1000 < nvrtc / 1000 || (ptx && driver < nvrtc);
    if (!too_old) return "";
    return "the CUDA driver is version " + version_text(driver) + ", older than this weft's NVRTC " +
           version_text(nvrtc) + ": " + (ptx ? "PTX" : "code") + " from NVRTC " + version_text(nvrtc) +
           " needs a CUDA driver of version " + version_text(ptx ? nvrtc : nvrtc / 1000 * 1000) +
           " or newer (update the NVIDIA driver, or build weft with an older CUDA toolkit)";
}

std::string cuda_unavailable_reason() {
    CudaDriver &d = CudaDriver::instance();
    if (!d.available()) return "CUDA driver not available: " + d.unavailable_reason();
    try {
        if (d.device_count() == 0) return "the CUDA driver sees no device";
        return cuda_driver_mismatch();
    } catch (const std::exception &e) {
        return e.what();
    }
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
