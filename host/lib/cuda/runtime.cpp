// CUDA's DeviceRuntime: device memory and copies for weft::Array, driver
// streams for weft::Stream. Every call works in the device's primary context.
#include "internal.hpp"

#include "cuda/stream_event.hpp"
#include "weft/runtime/device.hpp"
#include "weft/support/error.hpp"

namespace weft::cuda {

namespace {

backend::CudaDevicePtr address(const void *p) { return reinterpret_cast<backend::CudaDevicePtr>(p); }

class CudaDeviceRuntime final : public DeviceRuntime {
public:
    void *allocate(int ordinal, std::size_t bytes) override {
        const CudaContextGuard context(ordinal);
        if (bytes == 0) return nullptr;
        backend::CudaDriver &d = driver();
        const backend::CudaDevicePtr p = d.mem_alloc(bytes); // 256-byte aligned
        try {
            d.memset_d8(p, 0, bytes);
            // cuMemsetD8 is asynchronous; non-blocking streams do not order
            // after the legacy stream, so the zeros must have landed here.
            d.stream_synchronize(nullptr);
        } catch (...) {
            d.mem_free(p);
            throw;
        }
        return reinterpret_cast<void *>(p);
    }

    void release(int ordinal, void *p) noexcept override {
        try {
            const CudaContextGuard context(ordinal);
            driver().mem_free(address(p));
        } catch (...) {
            // At exit the driver may be shutting down; nothing to report to.
        }
    }

    void copy(int ordinal, void *dst, const void *src, std::size_t bytes, Copy kind, StreamBackend *stream) override {
        if (bytes == 0) return;
        const CudaContextGuard context(ordinal);
        backend::CudaDriver &d = driver();
        if (stream && stream->device() != Device::cuda(ordinal))
            throw UserError("copy: the stream is on " + stream->device().name() + ", the array on cuda:" +
                            std::to_string(ordinal));
        const auto s = stream ? static_cast<backend::CudaStream>(stream->native_handle()) : nullptr;
        switch (kind) {
        case Copy::HostToDevice:
            if (s) return d.memcpy_htod_async(address(dst), src, bytes, s);
            d.memcpy_htod(address(dst), src, bytes);
            break;
        case Copy::DeviceToHost:
            if (s) return d.memcpy_dtoh_async(dst, address(src), bytes, s);
            d.memcpy_dtoh(dst, address(src), bytes);
            break;
        case Copy::DeviceToDevice:
            if (s) return d.memcpy_dtod_async(address(dst), address(src), bytes, s);
            d.memcpy_dtod(address(dst), address(src), bytes);
            break;
        }
        // From pageable memory a synchronous copy may still be in flight when it
        // returns; work on a non-blocking stream would not wait for it.
        d.stream_synchronize(nullptr);
    }

    std::unique_ptr<StreamBackend> make_stream(int ordinal, bool non_blocking) override {
        return make_stream_backend(ordinal, non_blocking);
    }
};

} // namespace

} // namespace weft::cuda

namespace weft {
void install_cuda_runtime() {
    // Never destroyed: arrays released during static destruction still reach it.
    static auto *runtime = new cuda::CudaDeviceRuntime;
    install_device_runtime(Device::Kind::Cuda, *runtime);
}
} // namespace weft
